// vtick's observer of packed phases (no kernel counterpart): some vCPU has two or more
// runnable tasks while another online vCPU is idle. The `perf sched` reading of a real
// guest (scripts/measure_trace.py) measures the same state.
#pragma once
#include <cstdint>
#include <vector>

#include "core/enum_names.hpp"
#include "core/stats.hpp"
#include "core/time.hpp"

namespace vtick {

// What changed a run queue: the cause a packed phase starts or ends with, and the path a
// migration took.
enum class LbCause { Wakeup, Block, Newidle, Periodic, Nohz, Active, Other };
VTICK_ENUM_NAMES(LbCause, "wakeup", "block", "newidle", "periodic", "nohz", "active", "other");
inline const char* lb_cause_name(LbCause c) { return enum_name(c); }

#define VTICK_PACKING_STATS(C)                                                                                         \
  C(sim_ns, packed_ns, "packed_ns", "ns", Counter, "time some vCPU had >= 2 runnable tasks while another was idle")     \
  C(std::uint64_t, episodes, "episodes", "count", Counter, "packed phases that started")                              \
  C(std::uint64_t, len_lt_1ms, "len.lt_1ms", "count", Counter, "packed phases that ended, shorter than 1 ms")           \
  C(std::uint64_t, len_1_10ms, "len.1_10ms", "count", Counter, "... 1 to 10 ms long")                                  \
  C(std::uint64_t, len_10_100ms, "len.10_100ms", "count", Counter, "... 10 to 100 ms long")                            \
  C(std::uint64_t, len_ge_100ms, "len.ge_100ms", "count", Counter, "... 100 ms or longer")                             \
  C(sim_ns, max_len_ns, "max_len_ns", "ns", Gauge, "the longest packed phase that ended (whole run)")                  \
  C(std::uint64_t, start_wakeup, "start.wakeup", "count", Counter, "started by a wake-up placed on a busy vCPU")       \
  C(std::uint64_t, start_block, "start.block", "count", Counter, "started by a vCPU going idle (its task blocked: a lock collision, a sleep) beside a vCPU with >= 2") \
  C(std::uint64_t, start_newidle, "start.newidle", "count", Counter, "started by a newidle pull")                      \
  C(std::uint64_t, start_periodic, "start.periodic", "count", Counter, "started by a pull at a CPU's own tick")         \
  C(std::uint64_t, start_nohz, "start.nohz", "count", Counter, "started by a nohz idle balance pull")                   \
  C(std::uint64_t, start_active, "start.active", "count", Counter, "started by an active balance push")                \
  C(std::uint64_t, start_other, "start.other", "count", Counter, "started otherwise (a new task, hotplug)")              \
  C(std::uint64_t, end_wakeup, "end.wakeup", "count", Counter, "ended by a wake-up on the idle vCPU")                   \
  C(std::uint64_t, end_block, "end.block", "count", Counter, "ended by a task of the packed vCPU blocking")             \
  C(std::uint64_t, end_newidle, "end.newidle", "count", Counter, "ended by a newidle pull")                             \
  C(std::uint64_t, end_periodic, "end.periodic", "count", Counter, "ended by the idle vCPU's balance at its own tick")   \
  C(std::uint64_t, end_nohz, "end.nohz", "count", Counter, "ended by a nohz idle balance (kick_ilb)")                    \
  C(std::uint64_t, end_active, "end.active", "count", Counter, "ended by an active balance push")                       \
  C(std::uint64_t, end_other, "end.other", "count", Counter, "ended otherwise (hotplug)")                             \
  C(sim_ns, colocated_ns, "colocated_ns", "ns", Counter, "time some vCPU had >= 2 of the workload's tasks (running or queued), idle vCPU or not") \
  C(std::uint64_t, colocated_episodes, "colocated_episodes", "count", Counter, "phases with >= 2 of the workload's tasks on one vCPU that started")
struct PackingStats {
  VTICK_STATS(VTICK_PACKING_STATS)
};

class Packing {
 public:
  explicit Packing(int cpus) : packed_ns_(static_cast<size_t>(cpus), 0) {}
  // The run queues as of a change (online CPUs only).
  struct Queues {
    std::vector<int> busy;  // the CPUs with >= 2 runnable tasks, in CPU order
    int idle_cpus = 0;
    int first_idle = -1;
    // some CPU has >= 2 of the workload's tasks (co-location: the workers share a vCPU also
    // when no other is idle, as beside a busy loop)
    bool colocated = false;
  };
  // The run queues changed at `now` because of `why`.
  void update(sim_ns now, LbCause why, const Queues& q);
  void flush(sim_ns now);  // account time up to `now` (results mid-phase)
  const PackingStats& stats() const { return st_; }
  sim_ns packed_ns(int cpu) const { return packed_ns_[static_cast<size_t>(cpu)]; }
  bool on() const { return on_; }

 private:
  PackingStats st_;
  std::vector<sim_ns> packed_ns_;
  std::vector<int> packed_;  // the CPUs packed now (>= 2 runnable while another is idle)
  bool on_ = false;
  bool colocated_ = false;
  sim_ns last_ = 0, since_ = 0;
  int packed_cpu_ = -1;  // the vCPU the phase started on
};

}  // namespace vtick
