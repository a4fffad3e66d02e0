// kernel/time/tick-sched.c: NO_HZ idle tick handling (high-resolution mode).
#include "guest/tick_sched.hpp"

#include <algorithm>

#include "core/trace.hpp"
#include "guest/kernel.hpp"

namespace vtick {

// timekeeping_max_deferment(): max_idle_ns of kvm-clock / arch_sys_counter as the
// boot log prints it ("max_idle_ns: 881590591483 ns").
static constexpr sim_ns kMaxDeferment = 881590591483LL;
static constexpr int MAX_STALLED_JIFFIES = 5;

TickSched::TickSched(GuestCpu& cpu) : cpu_(cpu) {
  sched_timer_.name = "tick_nohz_handler";
  sched_timer_.function = [this](sim_ns now) { return tick_nohz_handler(now); };
}

// tick_setup_sched_timer(): the first tick on the jiffies grid after now. All CPUs
// share the grid (no skew_tick).
void TickSched::tick_setup_sched_timer(sim_ns now) {
  GuestKernel& k = cpu_.kernel();
  sched_timer_.set_expires(k.last_jiffies_update);
  sched_timer_.forward(now, k.tick_nsec());
  cpu_.hrtimers().start_expires(sched_timer_);
}

// tick_do_update_jiffies64(): advance jiffies to the last grid point before now.
void GuestKernel::tick_do_update_jiffies64(sim_ns now) {
  if (now < tick_next_period) return;
  sim_ns delta = now - tick_next_period;
  std::uint64_t ticks = 1;
  if (delta >= tick_nsec_) ticks += static_cast<std::uint64_t>(delta / tick_nsec_);
  jiffies += ticks;
  last_jiffies_update += static_cast<sim_ns>(ticks) * tick_nsec_;
  tick_next_period = last_jiffies_update + tick_nsec_;
}

// tick_sched_do_timer(): take over an orphaned jiffies duty, update jiffies, note an
// idle tick.
void TickSched::tick_sched_do_timer(sim_ns now) {
  GuestKernel& k = cpu_.kernel();
  if (k.tick_do_timer_cpu == GuestKernel::TICK_DO_TIMER_NONE) {
    k.tick_do_timer_cpu = cpu_.id();
    ++stats_.do_timer_takeovers;
  }
  if (k.tick_do_timer_cpu == cpu_.id()) k.tick_do_update_jiffies64(now);
  // A timekeeper that has been away (e.g. VMEXIT'ed) for several ticks: update anyway.
  if (last_tick_jiffies_ != k.jiffies) {
    stalled_jiffies_ = 0;
    last_tick_jiffies_ = k.jiffies;
  } else if (++stalled_jiffies_ == MAX_STALLED_JIFFIES) {
    k.tick_do_update_jiffies64(now);
    stalled_jiffies_ = 0;
    last_tick_jiffies_ = k.jiffies;
  }
  if (inidle_) got_idle_tick_ = true;
}

// tick_sched_handle() -> update_process_times(): scheduler tick, timers, RCU. The
// guest time it takes is one cost; the scheduler tick's decisions follow.
void TickSched::tick_sched_handle() {
  GuestCpu& c = cpu_;
  c.hw().run(c.kernel().params().costs.tick_handler_ns);
  // scheduler_tick(): with other tasks waiting, the running one yields once it has had
  // its slice (EEVDF base slice 0.75 ms scaled by 1 + ilog2(min(nr_cpus, 8))).
  c.update_curr();
  if (c.curr && !c.rq.empty() && c.now() - c.slice_start >= c.kernel().sched_slice()) c.need_resched = true;
  c.kernel().trigger_load_balance(c);
}

// tick_nohz_handler(): the sched_timer callback.
HrtimerRestart TickSched::tick_nohz_handler(sim_ns now) {
  ++stats_.ticks;
  emit(now, cpu_.id(), "tick", inidle_, sched_timer_.expires);
  if (inidle_) ++stats_.ticks_idle;
  else ++stats_.ticks_busy;
  tick_sched_do_timer(now);
  tick_sched_handle();
  // A stopped tick is re-armed by the idle loop, not here.
  if (tick_stopped_) return HrtimerRestart::NoRestart;
  sched_timer_.forward(cpu_.now(), cpu_.kernel().tick_nsec());
  return HrtimerRestart::Restart;
}

bool TickSched::can_stop_idle_tick() {
  if (!cpu_.kernel().params().nohz || !cpu_.kernel().policy().nohz) return false;  // NOHZ inactive
  if (cpu_.need_resched) return false;
  return true;
}

// tick_nohz_next_event(): 0 = "keep the tick", else when the stopped tick must fire.
sim_ns TickSched::tick_nohz_next_event() {
  GuestKernel& k = cpu_.kernel();
  cpu_.kernel_work(k.params().costs.tick_stop_ns);
  sim_ns basemono = k.last_jiffies_update;
  last_jiffies_ = k.jiffies;
  timer_expires_base_ = basemono;
  // No timer-wheel timers are modelled yet: get_next_timer_interrupt() has nothing.
  sim_ns next_tick = KTIME_MAX;
  if (next_tick != KTIME_MAX && next_tick - basemono <= k.tick_nsec() && !tick_stopped_) {
    timer_expires_ = 0;
    return 0;
  }
  sim_ns delta = kMaxDeferment;
  int tick_cpu = k.tick_do_timer_cpu;
  if (tick_cpu != cpu_.id() && (tick_cpu != GuestKernel::TICK_DO_TIMER_NONE || !do_timer_last_)) delta = KTIME_MAX;
  sim_ns expires = delta < KTIME_MAX - basemono ? basemono + delta : KTIME_MAX;
  timer_expires_ = std::min(expires, next_tick);
  return timer_expires_;
}

// tick_nohz_stop_tick(): move sched_timer to the next event, or cancel it.
void TickSched::tick_nohz_stop_tick() {
  GuestKernel& k = cpu_.kernel();
  sim_ns expires = timer_expires_;
  timer_expires_base_ = 0;
  if (k.tick_do_timer_cpu == cpu_.id()) {
    k.tick_do_timer_cpu = GuestKernel::TICK_DO_TIMER_NONE;
    do_timer_last_ = true;
    ++stats_.do_timer_handovers;
  } else if (k.tick_do_timer_cpu != GuestKernel::TICK_DO_TIMER_NONE) {
    do_timer_last_ = false;
  }
  if (tick_stopped_ && expires == next_tick_) {
    // Already programmed for it, unless the timer fired meanwhile.
    if (expires == KTIME_MAX || sched_timer_.queued) return;
  }
  if (!tick_stopped_) {
    last_tick_ = sched_timer_.expires;
    tick_stopped_ = true;
    ++stats_.stops;
  }
  next_tick_ = expires;
  if (expires == KTIME_MAX) cpu_.hrtimers().cancel(sched_timer_);
  else cpu_.hrtimers().start(sched_timer_, expires);
}

void TickSched::tick_nohz_idle_stop_tick() {
  sim_ns expires;
  if (timer_expires_base_) expires = timer_expires_;
  else if (can_stop_idle_tick()) expires = tick_nohz_next_event();
  else return;
  ++stats_.idle_calls;
  if (expires > 0) {
    emit(cpu_.now(), cpu_.id(), "tick_stop", expires == KTIME_MAX ? -1 : expires);
    bool was_stopped = tick_stopped_;
    tick_nohz_stop_tick();
    ++stats_.idle_sleeps;
    if (!was_stopped && tick_stopped_) cpu_.kernel().nohz_balance_enter_idle(cpu_);
  } else {
    emit(cpu_.now(), cpu_.id(), "tick_retain");
    tick_nohz_retain_tick();
  }
}

void TickSched::tick_nohz_idle_retain_tick() {
  ++stats_.retains;
  emit(cpu_.now(), cpu_.id(), "tick_retain");
  tick_nohz_retain_tick();
}

void TickSched::tick_nohz_idle_enter() {
  inidle_ = true;  // tick_nohz_start_idle() accounting: see guest/cputime (later)
}

// tick_nohz_restart(): back on the grid of the tick that was stopped.
void TickSched::tick_nohz_restart(sim_ns now) {
  cpu_.hrtimers().cancel(sched_timer_);
  sched_timer_.set_expires(last_tick_);
  sched_timer_.forward(now, cpu_.kernel().tick_nsec());
  cpu_.hrtimers().start_expires(sched_timer_);
  next_tick_ = 0;
}

void TickSched::tick_nohz_restart_sched_tick(sim_ns now) {
  cpu_.kernel().tick_do_update_jiffies64(now);
  tick_stopped_ = false;
  ++stats_.restarts;
  emit(now, cpu_.id(), "tick_restart");
  tick_nohz_restart(now);
}

void TickSched::tick_nohz_idle_restart_tick() {
  if (tick_stopped_) tick_nohz_restart_sched_tick(cpu_.now());
}

void TickSched::tick_nohz_idle_exit() {
  inidle_ = false;
  if (tick_stopped_) tick_nohz_restart_sched_tick(cpu_.now());
}

bool TickSched::tick_nohz_idle_got_tick() {
  if (got_idle_tick_) {
    got_idle_tick_ = false;
    return true;
  }
  return false;
}

void TickSched::tick_nohz_update_jiffies(sim_ns now) { cpu_.kernel().tick_do_update_jiffies64(now); }

// tick_nohz_irq_enter(): a stopped tick leaves jiffies stale; catch up. The tick
// itself is not re-evaluated here.
void TickSched::tick_nohz_irq_enter() {
  if (tick_stopped_) tick_nohz_update_jiffies(cpu_.now());
}

void TickSched::tick_nohz_irq_exit() {
  // In idle: only idle accounting restarts (next loop iteration re-evaluates the tick).
}

}  // namespace vtick
