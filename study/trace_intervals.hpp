// One trace.dat's scheduling, idle and IPI intervals, named as trace-compare pairs them
// (docs/cli.md, "trace-compare"): the engine below cli/ that issue 34's recording import
// reuses. Everything is read from the kernel's own tracepoints, so a real guest's
// `trace-cmd extract` file and vtick's --trace-dat guest file go through the same code.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace vtick {

// The file's figures over its window: from the latest of the CPUs' first records (a CPU
// whose ring buffer overran lost its oldest ones) to the last record.
struct TraceSummary {
  std::string path;
  std::string buffer;   // the ftrace instance read ("" for the top level)
  int cpus = 0;         // the file's CPU count
  std::uint64_t t0 = 0, t1 = 0;  // window, ns of the file's clock
  std::uint64_t records = 0;
  // Paired intervals in µs, in the order they end: pre_hlt_window, wake_to_run.same_cpu,
  // wake_to_run.other_cpu, ipi_to_entry.CAL (and split by the target's state:
  // ipi_to_entry.CAL.to_halted, halt_to_entry.CAL, ipi_to_entry.CAL.to_running),
  // ipi_to_entry.RES, cpu_idle_residency,
  // wrmsr.tsc_deadline, wrmsr.icr.
  std::map<std::string, std::vector<double>> intervals;
  // Counted events: halts, cpu_idle_entries, ipi.CAL, ipi.RES, local_timer,
  // context_switches, migrations, wakeups, msr_write.0x6e0 (by MSR), ...
  std::map<std::string, std::uint64_t> counts;
  std::map<int, std::uint64_t> idle_ns;  // per CPU (with a sched_switch): time in the idle task
  std::set<int> cpus_seen;               // CPUs with a sched_switch
  double seconds() const { return static_cast<double>(t1 - t0) * 1e-9; }
};

// The names of the paired intervals and the counts, in table order.
const std::vector<std::string>& trace_interval_names();
const std::vector<std::string>& trace_count_names();  // without the per-MSR counts

// Reads `path` (a trace.dat) and pairs its intervals. InputError naming the file and what
// is wrong: not a trace.dat, truncated or damaged, no records, no sched_switch, an empty
// window.
TraceSummary summarize_trace(const std::string& path);

// Quantile `q` (0..1) of `v` by linear interpolation between order statistics (the
// default of numpy and of R's type 7); NaN for no samples.
double quantile(std::vector<double> v, double q);

}  // namespace vtick
