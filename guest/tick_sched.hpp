// kernel/time/tick-sched.c: the per-CPU tick in high-resolution NO_HZ mode.
#pragma once
#include "core/stats.hpp"
#include <cstdint>

#include "core/time.hpp"
#include "guest/hrtimer.hpp"

namespace vtick {

class GuestCpu;

// struct tick_sched's counters (idle_calls, idle_sleeps) and what the model adds.
#define VTICK_TICK_SCHED_STATS(C)                                                                                    \
  C(std::uint64_t, idle_calls, "idle_calls", "count", Counter, "ts->idle_calls: tick_nohz_idle_stop_tick() calls that got an expiry") \
  C(std::uint64_t, idle_sleeps, "idle_sleeps", "count", Counter, "ts->idle_sleeps: ... of which found a time to stop until") \
  C(std::uint64_t, ticks, "ticks", "count", Counter, "tick handler runs (sched_timer expiries)")                    \
  C(std::uint64_t, ticks_idle, "ticks_idle", "count", Counter, "ticks while in the idle loop (they set got_idle_tick)") \
  C(std::uint64_t, ticks_busy, "ticks_busy", "count", Counter, "ticks while a task or the kernel ran")             \
  C(std::uint64_t, stops, "stops", "count", Counter, "transitions to tick_stopped")                                 \
  C(std::uint64_t, restarts, "restarts", "count", Counter, "tick_nohz_restart_sched_tick() calls")                 \
  C(std::uint64_t, retains, "retains", "count", Counter, "tick_nohz_idle_retain_tick() calls")                     \
  C(std::uint64_t, do_timer_handovers, "do_timer_handovers", "count", Counter, "tick_do_timer_cpu given up on a stop") \
  C(std::uint64_t, do_timer_takeovers, "do_timer_takeovers", "count", Counter, "tick_do_timer_cpu taken in the tick handler") \
  C(std::uint64_t, ticks_user, "ticks_user", "count", Counter, "ticks taken while a task ran in user space")       \
  C(std::uint64_t, ticks_polling, "ticks_polling", "count", Counter, "ticks taken while the CPU polled in idle")   \
  C(std::uint64_t, kept_for_reason, "kept_for_reason", "count", Counter, "RCU / irq_work / softirq kept the tick") \
  C(std::uint64_t, user_entry_stops, "user_entry_stops", "count", Counter, "2026 series P1(c): stops on return to user space") \
  C(std::uint64_t, dep_kicks, "dep_kicks", "count", Counter, "TICK_DEP_BIT_SCHED set on a stopped nohz_full CPU (a kick)")
struct TickSchedStats {
  VTICK_STATS(VTICK_TICK_SCHED_STATS)
};

class TickSched {
 public:
  explicit TickSched(GuestCpu& cpu);

  void tick_setup_sched_timer(sim_ns now);

  // Idle loop interface (kernel/sched/idle.c calls these).
  void tick_nohz_idle_enter();
  void tick_nohz_idle_stop_tick();
  void tick_nohz_idle_retain_tick();
  void tick_nohz_idle_restart_tick();
  void tick_nohz_idle_exit();
  bool tick_nohz_idle_got_tick();
  bool tick_nohz_tick_stopped() const { return tick_stopped_; }

  // Hard-irq hooks (kernel/softirq.c irq_enter_rcu / irq_exit_rcu).
  void tick_nohz_irq_enter();
  void tick_nohz_irq_exit();

  // NO_HZ_FULL
  void tick_nohz_full_update_tick();
  void tick_nohz_user_enter();
  void tick_nohz_task_switch();        // finish_task_switch(): the new task's dependencies
  // tick_nohz_dep_set_cpu(cpu, TICK_DEP_BIT_SCHED) from `from`: sched_update_tick_dependency()
  void tick_nohz_dep_set_cpu_sched(GuestCpu& from);
  bool nohz_full_cpu() const;

  bool inidle() const { return inidle_; }
  void tick_sched_timer_dying();   // CPU going offline (tick_cpu_dying())
  void tick_handover_do_timer();   // ... hands the jiffies duty over
  sim_ns sched_timer_expires() const { return sched_timer_.queued ? sched_timer_.expires : KTIME_MAX; }
  const TickSchedStats& stats() const { return stats_; }

 private:
  HrtimerRestart tick_nohz_handler(sim_ns now);
  void tick_sched_do_timer(sim_ns now);
  bool can_stop_full_tick() const;
  void tick_nohz_full_stop_tick();
  void tick_nohz_full_update_tick_now(sim_ns now);  // __tick_nohz_full_update_tick() (reserved in C++)
  bool can_stop_idle_tick();
  sim_ns tick_nohz_next_event();
  void tick_nohz_stop_tick();
  void tick_nohz_retain_tick() { timer_expires_base_ = 0; }
  void tick_nohz_restart(sim_ns now);
  void tick_nohz_restart_sched_tick(sim_ns now);
  void tick_nohz_idle_update_tick(sim_ns now);
  void tick_nohz_account_idle_time(sim_ns now);

  GuestCpu& cpu_;
  Hrtimer sched_timer_;
  bool tick_stopped_ = false;
  bool inidle_ = false;
  bool got_idle_tick_ = false;
  bool do_timer_last_ = false;
  sim_ns last_tick_ = 0;            // expiry the periodic tick had when it was first stopped
  sim_ns next_tick_ = 0;            // what the stopped tick is programmed for
  sim_ns timer_expires_ = 0;
  sim_ns timer_expires_base_ = 0;
  std::uint64_t last_jiffies_ = 0;
  std::uint64_t idle_jiffies_ = 0;  // jiffies when the tick stopped (bulk idle ticks later)
  std::uint64_t last_tick_jiffies_ = 0;
  int stalled_jiffies_ = 0;
  TickSchedStats stats_;
};

}  // namespace vtick
