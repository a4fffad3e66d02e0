// kernel/sched/cputime.c + the idle accounting of kernel/time/tick-sched.c, in both the
// old dual scheme and the 2026 refactor ("tick/sched: Refactor idle cputime accounting").
#pragma once
#include <array>
#include <cstdint>

#include "core/time.hpp"

namespace vtick {

// /proc/stat columns (CPUTIME_*), in ns.
enum class Cputime { User, Nice, System, Softirq, Irq, Idle, Iowait, Steal, Count };
const char* cputime_name(Cputime c);
using Kcpustat = std::array<sim_ns, static_cast<size_t>(Cputime::Count)>;

// Both schemes are kept side by side on every CPU; /proc/stat shows the configured one.
class CpuTimeAccount {
 public:
  // account_process_tick(): one tick of TICK_NSEC, minus the steal since the last read.
  // `dyntick` says the tick is stopped (the new scheme accounts that idle by delta).
  void account_process_tick(Cputime what, sim_ns tick_nsec, sim_ns steal_clock, bool dyntick);
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
