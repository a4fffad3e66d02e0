// Guest workloads built from task programs: what the guest runs, as kernel-visible
// behaviour (CPU bursts, sleeps, futex waits and wakes, mutexes, yields, block I/O).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/param.hpp"
#include "core/time.hpp"

namespace vtick {

class GuestKernel;

// One documented parameter of a workload kind ([workload] key).
struct WorkloadParam {
  std::string key;
  char type;      // 'i' integer, 'f' number, 'd' duration (ns)
  double dflt;    // for "one per vCPU" keys 0 means: the vCPU count
  double lo, hi;
  std::string help;
};

enum class WorkloadKindId { Idle, Periodic, Pingpong, NohzFullTest, SysbenchThreads, Oltp, Hackbench, Script };
VTICK_ENUM_NAMES(WorkloadKindId, "idle", "periodic", "pingpong", "nohz_full_test", "sysbench_threads", "oltp", "hackbench",
                 "script");

struct WorkloadKind {
  WorkloadKindId id;
  std::string description;
  std::string ops_name;  // what one op is: "transactions", "events", ...
  std::vector<WorkloadParam> params;
};

const std::vector<WorkloadKind>& workload_kinds_table();  // in WorkloadKindId order
const WorkloadKind& workload_kind(WorkloadKindId id);

// workload.kind = "script": tasks written by the user, rt-app style.
struct ScriptTask {
  std::string name;
  std::uint64_t cpus = ~0ULL;          // affinity
  int count = 1;                       // copies of this task
  std::vector<std::string> program;    // "run 100us", "sleep 1ms", "lock m", "loop 0 10", ...
  std::string where;                   // file:line for errors
};

#define VTICK_WORKLOAD_PARAMS(P)                                                                                     \
  P(WorkloadKindId, kind, ".kind", Enum, "pingpong", kNoMin, kNoMax, "", "guest/workloads.cpp", "workload (vtick list workloads)")
struct WorkloadSpec {
  VTICK_PARAMS(WorkloadSpec, VTICK_WORKLOAD_PARAMS);
  std::map<std::string, double> v;     // every param of the kind, resolved
  std::vector<ScriptTask> script;
  double get(const std::string& key) const { return v.at(key); }
  int geti(const std::string& key) const { return static_cast<int>(v.at(key)); }
  sim_ns getd(const std::string& key) const { return static_cast<sim_ns>(v.at(key)); }
};

struct WorkloadInfo {
  std::string metric_name;  // what one op is
};

// Creates the workload's tasks in `k`. Random start phases come from `seed`. Throws
// std::invalid_argument with a message for a script that does not parse.
WorkloadInfo install_workload(GuestKernel& k, const WorkloadSpec& w, std::uint64_t seed);

// Ops completed so far (the headline counter whose rate is the workload metric).
std::uint64_t workload_ops(GuestKernel& k, const WorkloadSpec& w);

// Checks one script program line; returns an error text or "".
std::string check_script_phase(const std::string& line);

// nohz_full_test probes: device interrupts on the nohz_full CPU whose handlers queue
// timer-wheel timers, as in the 2026 series' own test.
struct TimerProbe {
  int cpu;
  sim_ns queued_at;
  sim_ns expiry;      // when it was asked to fire
  sim_ns fired = -1;  // when it ran (-1: not by the end of the run)
};
// The device interrupt token asking the handler to queue `count` timers spaced `delay`.
std::uint64_t timer_probe_token(int count, sim_ns delay);
bool is_timer_probe_token(std::uint64_t t);

}  // namespace vtick
