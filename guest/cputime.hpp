// kernel/sched/cputime.c + the idle accounting of kernel/time/tick-sched.c, in both the
// old dual scheme and the 2026 refactor ("tick/sched: Refactor idle cputime accounting").
#pragma once
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/stats.hpp"
#include "core/time.hpp"

namespace vtick {

// /proc/stat columns (CPUTIME_*), in ns.
enum class Cputime { User, Nice, System, Softirq, Irq, Idle, Iowait, Steal, Count };
const char* cputime_name(Cputime c);
using Kcpustat = std::array<sim_ns, static_cast<size_t>(Cputime::Count)>;

// The accounting work each scheme does on the idle and interrupt paths: every update is a
// clock read and a seqcount write (guest.costs.cputime_update_ns charges the configured
// scheme's).
#define VTICK_CPUTIME_STATS(C)                                                                                       \
  C(std::uint64_t, old_updates, "cputime.old_updates", "count", Counter,                                           \
    "old scheme: tick_nohz_start_idle()/_stop_idle() at every idle entry and exit and around every interrupt in idle") \
  C(std::uint64_t, new_updates, "cputime.new_updates", "count", Counter,                                           \
    "new scheme: kcpustat_dyntick_start()/_stop(), and kcpustat_irq_enter()/_exit() with irq time accounted, only while the tick is stopped") \
  C(std::uint64_t, irqtime_updates, "cputime.irqtime_updates", "count", Counter,                                   \
    "irqtime_account_irq() at hardirq entry and exit (CONFIG_IRQ_TIME_ACCOUNTING)")
struct CputimeStats {
  VTICK_STATS(VTICK_CPUTIME_STATS)
};

// Both schemes are kept side by side on every CPU; /proc/stat shows the configured one.
class CpuTimeAccount {
 public:
  // guest.cputime and CONFIG_IRQ_TIME_ACCOUNTING: set once at boot.
  // fix_first_tick: the reported fix of cf6444c3e1bb (guest.cputime = new_fixed).
  void configure(bool new_scheme, bool fix_first_tick, bool irqtime) {
    new_scheme_ = new_scheme;
    fix_first_tick_ = fix_first_tick;
    irqtime_ = irqtime;
  }
  const CputimeStats& stats() const { return stats_; }
  // Updates of the configured scheme (and irqtime's) since the last call: the caller
  // charges their cost on the path that made them.
  std::uint64_t take_updates() {
    std::uint64_t n = (new_scheme_ ? stats_.new_updates : stats_.old_updates) + stats_.irqtime_updates;
    std::uint64_t d = n - charged_;
    charged_ = n;
    return d;
  }
  // irqtime_account_irq() at hardirq exit: `delta` of hardirq time into CPUTIME_IRQ,
  // pending until the next tick or vtime delta takes it out of its share
  // (irqtime_tick_accounted() inside account_other_time()). Only with irq time accounted.
  void irqtime_account_irq(sim_ns delta);
  // account_process_tick(): one tick of TICK_NSEC at `now`, minus the steal since the last
  // read. `dyntick` says the tick is stopped (the new scheme accounts that idle by delta).
  void account_process_tick(sim_ns now, Cputime what, sim_ns tick_nsec, sim_ns steal_clock, bool dyntick);
  // vtime_account_user() / vtime_account_system() (VIRT_CPU_ACCOUNTING_GEN): `delta` of
  // exact time, minus the steal since the last read (get_vtime_delta()), in both schemes.
  void vtime_account(Cputime what, sim_ns delta, sim_ns steal_clock);
  // account_idle_ticks(): old scheme, when a stopped tick restarts.
  void account_idle_ticks(std::uint64_t ticks, sim_ns tick_nsec, sim_ns steal_clock);

  // Old scheme, online CPUs: tick_nohz_start_idle() / tick_nohz_stop_idle() deltas.
  void start_idle(sim_ns now);
  void stop_idle(sim_ns now);
  // New scheme: kcpustat_dyntick_start()/_stop() while the tick is stopped, and the
  // interrupts inside such a period (kcpustat_irq_enter/exit).
  void dyntick_start(sim_ns now, sim_ns steal_clock);
  void dyntick_stop(sim_ns now, sim_ns steal_clock);
  void dyntick_irq_enter(sim_ns now);
  void dyntick_irq_exit(sim_ns now);
  bool dyntick_active() const { return dyn_active_; }

  // rq->nr_iowait of this CPU, kept by the scheduler: idle time with a task of this CPU
  // blocked on I/O is iowait (account_idle_time(), tick_nohz_stop_idle()).
  int nr_iowait = 0;

  // /proc/stat for this CPU at `now` under each scheme.
  Kcpustat proc_stat_old(bool online, sim_ns now) const;
  Kcpustat proc_stat_new(sim_ns now, sim_ns steal_clock) const;

 private:
  void account(Kcpustat& k, Cputime c, sim_ns ns) { k[static_cast<size_t>(c)] += ns; }
  Cputime idle_or_iowait() const { return nr_iowait > 0 ? Cputime::Iowait : Cputime::Idle; }
  sim_ns steal_account_process_time(sim_ns steal_clock, sim_ns max, sim_ns& prev);
  // account_other_time(): steal, then pending irq time, at most `max`, out of a share
  sim_ns account_other_time(Kcpustat& k, sim_ns steal_clock, sim_ns max, sim_ns& prev_steal, sim_ns& irq_pending);

  bool irqtime_ = false, new_scheme_ = false, fix_first_tick_ = false;
  // new scheme: a dyntick period ended (kcpustat_dyntick_stop()) and the first tick after
  // it is still to come
  bool dyn_first_tick_ = false;
  // new_fixed: the stretches of idle the dyntick periods accounted since the last tick
  // ([from, to]), whose part inside the first tick's period that tick leaves out
  std::vector<std::pair<sim_ns, sim_ns>> dyn_accounted_;
  sim_ns tick_nsec_ = 0;  // the last tick's TICK_NSEC (0: none yet): older stretches are dropped
  void dyn_accounted(sim_ns from, sim_ns to);
  CputimeStats stats_;
  std::uint64_t charged_ = 0;
  sim_ns old_irq_pending_ = 0, new_irq_pending_ = 0;  // irqtime->tick_delta, one per scheme
  // old: kcpustat (tick based) + idle_sleeptime (ns deltas)
  Kcpustat old_{};
  sim_ns old_prev_steal_ = 0;
  bool idle_active_ = false;
  sim_ns idle_entrytime_ = 0;
  sim_ns idle_sleeptime_ = 0;
  sim_ns iowait_sleeptime_ = 0;
  // new: kcpustat with dyntick-idle accumulated directly, steal subtracted
  Kcpustat new_{};
  sim_ns new_prev_steal_ = 0;
  bool dyn_active_ = false;       // tick stopped in idle: dyntick accounting runs
  bool dyn_in_irq_ = false;
  sim_ns dyn_entrytime_ = 0;
  sim_ns dyn_steal_base_ = 0;     // steal clock at the start of the dyntick period
  sim_ns idle_stealtime_ = 0;     // steal seen in dyntick idle, still to subtract
};

}  // namespace vtick
