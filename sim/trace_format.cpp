// Trace records -> text: Chrome/Perfetto trace-event JSON and ftrace text (the lines of
// /sys/kernel/tracing/trace, which Perfetto's systrace tokenizer also reads).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>

#include "sim/trace_writer.hpp"

namespace vtick {

namespace {

void append_escaped(std::string& o, const std::string& s) {
  o += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else {
      o += c;
    }
  }
  o += '"';
}

// JSON times are microseconds as doubles. A reader that adds ts + dur in floating point
// (chrome://tracing) or converts each to integer ns by truncation (Perfetto's
// CoerceToTs: int64(us * 1000)) must never see a slice end after the next one starts,
// or it nests them. us_value() is the double nearest to ns/1000, nudged up until the
// truncation gives ns back; dur_value() nudges a duration down until ts + dur does not
// pass the end's own value.
double us_value(sim_ns ns) {
  double d = static_cast<double>(ns) / 1000.0;
  while (static_cast<sim_ns>(d * 1000.0) < ns) d = std::nextafter(d, HUGE_VAL);
  return d;
}

double dur_value(double ts, sim_ns end, sim_ns dur) {
  double e = us_value(end), d = static_cast<double>(dur) / 1000.0;
  while (d > 0 && ts + d > e) d = std::nextafter(d, 0.0);
  return d;
}

// Three decimals when they denote the same double, else the shortest text that does.
void append_us(std::string& o, double us) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3f", us);
  if (std::strtod(buf, nullptr) != us) {
    auto r = std::to_chars(buf, buf + sizeof buf - 1, us);
    *r.ptr = '\0';
  }
  o += buf;
}

void append_args(std::string& o, const TraceRecord& r) {
  o += ",\"args\":{";
  for (int i = 0; i < r.nargs; ++i) {
    const TraceArg& a = r.args[static_cast<std::size_t>(i)];
    if (i) o += ',';
    append_escaped(o, a.key);
    o += ':';
    if (a.s) append_escaped(o, a.s);
    else o += std::to_string(a.v);
  }
  o += '}';
}

void append_meta(std::string& o, int pid, int tid, const char* what, const std::string& name) {
  o += "{\"ph\":\"M\",\"pid\":" + std::to_string(pid);
  if (tid >= 0) o += ",\"tid\":" + std::to_string(tid);
  o += ",\"name\":\"";
  o += what;
  o += "\",\"args\":{\"name\":";
  append_escaped(o, name);
  o += "}}";
}

std::string mark_label(const TraceRecord& r) {
  std::string s = r.ph == 'i' && r.mark ? r.mark : r.name;
  for (int i = 0; i < r.nargs; ++i) {
    const TraceArg& a = r.args[static_cast<std::size_t>(i)];
    s += std::string(" ") + a.key + "=" + (a.s ? std::string(a.s) : std::to_string(a.v));
  }
  return s;
}

}  // namespace

std::string TraceWriter::json() const {
  std::string o;
  o.reserve(out_.size() * 120 + 4096);
  o += "{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"tool\":\"vtick\",\"scenario\":";
  append_escaped(o, topo_.scenario);
  o += ",\"seed\":" + std::to_string(topo_.seed) + ",\"window_start_ns\":" + std::to_string(ws_) +
       ",\"window_end_ns\":" + std::to_string(end_) + "},\n\"traceEvents\":[\n";
  append_meta(o, kTraceHostPid, -1, "process_name", topo_.host_name.empty() ? "host" : topo_.host_name);
  o += ",\n";
  append_meta(o, kTraceVmPid, -1, "process_name", topo_.vm_name.empty() ? "vm0" : topo_.vm_name);
  for (const auto& [id, tr] : tracks_) {
    o += ",\n";
    append_meta(o, tr.pid, tr.tid, "thread_name", tr.name);
  }
  for (const TraceRecord& r : out_) {
    o += ",\n{\"ph\":\"";
    o += r.ph;
    o += "\",\"pid\":" + std::to_string(r.pid);
    if (r.ph != 'C') o += ",\"tid\":" + std::to_string(r.tid);
    o += ",\"ts\":";
    double ts = us_value(r.ts);
    append_us(o, ts);
    if (r.ph == 'X') {
      o += ",\"dur\":";
      append_us(o, dur_value(ts, r.ts + r.dur, r.dur));
    }
    o += ",\"name\":";
    append_escaped(o, r.name);
    if (r.ph != 'C') {
      o += ",\"cat\":";
      append_escaped(o, r.cat);
    }
    if (r.ph == 'i') o += ",\"s\":\"t\"";
    if (r.nargs || r.ph == 'C') append_args(o, r);
    o += '}';
  }
  o += "\n]}\n";
  return o;
}

// The tracepoint records, and the slices, instants and counters of the marks tracks as
// tracing_mark_write marks (B|TGID|NAME ... E|TGID; an instant is a B and its E
// together; C|TGID|NAME KEY|VALUE), in time order. At one instant a slice's end comes
// before anything that begins there, and an instant's E right after its B, so a reader
// that pairs B/E as a stack per thread gets every slice right.
std::vector<FtraceEvent> TraceWriter::ftrace_events() const {
  struct Item {
    FtraceEvent e;
    int rank;  // 0: a slice's end, 1: the rest
    int kind;  // 0: a tracepoint record, 1: a mark
  };
  std::vector<Item> items;
  items.reserve(fevents_.size() + out_.size() * 2);
  for (const FtraceEvent& e : fevents_) items.push_back({e, 1, 0});
  const std::int64_t mark_ip = static_cast<std::int64_t>(syms_.find("tracing_mark_write"));
  auto mark = [&](const Track& tr, int cpu, sim_ns ts, std::uint64_t seq, int sub, int rank, std::string text) {
    Item it{FtraceEvent{}, rank, 1};
    it.e.ts = ts;
    it.e.seq = seq;
    it.e.sub = sub;
    it.e.host = tr.host;
    it.e.cpu = cpu;
    it.e.pid = tr.fpid;
    it.e.comm = tr.comm;
    it.e.tp = Tp::Print;
    it.e.v[0] = mark_ip;
    it.e.s[0] = std::move(text);
    items.push_back(std::move(it));
  };
  for (std::size_t i = 0; i < out_.size(); ++i) {
    const TraceRecord& r = out_[i];
    auto found = tracks_.find({r.pid, r.tid});
    if (found == tracks_.end() || !found->second.marks) continue;
    const Track& tr = found->second;
    const std::string tgid = std::to_string(tr.ftgid);
    int sub = 2 * static_cast<int>(i);
    if (r.ph == 'C') {
      mark(tr, r.cpu, r.ts, r.seq, sub, 1,
           "C|" + tgid + "|" + r.name + " " + r.args[0].key + "|" + std::to_string(r.args[0].v));
      continue;
    }
    if (r.ph == 'i' && r.mark && !*r.mark) continue;  // a tracepoint record stands for it
    mark(tr, r.cpu, r.ts, r.seq, sub, 1, "B|" + tgid + "|" + (r.ph == 'i' ? mark_label(r) : r.name));
    if (r.ph == 'X') mark(tr, r.cpu, r.ts + r.dur, r.seq, sub + 1, 0, "E|" + tgid);
    else mark(tr, r.cpu, r.ts, r.seq, sub + 1, 1, "E|" + tgid);
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return std::tie(a.e.ts, a.rank, a.e.seq, a.kind, a.e.sub) < std::tie(b.e.ts, b.rank, b.e.seq, b.kind, b.e.sub);
  });
  std::vector<FtraceEvent> out;
  out.reserve(items.size());
  for (Item& it : items) out.push_back(std::move(it.e));
  return out;
}

// /sys/kernel/tracing/trace's layout (kernel/trace/trace.c print_func_help_header_irq(),
// trace_output.c trace_print_context(): TASK-PID, [CPU], the latency flags, the time in
// microseconds rounded as ns2usecs() rounds), both machines in one file.
std::string TraceWriter::ftrace() const { return ftrace(ftrace_events()); }

std::string TraceWriter::ftrace(const std::vector<FtraceEvent>& events) const {
  int cpus = static_cast<int>(topo_.pcpu_names.size()) + topo_.vcpus;
  std::string o = "# tracer: nop\n#\n";
  o += "# vtick " + topo_.scenario + " seed " + std::to_string(topo_.seed) +
       ": the host and guest " + topo_.guest + " in one file. CPU# is the\n"
       "# hardware thread for host tasks (PID 200000 and up: the VMM and its vCPU threads; 300000 and up:\n"
       "# vtick's marks per hardware thread) and the vCPU for guest tasks (PID below 100000; 100000 and\n"
       "# up: vtick's marks per vCPU). docs/cli.md, \"Traces\".\n#\n";
  char buf[256];
  std::snprintf(buf, sizeof buf, "# entries-in-buffer/entries-written: %zu/%zu   #P:%d\n#\n", events.size(), events.size(), cpus);
  o += buf;
  const char* pad = "  ";
  char hdr[1024];
  std::snprintf(hdr, sizeof hdr,
                "#                            %s  _-----=> irqs-off/BH-disabled\n"
                "#                            %s / _----=> need-resched\n"
                "#                            %s| / _---=> hardirq/softirq\n"
                "#                            %s|| / _--=> preempt-depth\n"
                "#                            %s||| / _-=> migrate-disable\n"
                "#                            %s|||| /     delay\n",
                pad, pad, pad, pad, pad, pad);
  o += hdr;
  o += "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
       "#              | |         |   |||||     |         |\n";
  o.reserve(o.size() + events.size() * 110);
  for (const FtraceEvent& e : events) {
    unsigned long long us = static_cast<unsigned long long>((e.ts + 500) / 1000);
    std::snprintf(buf, sizeof buf, "%16s-%-7d [%03d] %s %5llu.%06llu: ", e.comm.c_str(), e.pid, e.cpu, tp_lat_flags(e).c_str(),
                  us / 1000000, us % 1000000);
    o += buf;
    o += tp_text(e, syms_);
    o += '\n';
  }
  return o;
}

}  // namespace vtick
