// kernel/sched/cputime.c: account_process_tick(), account_idle_ticks(),
// steal_account_process_time(); tick-sched idle deltas; kcpustat_dyntick_*.
#include "guest/cputime.hpp"

#include <algorithm>

namespace vtick {

const char* cputime_name(Cputime c) {
  static const char* n[] = {"user", "nice", "system", "softirq", "irq", "idle", "iowait", "steal"};
  return n[static_cast<size_t>(c)];
}

sim_ns CpuTimeAccount::steal_account_process_time(sim_ns steal_clock, sim_ns max, sim_ns& prev) {
  sim_ns steal = std::min(steal_clock - prev, max);
  prev += steal;
  return steal;
}

void CpuTimeAccount::irqtime_account_irq(sim_ns delta) {
  if (!irqtime_) return;
  stats_.irqtime_updates += 2;  // the entry and the exit stamp
  if (delta <= 0) return;
  account(old_, Cputime::Irq, delta);
  account(new_, Cputime::Irq, delta);
  old_irq_pending_ += delta;
  new_irq_pending_ += delta;
}

sim_ns CpuTimeAccount::account_other_time(Kcpustat& k, sim_ns steal_clock, sim_ns max, sim_ns& prev_steal, sim_ns& irq_pending) {
  sim_ns other = steal_account_process_time(steal_clock, max, prev_steal);
  account(k, Cputime::Steal, other);
  if (other < max) {  // irqtime_tick_accounted(max - other)
    sim_ns irq = std::min(irq_pending, max - other);
    irq_pending -= irq;
    other += irq;
  }
  return other;
}

// irqtime_account_process_tick() when irq time is accounted, else account_process_tick():
// either way the tick's share is what steal (and measured irq time) leave of TICK_NSEC.
void CpuTimeAccount::account_process_tick(sim_ns now, Cputime what, sim_ns tick_nsec, sim_ns steal_clock, bool dyntick) {
  if (what == Cputime::Idle) what = idle_or_iowait();  // account_idle_time()
  sim_ns other = account_other_time(old_, steal_clock, KTIME_MAX, old_prev_steal_, old_irq_pending_);
  if (other < tick_nsec) account(old_, what, tick_nsec - other);
  // New scheme: an idle tick inside a dyntick period is already covered by the delta.
  if (dyntick && (what == Cputime::Idle || what == Cputime::Iowait)) return;
  // The tick restarted on its old period: as merged (cf6444c3e1bb) its first tick accounts
  // the whole period, the idle that kcpustat_dyntick_stop() accounted inside it a second
  // time; the fix takes that overlap off (every dyntick stretch inside the period: a
  // ping-pong stops the tick many times a period).
  sim_ns share = tick_nsec;
  tick_nsec_ = tick_nsec;
  if (dyn_first_tick_) {
    if (fix_first_tick_) {
      sim_ns overlap = 0;
      for (const auto& [from, to] : dyn_accounted_) overlap += std::max<sim_ns>(0, to - std::max(from, now - tick_nsec));
      share = std::clamp<sim_ns>(tick_nsec - overlap, 0, tick_nsec);
    }
    dyn_first_tick_ = false;
  }
  dyn_accounted_.clear();
  sim_ns nother = account_other_time(new_, steal_clock, KTIME_MAX, new_prev_steal_, new_irq_pending_);
  if (nother < share) account(new_, what, share - nother);
}

void CpuTimeAccount::vtime_account(Cputime what, sim_ns delta, sim_ns steal_clock) {
  sim_ns other = account_other_time(old_, steal_clock, delta, old_prev_steal_, old_irq_pending_);
  account(old_, what, delta - other);
  sim_ns nother = account_other_time(new_, steal_clock, delta, new_prev_steal_, new_irq_pending_);
  account(new_, what, delta - nother);
}

void CpuTimeAccount::account_idle_ticks(std::uint64_t ticks, sim_ns tick_nsec, sim_ns steal_clock) {
  sim_ns cputime = static_cast<sim_ns>(ticks) * tick_nsec;
  sim_ns other = account_other_time(old_, steal_clock, KTIME_MAX, old_prev_steal_, old_irq_pending_);
  if (other < cputime) account(old_, idle_or_iowait(), cputime - other);
}

void CpuTimeAccount::start_idle(sim_ns now) {
  ++stats_.old_updates;
  idle_entrytime_ = now;
  idle_active_ = true;
}

void CpuTimeAccount::stop_idle(sim_ns now) {
  if (!idle_active_) return;
  ++stats_.old_updates;
  (nr_iowait > 0 ? iowait_sleeptime_ : idle_sleeptime_) += now - idle_entrytime_;
  idle_active_ = false;
}

// A stretch of dyntick idle just accounted; those that ended a tick ago or more cannot
// overlap the next tick's period.
void CpuTimeAccount::dyn_accounted(sim_ns from, sim_ns to) {
  if (tick_nsec_ > 0)
    dyn_accounted_.erase(std::remove_if(dyn_accounted_.begin(), dyn_accounted_.end(),
                                        [&](const auto& s) { return s.second <= to - tick_nsec_; }),
                         dyn_accounted_.end());
  dyn_accounted_.emplace_back(from, to);
}

void CpuTimeAccount::dyntick_start(sim_ns now, sim_ns steal_clock) {
  // steal until now belongs to the ticking period before
  account(new_, Cputime::Steal, steal_account_process_time(steal_clock, KTIME_MAX, new_prev_steal_));
  ++stats_.new_updates;
  dyn_active_ = true;
  dyn_in_irq_ = false;
  dyn_entrytime_ = now;
  dyn_steal_base_ = steal_clock;
}

// kcpustat_irq_enter()/_exit(): with irq time accounted, an interrupt pauses dyntick idle;
// without, dyntick idle keeps elapsing through it (the refactor's IRQ_TIME_ACCOUNTING=n case).
void CpuTimeAccount::dyntick_irq_enter(sim_ns now) {
  if (!irqtime_ || !dyn_active_ || dyn_in_irq_) return;
  ++stats_.new_updates;
  account(new_, idle_or_iowait(), now - dyn_entrytime_);
  dyn_accounted(dyn_entrytime_, now);
  dyn_in_irq_ = true;
}

void CpuTimeAccount::dyntick_irq_exit(sim_ns now) {
  if (!dyn_active_ || !dyn_in_irq_) return;
  ++stats_.new_updates;
  dyn_in_irq_ = false;
  dyn_entrytime_ = now;
}

// The steal of the dyntick period is accounted as steal and taken out of idle, never
// making idle go backward: what cannot be subtracted yet waits in idle_stealtime.
void CpuTimeAccount::dyntick_stop(sim_ns now, sim_ns steal_clock) {
  if (!dyn_active_) return;
  ++stats_.new_updates;
  if (!dyn_in_irq_) {
    account(new_, idle_or_iowait(), now - dyn_entrytime_);
    dyn_accounted(dyn_entrytime_, now);
  }
  sim_ns steal = steal_account_process_time(steal_clock, KTIME_MAX, new_prev_steal_);
  account(new_, Cputime::Steal, steal);
  idle_stealtime_ += steal;
  sim_ns take = std::min(idle_stealtime_, new_[static_cast<size_t>(Cputime::Idle)]);
  new_[static_cast<size_t>(Cputime::Idle)] -= take;
  idle_stealtime_ -= take;
  dyn_active_ = false;
  dyn_in_irq_ = false;
  dyn_first_tick_ = true;
}

Kcpustat CpuTimeAccount::proc_stat_old(bool online, sim_ns now) const {
  Kcpustat k = old_;
  if (online) {  // get_idle_time() / get_iowait_time(): online CPUs report the nohz deltas
    sim_ns open = idle_active_ ? now - idle_entrytime_ : 0;
    k[static_cast<size_t>(Cputime::Idle)] = idle_sleeptime_ + (nr_iowait > 0 ? 0 : open);
    k[static_cast<size_t>(Cputime::Iowait)] = iowait_sleeptime_ + (nr_iowait > 0 ? open : 0);
  }
  return k;
}

Kcpustat CpuTimeAccount::proc_stat_new(sim_ns now, sim_ns steal_clock) const {
  Kcpustat k = new_;
  if (dyn_active_ && !dyn_in_irq_) {
    // readers subtract the steal not yet accounted from the in-flight delta
    sim_ns delta = now - dyn_entrytime_;
    sim_ns pending = steal_clock - new_prev_steal_;
    k[static_cast<size_t>(idle_or_iowait())] += std::max<sim_ns>(0, delta - pending);
  }
  return k;
}

}  // namespace vtick
