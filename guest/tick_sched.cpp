// kernel/time/tick-sched.c: NO_HZ idle and NO_HZ_FULL tick handling (high-resolution mode).
#include "guest/tick_sched.hpp"

#include <algorithm>

#include "core/trace.hpp"
#include "core/warn.hpp"
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

bool TickSched::nohz_full_cpu() const { return cpu_.kernel().tick_nohz_full_cpu(cpu_.id()); }

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

// tick_nohz_handler(): the sched_timer callback (with what tick_sched_handle() did before
// v6.10 inlined here).
HrtimerRestart TickSched::tick_nohz_handler(sim_ns now) {
  ++stats_.ticks;
  trace::tick(now, cpu_.id(), inidle_, sched_timer_.expires);
  if (inidle_) ++stats_.ticks_idle;
  else ++stats_.ticks_busy;
  if (cpu_.irq_from() == GuestCpuState::User) ++stats_.ticks_user;
  if (cpu_.in_poll()) ++stats_.ticks_polling;
  tick_sched_do_timer(now);
  if (tick_stopped_ && !cpu_.curr) ++idle_jiffies_;  // the idle task's tick: not accounted twice at the restart
  cpu_.update_process_times(now);
  if (tick_stopped_) {
    // A stopped tick is re-armed by the idle loop, not here. 2026 series P1(b): a polling
    // nohz_full CPU never re-enters that loop, so make it leave the poll.
    if (inidle_ && nohz_full_cpu() && cpu_.kernel().params().series.p1_stopped_tick_fix && cpu_.polling)
      cpu_.need_resched = true;
    return HrtimerRestart::NoRestart;
  }
  sched_timer_.forward(cpu_.now(), cpu_.kernel().tick_nsec());
  return HrtimerRestart::Restart;
}

bool TickSched::can_stop_idle_tick() {
  GuestKernel& k = cpu_.kernel();
  if (!k.params().nohz || !k.policy().nohz) return false;  // NOHZ inactive
  if (cpu_.need_resched) return false;
  if (k.params().nohz_full) {
    // keep the tick alive for timekeeping while full-dynticks CPUs exist
    if (k.tick_do_timer_cpu == cpu_.id() || k.tick_do_timer_cpu == GuestKernel::TICK_DO_TIMER_NONE) return false;
  }
  return true;
}

// tick_nohz_next_event(): 0 = "keep the tick", else when the stopped tick must fire.
sim_ns TickSched::tick_nohz_next_event() {
  GuestKernel& k = cpu_.kernel();
  cpu_.kernel_work(k.params().costs.tick_stop_ns);
  sim_ns basemono = k.last_jiffies_update;
  last_jiffies_ = k.jiffies;
  timer_expires_base_ = basemono;
  sim_ns next_tick;
  const NohzReasons& why = k.params().reasons;
  auto draw = [&](double p) { return p > 0 && cpu_.rng().uniform01() < p; };
  if (draw(why.rcu_needs_cpu) || draw(why.irq_work_needs_cpu) || draw(why.softirq_pending)) {
    ++stats_.kept_for_reason;
    next_tick = basemono + k.tick_nsec();
  } else {
    next_tick = cpu_.wheel().get_next_timer_interrupt(k.jiffies, basemono, k.tick_nsec());
  }
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
    // tick_nohz_stop_tick()'s WARN_ONCE: a stopped tick whose event passed unprogrammed
    VTICK_WARN(sched_timer_.expires != expires, "CPU ", cpu_.id(), ": next_tick ", next_tick_, " but sched_timer at ", sched_timer_.expires);
  }
  if (!tick_stopped_) {
    last_tick_ = sched_timer_.expires;
    tick_stopped_ = true;
    ++stats_.stops;
    if (tracing()) trace::tick_stop(cpu_.now(), cpu_.id(), true, TickDep::None);  // trace_tick_stop(1, TICK_DEP_MASK_NONE)
  }
  next_tick_ = expires;
  if (expires == KTIME_MAX) cpu_.hrtimers().cancel(sched_timer_);
  else cpu_.hrtimers().start(sched_timer_, expires);
}

void TickSched::tick_nohz_idle_stop_tick() {
  // only the idle loop stops the tick this way (cf. tick_nohz_get_sleep_length()'s check)
  if (VTICK_WARN(!inidle_, "CPU ", cpu_.id(), " outside its idle loop")) return;
  sim_ns expires;
  if (timer_expires_base_) expires = timer_expires_;
  else if (can_stop_idle_tick()) expires = tick_nohz_next_event();
  else return;
  ++stats_.idle_calls;
  if (expires > 0) {
    if (tracing()) trace::nohz_stop(cpu_.now(), cpu_.id(), expires == KTIME_MAX ? -1 : expires);
    bool was_stopped = tick_stopped_;
    tick_nohz_stop_tick();
    ++stats_.idle_sleeps;
    if (!was_stopped && tick_stopped_) {
      idle_jiffies_ = last_jiffies_;
      cpu_.cputime().dyntick_start(cpu_.now(), cpu_.hw().steal_clock());  // kcpustat_dyntick_start()
      cpu_.kernel().nohz_balance_enter_idle(cpu_);
    }
  } else {
    if (tracing()) trace::tick_retain(cpu_.now(), cpu_.id());
    ++stats_.retains;
    tick_nohz_retain_tick();
  }
}

void TickSched::tick_nohz_idle_retain_tick() {
  if (VTICK_WARN(!inidle_, "CPU ", cpu_.id(), " outside its idle loop")) return;
  ++stats_.retains;
  if (tracing()) trace::tick_retain(cpu_.now(), cpu_.id());
  tick_nohz_retain_tick();
}

void TickSched::tick_nohz_idle_enter() {
  inidle_ = true;
  cpu_.cputime().start_idle(cpu_.now());  // tick_nohz_start_idle()
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
  trace::tick_restart(now, cpu_.id());
  tick_nohz_restart(now);
}

// tick_nohz_account_idle_time(): on the idle exit path only, the stopped period's ticks
// are idle time (old scheme: in bulk; new scheme: the dyntick delta ends here).
void TickSched::tick_nohz_account_idle_time(sim_ns now) {
  cpu_.cputime().dyntick_stop(now, cpu_.hw().steal_clock());
  GuestKernel& k = cpu_.kernel();
  if (k.jiffies > idle_jiffies_) cpu_.cputime().account_idle_ticks(k.jiffies - idle_jiffies_, k.tick_nsec(), cpu_.hw().steal_clock());
  idle_jiffies_ = k.jiffies;
}

// tick_nohz_idle_update_tick(): leaving idle with the tick stopped.
void TickSched::tick_nohz_idle_update_tick(sim_ns now) {
  if (nohz_full_cpu()) tick_nohz_full_update_tick_now(now);
  else tick_nohz_restart_sched_tick(now);
  tick_nohz_account_idle_time(now);
}

void TickSched::tick_nohz_idle_restart_tick() {
  if (!tick_stopped_) return;
  sim_ns now = cpu_.now();
  tick_nohz_restart_sched_tick(now);
  tick_nohz_account_idle_time(now);
}

// tick_nohz_idle_exit(): only a stopped tick is looked at. Since a5183862e76f a
// nohz_full CPU keeps it stopped when nothing needs it; others restart it.
void TickSched::tick_nohz_idle_exit() {
  VTICK_WARN(!inidle_, "CPU ", cpu_.id());  // tick_nohz_idle_exit(): WARN_ON_ONCE(!TS_FLAG_INIDLE)
  inidle_ = false;
  sim_ns now = cpu_.now();
  cpu_.cputime().stop_idle(now);  // tick_nohz_stop_idle()
  cpu_.cputime().dyntick_stop(now, cpu_.hw().steal_clock());
  if (tick_stopped_) tick_nohz_idle_update_tick(now);
}

bool TickSched::tick_nohz_idle_got_tick() {
  if (got_idle_tick_) {
    got_idle_tick_ = false;
    return true;
  }
  return false;
}

// tick_nohz_irq_enter(): stop idle accounting; a stopped tick leaves jiffies stale.
// The tick itself is not re-evaluated here.
void TickSched::tick_nohz_irq_enter() {
  sim_ns now = cpu_.now();
  cpu_.cputime().stop_idle(now);
  cpu_.cputime().dyntick_irq_enter(now);
  if (tick_stopped_) cpu_.kernel().tick_do_update_jiffies64(now);
}

// tick_nohz_irq_exit(): in idle only idle accounting restarts (the idle loop's next
// iteration re-evaluates the tick); a busy nohz_full CPU re-evaluates it here.
void TickSched::tick_nohz_irq_exit() {
  if (inidle_) {
    cpu_.cputime().start_idle(cpu_.now());
    cpu_.cputime().dyntick_irq_exit(cpu_.now());
  } else {
    tick_nohz_full_update_tick();
  }
}

// tick_sched_timer_dying(): the CPU goes offline; idle sleeptime is preserved.
void TickSched::tick_sched_timer_dying() {
  cpu_.hrtimers().cancel(sched_timer_);
  tick_stopped_ = false;
  inidle_ = false;
  got_idle_tick_ = false;
  timer_expires_base_ = 0;
}

// tick_handover_do_timer() (kernel/time/tick-common.c): the dying CPU's jiffies duty
// goes to the first online CPU.
void TickSched::tick_handover_do_timer() {
  GuestKernel& k = cpu_.kernel();
  if (k.tick_do_timer_cpu == cpu_.id()) k.tick_do_timer_cpu = k.first_online_cpu();
}

// --- NO_HZ_FULL ---------------------------------------------------------------

// can_stop_full_tick(): no tick dependency (SCHED: more than one runnable task on
// this CPU; POSIX_TIMER: the running task has CPU timers armed).
bool TickSched::can_stop_full_tick() const {
  if (cpu_.nr_running() > 1) {
    if (tracing()) trace::tick_stop(cpu_.now(), cpu_.id(), false, TickDep::Sched);  // check_tick_dependency()
    return false;
  }
  if (cpu_.curr && cpu_.curr->posix_cpu_timer) {
    if (tracing()) trace::tick_stop(cpu_.now(), cpu_.id(), false, TickDep::PosixTimer);
    return false;
  }
  return true;
}

void TickSched::tick_nohz_full_stop_tick() {
  if (tick_nohz_next_event()) {
    bool was = tick_stopped_;
    tick_nohz_stop_tick();
    if (!was && tick_stopped_ && tracing()) trace::nohz_stop(cpu_.now(), cpu_.id(), next_tick_ == KTIME_MAX ? -1 : next_tick_);
  } else {
    tick_nohz_retain_tick();
  }
}

void TickSched::tick_nohz_full_update_tick_now(sim_ns now) {
  if (can_stop_full_tick()) tick_nohz_full_stop_tick();
  else if (tick_stopped_) tick_nohz_restart_sched_tick(now);
}

void TickSched::tick_nohz_full_update_tick() {
  if (!nohz_full_cpu() || !cpu_.kernel().params().nohz) return;
  tick_nohz_full_update_tick_now(cpu_.now());
}

// __tick_nohz_task_switch(): a task with a tick dependency switched in on a nohz_full
// CPU whose tick is stopped kicks it (tick_nohz_full_kick -> irq_work -> irq exit).
void TickSched::tick_nohz_task_switch() {
  if (!nohz_full_cpu() || !tick_stopped_) return;
  if (cpu_.curr && cpu_.curr->posix_cpu_timer) tick_nohz_full_update_tick();
}

// tick_nohz_dep_set_cpu(cpu, TICK_DEP_BIT_SCHED), set by sched_update_tick_dependency()
// when a second task is runnable: the CPU is kicked (locally the irq_work re-evaluates at
// once, a remote CPU gets an IPI and re-evaluates at its irq exit). A CPU whose tick
// runs has nothing to re-evaluate: no kick is counted.
void TickSched::tick_nohz_dep_set_cpu_sched(GuestCpu& from) {
  if (!nohz_full_cpu() || !tick_stopped_ || cpu_.nr_running() < 2) return;
  ++stats_.dep_kicks;
  if (&from == &cpu_) tick_nohz_full_update_tick();
  else from.send_call_function_single_ipi(cpu_, "irq_work_queue_on");  // tick_nohz_full_kick_cpu()
}

// 2026 series P1(c): on the way back to user space a nohz_full CPU whose tick is still
// running stops it instead of letting it fire once in user space.
void TickSched::tick_nohz_user_enter() {
  if (!nohz_full_cpu() || !cpu_.kernel().params().series.p1_user_entry || tick_stopped_) return;
  if (!can_stop_full_tick()) return;
  ++stats_.user_entry_stops;
  tick_nohz_full_stop_tick();
}

}  // namespace vtick
