// The intervals of one trace.dat, paired from the kernel's tracepoints (include/trace/
// events/sched.h, power.h, ipi.h, arch/x86/include/asm/trace/irq_vectors.h, msr.h).
#include "study/trace_intervals.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "sim/scenario.hpp"  // InputError
#include "study/trace_read.h"

namespace vtick {

namespace {

constexpr long long kPwrEventExit = 0xffffffffLL;  // trace_cpu_idle(PWR_EVENT_EXIT, cpu)

// Per-CPU and per-task state of the pairing, fed one record at a time in time order.
struct Pairing {
  TraceSummary& s;
  struct Cpu {
    int curr = -1;                  // pid running (-1: not seen yet)
    std::uint64_t idle_since = 0;   // the idle task's switch-in (when curr == 0)
    std::uint64_t to_idle = 0;      // switch to idle not yet followed by cpu_idle entry (0: none)
    std::uint64_t idle_entry = 0;   // cpu_idle entry not yet exited (0: none)
    long long idle_state = -1;      // its state (0: poll_idle; 1 and up: a halt)
    bool halted = false;            // this idle episode has had a cpu_idle entry
    std::uint64_t ipi_sent[2] = {0, 0};  // earliest unanswered send: CAL, RES
    bool cal_to_halted = false;     // that CAL send found this CPU halted (cpu_idle state >= 1)
    std::uint64_t cal_halt = 0;     // else: its halt after the send, before the entry (0: none)
    int last_kind = -1;             // the CPU's previous record, for the WRMSR intervals
    std::uint64_t last_ts = 0;
  };
  std::map<int, Cpu> cpu;
  struct Waking {
    std::uint64_t ts;
    int cpu;
  };
  std::map<int, Waking> waking;  // pid -> its first sched_waking not yet followed by a switch-in
  std::map<int, int> running_on;  // pid -> CPU while it runs
  std::map<int, std::uint64_t> woken_running;  // pid -> its sched_waking while it still ran
  std::map<int, std::uint64_t> switched_out;   // pid -> its last sched_switch out

  void sample(const char* name, std::uint64_t from, std::uint64_t to) {
    s.intervals[name].push_back(static_cast<double>(to - from) * 1e-3);
  }
  void count(const std::string& name) { ++s.counts[name]; }

  void ipi_send(int dest, bool cal, std::uint64_t ts) {
    Cpu& d = cpu[dest];
    std::uint64_t& p = d.ipi_sent[cal ? 0 : 1];
    if (p) return;  // a second send before the entry is the same interrupt (coalesced)
    p = ts;
    if (cal) {
      d.cal_to_halted = d.idle_entry && d.idle_state >= 1;
      d.cal_halt = 0;
    }
  }
  // A CAL's way in by the target's state: halted at the send (the sender's exit, the
  // delivery, the halted vCPU's way back); halted after it (from that HLT: its exit and
  // the re-entry with the interrupt pending or arriving); never halted (delivered to a
  // vCPU in guest mode: posted, or a kick's IRQ exit).
  void ipi_entry(int c, bool cal, std::uint64_t ts) {
    count(cal ? "ipi.CAL" : "ipi.RES");
    Cpu& t = cpu[c];
    std::uint64_t& p = t.ipi_sent[cal ? 0 : 1];
    if (p) sample(cal ? "ipi_to_entry.CAL" : "ipi_to_entry.RES", p, ts);
    if (p && cal) {
      if (t.cal_to_halted) sample("ipi_to_entry.CAL.to_halted", p, ts);
      else if (t.cal_halt) sample("halt_to_entry.CAL", t.cal_halt, ts);
      else sample("ipi_to_entry.CAL.to_running", p, ts);
    }
    p = 0;
  }

  void on(const vtick_trace_rec& r) {
    // the first record delivered opens the window: the reader starts at the latest of
    // the CPUs' first records, and that CPU's first record is there
    if (++s.records == 1) s.t0 = r.ts;
    s.t1 = r.ts;
    Cpu& c = cpu[r.cpu];
    switch (r.kind) {
      case VTK_SCHED_SWITCH: {
        count("context_switches");
        s.cpus_seen.insert(r.cpu);
        int prev = static_cast<int>(r.a), next = static_cast<int>(r.b);
        if (c.curr < 0 && prev == 0) c.idle_since = s.t0;  // idle since the window began
        s.idle_ns.emplace(r.cpu, 0);  // a CPU with a sched_switch has a share, idle or not
        if (prev == 0) s.idle_ns[r.cpu] += r.ts - c.idle_since;
        if (prev > 0) {
          running_on.erase(prev);
          switched_out[prev] = r.ts;
          // woken while it still ran, now switched out to idle: how early the wake-up came
          auto w = woken_running.find(prev);
          if (w != woken_running.end()) {
            if (next == 0) sample("waking_to_switch_out.on_cpu", w->second, r.ts);
            woken_running.erase(w);
          }
        }
        c.curr = next;
        c.to_idle = 0;
        c.halted = false;
        if (next == 0) {
          c.idle_since = r.ts;
          c.to_idle = r.ts;
        } else {
          running_on[next] = r.cpu;
          auto w = waking.find(next);
          if (w != waking.end()) {
            sample(w->second.cpu == r.cpu ? "wake_to_run.same_cpu" : "wake_to_run.other_cpu", w->second.ts, r.ts);
            waking.erase(w);
          }
        }
        break;
      }
      case VTK_SCHED_WAKING: {
        count("wakeups");
        int pid = static_cast<int>(r.a);
        if (pid <= 0) break;
        // the wakee has not switched out yet: it set its sleeping state and is still in the
        // kernel on its CPU (ttwu_runnable(), or the wakelist with WF_ON_CPU and its IPI).
        // It is left out of wake_to_run: schedule() may pick it again without a sched_switch.
        if (running_on.count(pid)) {
          count("wakeups.on_cpu");
          woken_running.emplace(pid, r.ts);
        } else {
          auto o = switched_out.find(pid);
          if (o != switched_out.end() && !waking.count(pid)) sample("switch_out_to_waking", o->second, r.ts);
          if (!waking.count(pid)) waking[pid] = {r.ts, r.cpu};
        }
        break;
      }
      case VTK_SCHED_MIGRATE_TASK:
        count("migrations");
        break;
      case VTK_CPU_IDLE:
        if (r.a == kPwrEventExit) {
          if (c.idle_entry) sample("cpu_idle_residency", c.idle_entry, r.ts);
          c.idle_entry = 0;
        } else {
          count("cpu_idle_entries");
          c.halted = true;
          if (r.a >= 1) count("halts");  // state 0 is poll_idle (a cpuidle driver's POLL state)
          if (c.to_idle) sample("pre_hlt_window", c.to_idle, r.ts);
          c.to_idle = 0;
          c.idle_entry = r.ts;
          c.idle_state = r.a;
          if (r.a >= 1 && c.ipi_sent[0] && !c.cal_to_halted && !c.cal_halt) c.cal_halt = r.ts;
        }
        break;
      case VTK_IPI_SEND_CPU:
        count("ipi_sends");
        ipi_send(static_cast<int>(r.a), r.b != 0, r.ts);
        break;
      case VTK_IPI_SEND_CPUMASK:
        count("ipi_sends");
        for (int d = 0; d < 64; ++d)
          if ((static_cast<unsigned long long>(r.a) >> d) & 1) ipi_send(d, r.b != 0, r.ts);
        break;
      case VTK_CALL_FUNCTION_SINGLE_ENTRY:
      case VTK_CALL_FUNCTION_ENTRY:
        ipi_entry(r.cpu, true, r.ts);
        break;
      case VTK_RESCHEDULE_ENTRY:
        ipi_entry(r.cpu, false, r.ts);
        break;
      case VTK_LOCAL_TIMER_ENTRY:
        count("local_timer");
        break;
      case VTK_HRTIMER_START:
        count("hrtimer_start");
        break;
      case VTK_TICK_STOP:
        // timer:tick_stop success=1 when the tick becomes stopped (tick_nohz_stop_tick());
        // before the idle episode's first cpu_idle entry is the no-driver path's stop as
        // it was before f4c31b07b136 (after it, the first HLT keeps the tick)
        if (r.a == 1) {
          count("tick_stops");
          if (c.curr == 0 && !c.halted) count("tick_stops.before_first_halt");
        }
        break;
      case VTK_WRITE_MSR: {
        char name[40];
        std::snprintf(name, sizeof name, "msr_write.0x%llx", static_cast<unsigned long long>(r.a));
        count(name);
        // write_msr is traced after the WRMSR returns: from the tracepoint just before it on
        // the CPU, the write and its exit. The TSC deadline follows hrtimer_start when the
        // timer is the first (hrtimer_reprogram()), or tick_stop when the stopped tick is
        // cancelled (the next timer programmed); the ICR follows ipi_send_cpu
        // (send_call_function_single_ipi(), smp_send_reschedule()).
        if (r.a == 0x6e0 && (c.last_kind == VTK_HRTIMER_START || c.last_kind == VTK_TICK_STOP))
          sample("wrmsr.tsc_deadline", c.last_ts, r.ts);
        if (r.a == 0x830 && c.last_kind == VTK_IPI_SEND_CPU) sample("wrmsr.icr", c.last_ts, r.ts);
        break;
      }
      default:
        break;
    }
    if (r.kind != VTK_OTHER) {  // print records (vtick's timeline marks) sit between them
      c.last_kind = r.kind;
      c.last_ts = r.ts;
    }
  }

  void finish() {
    for (auto& [id, c] : cpu)
      if (c.curr == 0 && s.cpus_seen.count(id)) s.idle_ns[id] += s.t1 - c.idle_since;
  }
};

void on_record(const vtick_trace_rec* r, void* data) { static_cast<Pairing*>(data)->on(*r); }

bool has_trace_dat_magic(std::istream& in) {
  char m[10] = {};
  in.read(m, sizeof m);
  return in.gcount() == 10 && std::string(m, 10) == std::string("\x17\x08\x44tracing", 10);
}

// A version-6 file (vtick's, trace-cmd's before 3.0) walked to its flyrecord section
// (Documentation/trace-cmd/trace-cmd.dat.v6.5.txt): "" when each CPU's data lies inside
// the file, else what is wrong. libtracecmd maps that data without checking it against
// the file's size: a truncated file crashes it. Version 7 files are read (and checked) by
// libtracecmd itself.
std::string v6_layout_error(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::uint64_t size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  auto bytes = [&](std::uint64_t n) -> bool {
    if (n > size) return false;
    in.seekg(static_cast<std::streamoff>(n), std::ios::cur);
    return static_cast<bool>(in) && static_cast<std::uint64_t>(in.tellg()) <= size;
  };
  auto le = [&](int n, std::uint64_t& v) -> bool {
    unsigned char b[8] = {};
    in.read(reinterpret_cast<char*>(b), n);
    if (in.gcount() != n) return false;
    v = 0;
    for (int i = n - 1; i >= 0; --i) v = v << 8 | b[i];
    return true;
  };
  auto cstr = [&](std::string& out) -> bool {
    out.clear();
    for (char c; in.get(c);) {
      if (c == '\0') return true;
      if (out.size() > 4096) return false;
      out += c;
    }
    return false;
  };
  std::string str;
  std::uint64_t v = 0, n = 0;
  if (!bytes(10) || !cstr(str)) return "truncated in its initial format";
  if (str != "6") return "";  // version 7: libtracecmd checks it
  if (!bytes(2 + 4)) return "truncated in its initial format";
  for (const char* h : {"header_page", "header_event"})
    if (!cstr(str) || str != h || !le(8, v) || !bytes(v)) return std::string("truncated or damaged in its ") + h;
  if (!le(4, n)) return "truncated in its ftrace formats";
  for (std::uint64_t i = 0; i < n; ++i)
    if (!le(8, v) || !bytes(v)) return "truncated in its ftrace formats";
  if (!le(4, n)) return "truncated in its event formats";
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t m = 0;
    if (!cstr(str) || !le(4, m)) return "truncated in its event formats";
    for (std::uint64_t j = 0; j < m; ++j)
      if (!le(8, v) || !bytes(v)) return "truncated in its event formats";
  }
  if (!le(4, v) || !bytes(v)) return "truncated in its kallsyms";
  if (!le(4, v) || !bytes(v)) return "truncated in its printk formats";
  if (!le(8, v) || !bytes(v)) return "truncated in its cmdlines";
  std::uint64_t cpus = 0;
  if (!le(4, cpus) || cpus > 4096) return "truncated or damaged at its CPU count";
  char label[10];
  in.read(label, 10);
  if (in.gcount() != 10) return "truncated before its data";
  if (std::string(label, 10) == std::string("options  \0", 10)) {
    for (;;) {
      std::uint64_t id = 0;
      if (!le(2, id)) return "truncated in its options";
      if (id == 0) break;
      if (!le(4, v) || !bytes(v)) return "truncated in its options";
    }
    in.read(label, 10);
    if (in.gcount() != 10) return "truncated before its data";
  }
  if (std::string(label, 10) != std::string("flyrecord\0", 10)) return "";  // latency: text, read by libtracecmd
  for (std::uint64_t c = 0; c < cpus; ++c) {
    std::uint64_t off = 0, len = 0;
    if (!le(8, off) || !le(8, len)) return "truncated in its CPU data offsets";
    if (off > size || len > size - off)
      return "truncated: CPU " + std::to_string(c) + "'s data ends at byte " + std::to_string(off + len) + " of a " +
             std::to_string(size) + "-byte file";
  }
  return "";
}

}  // namespace

const std::vector<std::string>& trace_interval_names() {
  static const std::vector<std::string> n = {"pre_hlt_window",   "wake_to_run.same_cpu", "wake_to_run.other_cpu",
                                             "waking_to_switch_out.on_cpu", "switch_out_to_waking",
                                             "ipi_to_entry.CAL", "ipi_to_entry.CAL.to_halted", "halt_to_entry.CAL",
                                             "ipi_to_entry.CAL.to_running", "ipi_to_entry.RES",     "cpu_idle_residency",
                                             "wrmsr.tsc_deadline", "wrmsr.icr"};
  return n;
}

const std::vector<std::string>& trace_count_names() {
  static const std::vector<std::string> n = {"halts",      "cpu_idle_entries", "ipi.CAL",   "ipi.RES",      "ipi_sends",
                                             "wakeups",    "wakeups.on_cpu", "context_switches", "migrations", "local_timer", "hrtimer_start",
                                             "tick_stops", "tick_stops.before_first_halt"};
  return n;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  double pos = q * static_cast<double>(v.size() - 1);
  std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

TraceSummary summarize_trace(const std::string& path) {
  std::ifstream probe(path, std::ios::binary);
  if (!probe) throw InputError(path + ": cannot open it");
  if (!has_trace_dat_magic(probe)) throw InputError(path + ": not a trace.dat (no \"\\x17\\x08Dtracing\" magic at its start)");
  std::string bad = v6_layout_error(path);
  if (!bad.empty()) throw InputError(path + ": " + bad);
  TraceSummary s;
  s.path = path;
  Pairing p{s, {}, {}, {}, {}, {}};
  char buffer[256];
  unsigned long long start = 0;
  int rc = vtick_trace_read(path.c_str(), on_record, &p, buffer, sizeof buffer, &s.cpus, &start);
  if (s.records && s.t0 != start)
    throw InputError(path + ": records out of time order (the first at " + std::to_string(s.t0) + " ns, the window from " +
                     std::to_string(start) + " ns)");
  if (rc == VTR_NOT_TRACE_DAT)
    throw InputError(path + ": truncated or damaged trace.dat (libtracecmd cannot read its headers or CPU data)");
  if (rc == VTR_NO_DATA) throw InputError(path + ": no records (in the top-level buffer or any instance)");
  if (rc == VTR_READ_ERROR) throw InputError(path + ": truncated or damaged trace.dat (reading its records failed)");
  s.buffer = buffer;
  p.finish();
  if (!s.counts.count("context_switches"))
    throw InputError(path + ": no sched:sched_switch records (record sched events; for vtick, give the guest's file, e.g. trace-vm0.dat)");
  if (s.t1 <= s.t0) throw InputError(path + ": empty window (all " + std::to_string(s.records) + " records at one time)");
  return s;
}

}  // namespace vtick
