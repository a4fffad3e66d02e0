// Scheduler parameters and counters (kernel/sched/core.c + fair.c, the parts the story needs).
#pragma once
#include <cstdint>

#include "core/time.hpp"

namespace vtick {

struct SchedParams {
  bool wake_affine = true;             // select_task_rq_fair(): wake_affine() + select_idle_sibling()
  bool load_balance = true;            // tick-driven balancing (trigger_load_balance) + newidle + nohz idle balance
  sim_ns balance_interval = 0;         // sd->min_interval; 0: sd_weight ms (the kernel's default)
  int busy_factor = 16;                // sd->busy_factor: a busy CPU balances this much less often
  sim_ns migration_cost = 500000;      // sysctl_sched_migration_cost: task_hot() / newidle threshold
  sim_ns cache_refill_ns = 20000;      // work a migrated task pays to refill its cache [EST]
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
