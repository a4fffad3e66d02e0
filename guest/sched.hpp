// Scheduler parameters and counters (kernel/sched/core.c + fair.c, the parts the story needs).
#pragma once
#include "core/stats.hpp"
#include <cstdint>

#include "core/param.hpp"
#include "core/time.hpp"

namespace vtick {

#define VTICK_SCHED_PARAMS(P)                                                                                        \
  P(bool, wake_affine, ".wake_affine", Bool, true, kNoMin, kNoMax, "", "kernel/sched/fair.c select_task_rq_fair()",   \
    "wake-affine / select_idle_sibling placement")                                                                   \
  P(bool, load_balance, ".load_balance", Bool, true, kNoMin, kNoMax, "", "fair.c trigger_load_balance(), newidle, nohz", \
    "tick, newidle and nohz idle load balancing")                                                                    \
  P(sim_ns, balance_interval, ".balance_interval", Duration, 0, 0, 1e9, "ns", "kernel/sched/topology.c sd_init(): min_interval = sd_weight ms", \
    "sd min balance interval (0: sd_weight ms, the kernel's default)")                                              \
  P(int, busy_factor, ".busy_factor", Int, 16, 1, 64, "factor", "topology.c sd_init(): busy_factor = 16",           \
    "a busy CPU balances this much less often")                                                                      \
  P(sim_ns, migration_cost, ".migration_cost", Duration, 500000, 0, 10e6, "ns", "fair.c sysctl_sched_migration_cost (0.5 ms)", \
    "sysctl_sched_migration_cost: task_hot() / newidle threshold")                                                   \
  P(sim_ns, cache_refill_ns, ".cache_refill", Duration, 20000, 0, 1e6, "ns", "[EST] refill of a migrated task's working set (L2 of a few hundred KB at tens of GB/s)", \
    "work a migrated task pays to refill its cache")
struct SchedParams {
  VTICK_PARAMS(SchedParams, VTICK_SCHED_PARAMS);
};

// The guest scheduler's counters (schedstat names where the kernel has one), VM-wide.
#define VTICK_SCHED_STATS(C)                                                                                         \
  C(std::uint64_t, switches, "switches", "count", Counter, "context switches (__schedule picking another task)")    \
  C(std::uint64_t, wakeups_local, "wakeups_local", "count", Counter, "wake-ups queued on the waker's CPU (ttwu_local)") \
  C(std::uint64_t, wakeups_remote, "wakeups_remote", "count", Counter, "wake-ups queued on another CPU")            \
  C(std::uint64_t, resched_ipis, "resched_ipis", "count", Counter, "smp_send_reschedule(): reschedule IPIs sent")   \
  C(std::uint64_t, call_function_ipis, "call_function_ipis", "count", Counter,                                     \
    "send_call_function_single_ipi() from a wakelist wake-up: CALL_FUNCTION_SINGLE IPIs sent")                    \
  C(std::uint64_t, ttwu_queued, "ttwu_queued", "count", Counter, "wake-ups put on a remote idle CPU's wakelist (TTWU_QUEUE)") \
  C(std::uint64_t, wake_idle_without_ipi, "wake_idle_without_ipi", "count", Counter,                               \
    "wake-ups of a polling idle CPU: the flag only, no IPI (sched_wake_idle_without_ipi)")                         \
  C(std::uint64_t, preemptions, "preemptions", "count", Counter, "a running task put back (tick slice or wake-up)") \
  C(std::uint64_t, wakeup_preemptions, "wakeup_preemptions", "count", Counter, "preemptions by a woken task (check_preempt_wakeup)") \
  C(std::uint64_t, wake_to_prev, "wake_to_prev", "count", Counter, "placement: the CPU the task last ran on")       \
  C(std::uint64_t, wake_to_waker, "wake_to_waker", "count", Counter, "placement: the waker's CPU (wake_affine)")    \
  C(std::uint64_t, wake_to_idle, "wake_to_idle", "count", Counter, "placement: another idle CPU (select_idle_sibling scan)") \
  C(std::uint64_t, yields, "yields", "count", Counter, "sched_yield() calls (yld_count)")                           \
  C(std::uint64_t, yield_switches, "yield_switches", "count", Counter, "sched_yield() calls that switched to another task") \
  C(std::uint64_t, migrations, "migrations", "count", Counter, "a task ran on another CPU than last time (nr_migrations)") \
  C(std::uint64_t, lb_calls, "lb_calls", "count", Counter, "load_balance() runs")                                   \
  C(std::uint64_t, lb_pulled, "lb_pulled", "count", Counter, "tasks moved by load_balance() (lb_gained)")          \
  C(std::uint64_t, newidle_balances, "newidle_balances", "count", Counter, "newidle_balance() runs that balanced")  \
  C(std::uint64_t, nohz_kicks, "nohz_kicks", "count", Counter, "kick_ilb(): an idle CPU balances for the others")  \
  C(std::uint64_t, mutex_contended, "mutex_contended", "count", Counter, "pthread mutex locks that found it held (futex wait)") \
  C(std::uint64_t, io_requests, "io_requests", "count", Counter, "block requests submitted (virtio-blk)")           \
  C(std::uint64_t, net_requests, "net_requests", "count", Counter, "network requests sent (virtio-net)")
struct SchedStats {
  VTICK_STATS(VTICK_SCHED_STATS)
};

}  // namespace vtick
