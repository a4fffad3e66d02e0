// Trace records -> text: Chrome/Perfetto trace-event JSON and ftrace text
// (/sys/kernel/tracing/trace lines, parsed by Perfetto's systrace tokenizer).
#include <algorithm>
#include <cstdio>
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

// Microseconds with three decimals, from integer nanoseconds: exact and reproducible.
void append_us(std::string& o, sim_ns ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
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
    if (r.ph == 'F') continue;
    o += ",\n{\"ph\":\"";
    o += r.ph;
    o += "\",\"pid\":" + std::to_string(r.pid);
    if (r.ph != 'C') o += ",\"tid\":" + std::to_string(r.tid);
    o += ",\"ts\":";
    append_us(o, r.ts);
    if (r.ph == 'X') {
      o += ",\"dur\":";
      append_us(o, r.dur);
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

// One ftrace line per record; slices and instants of the host, vCPU and tick tracks
// become atrace marks (tracing_mark_write B/E), counters C marks. Lines are in time
// order; at one instant a slice's end comes before anything that begins there.
std::string TraceWriter::ftrace() const {
  std::map<std::pair<int, int>, const Track*> by_id;
  for (const auto& [id, tr] : tracks_) by_id[id] = &tr;
  struct Line {
    sim_ns ts;
    int rank;  // 0: a slice's end, 1: the rest
    std::uint64_t seq;
    int sub;
    std::string text;
  };
  std::vector<Line> lines;
  lines.reserve(out_.size() * 2);
  auto prefix = [](const std::string& task, int pid, int cpu, const char* flags, sim_ns ts) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%16s-%-7d [%03d] %-4s %6lld.%09lld: ", task.c_str(), pid, cpu, flags,
                  static_cast<long long>(ts / NSEC_PER_SEC), static_cast<long long>(ts % NSEC_PER_SEC));
    return std::string(buf);
  };
  auto label = [](const TraceRecord& r) {
    std::string s = r.name;
    for (int i = 0; i < r.nargs; ++i) {
      const TraceArg& a = r.args[static_cast<std::size_t>(i)];
      s += std::string(" ") + a.key + "=" + (a.s ? std::string(a.s) : std::to_string(a.v));
    }
    return s;
  };
  for (const TraceRecord& r : out_) {
    if (r.ph == 'F') {
      lines.push_back({r.ts, 1, r.seq, 0, prefix(r.task, r.tid, r.cpu, r.cat, r.ts) + r.name});
      continue;
    }
    if (r.ph == 'C') {
      lines.push_back({r.ts, 1, r.seq, 0,
                       prefix("<...>", r.pid, 0, "....", r.ts) + "tracing_mark_write: C|" + std::to_string(r.pid) + "|" +
                           r.name + " " + r.args[0].key + "|" + std::to_string(r.args[0].v)});
      continue;
    }
    auto it = by_id.find({r.pid, r.tid});
    if (it == by_id.end() || !it->second->marks) continue;
    const Track& tr = *it->second;
    std::string b = "tracing_mark_write: B|" + std::to_string(r.pid) + "|" + (r.ph == 'i' ? label(r) : r.name);
    std::string e = "tracing_mark_write: E|" + std::to_string(r.pid);
    lines.push_back({r.ts, 1, r.seq, 0, prefix(tr.comm, tr.tid, r.cpu, "....", r.ts) + b});
    if (r.ph == 'X') lines.push_back({r.ts + r.dur, 0, r.seq, 0, prefix(tr.comm, tr.tid, r.cpu, "....", r.ts + r.dur) + e});
    else lines.push_back({r.ts, 1, r.seq, 1, prefix(tr.comm, tr.tid, r.cpu, "....", r.ts) + e});
  }
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
    return std::tie(a.ts, a.rank, a.seq, a.sub) < std::tie(b.ts, b.rank, b.seq, b.sub);
  });
  std::string o = "# tracer: nop\n#\n# vtick " + topo_.scenario + " seed " + std::to_string(topo_.seed) +
                  ": CPU numbers are vCPUs for guest events and hardware threads for pcpu* marks\n#\n"
                  "#           TASK-PID     CPU#  ||||   TIMESTAMP  FUNCTION\n"
                  "#              | |         |   ||||      |         |\n";
  for (const Line& l : lines) {
    o += l.text;
    o += '\n';
  }
  return o;
}

}  // namespace vtick
