// Scheduler parameters and counters (kernel/sched/core.c + fair.c, the parts the story needs).
#pragma once
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

struct SchedStats {
  std::uint64_t switches = 0;
  std::uint64_t wakeups_local = 0;      // wakee queued on the waker's CPU
  std::uint64_t wakeups_remote = 0;     // wakee queued on another CPU
  std::uint64_t wake_to_prev = 0;       // placement: the CPU it last ran on
  std::uint64_t wake_to_waker = 0;      // placement: the waker's CPU (wake-affine)
  std::uint64_t wake_to_idle = 0;       // placement: another idle CPU (select_idle_sibling scan)
  std::uint64_t resched_ipis = 0;       // smp_send_reschedule()
  std::uint64_t wake_idle_without_ipi = 0;  // target was polling: flag only
  std::uint64_t preemptions = 0;        // a running task put back (tick slice or wake-up)
  std::uint64_t wakeup_preemptions = 0;
  std::uint64_t yields = 0;
  std::uint64_t yield_switches = 0;     // sched_yield() that switched to another task
  std::uint64_t migrations = 0;         // a task ran on another CPU than last time
  std::uint64_t lb_calls = 0;           // load_balance() runs
  std::uint64_t lb_pulled = 0;          // tasks moved by load_balance()
  std::uint64_t newidle_balances = 0;
  std::uint64_t nohz_kicks = 0;         // kick_ilb(): an idle CPU balances for the others
  std::uint64_t mutex_contended = 0;
  std::uint64_t io_requests = 0;
  std::uint64_t net_requests = 0;
};

}  // namespace vtick
