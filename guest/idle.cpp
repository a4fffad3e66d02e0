// kernel/sched/idle.c: do_idle(), cpuidle_idle_call(), default_idle_call(), cpu_idle_poll();
// drivers/cpuidle: call_cpuidle(), cpuidle_enter_state(), poll_idle().
#include "core/trace.hpp"
#include "core/warn.hpp"
#include "guest/kernel.hpp"

namespace vtick {

// idle_call_stop_or_retain_tick() (f4c31b07b136)
void GuestCpu::idle_call_stop_or_retain_tick(bool stop_tick) {
  if (stop_tick || tick_.tick_nohz_tick_stopped()) tick_.tick_nohz_idle_stop_tick();
  else tick_.tick_nohz_idle_retain_tick();
}

void GuestCpu::apply_tick_choice(TickChoice c, bool got_tick) {
  switch (c) {
    case TickChoice::Stop: tick_.tick_nohz_idle_stop_tick(); break;
    case TickChoice::Retain: tick_.tick_nohz_idle_retain_tick(); break;
    case TickChoice::StopOrRetainGotTick: idle_call_stop_or_retain_tick(got_tick); break;
    case TickChoice::StopOrRetainFalse: idle_call_stop_or_retain_tick(false); break;
    case TickChoice::StopIfAvgIdleAboveTick: {
      sim_ns sum = 0;
      for (sim_ns d : idle_hist_) sum += d;
      idle_call_stop_or_retain_tick(sum / static_cast<sim_ns>(idle_hist_.size()) > k_.tick_nsec());
      break;
    }
  }
}

// default_idle_call(): clear the polling flag (a waker now needs an IPI), then HLT/WFI.
void GuestCpu::default_idle_call() {
  polling = false;  // current_clr_polling_and_test()
  if (need_resched) {
    ++idle_stats.halt_skipped;
    hw_->local_irq_enable();
    return;
  }
  ++idle_stats.halts;
  if (!tick_.tick_nohz_tick_stopped() && k_.policy().nohz && k_.params().nohz) ++idle_stats.retained_halts;
  if (tracing()) trace::halt(now(), id_, tick_.tick_nohz_tick_stopped());
  if (tracing()) trace::cpu_idle(now(), id_, 1);  // trace_cpu_idle(1, cpu)
  enter_state(GuestCpuState::Halted);
  hw_->safe_halt();  // arch_cpu_idle(): sti; hlt  /  wfi
  enter_state(GuestCpuState::Idle);
  if (tracing()) trace::cpu_idle(now(), id_, PWR_EVENT_EXIT);
  if (tracing()) trace::halt_end(now(), id_);
}

// poll_idle() (drivers/cpuidle/poll_state.c): spin with the polling flag set until
// need_resched or the poll limit; the clock is read every POLL_IDLE_RELAX_COUNT relaxes.
int GuestCpu::poll_idle() {
  CpuidleDevice& dev = cpuidle_dev_;
  sim_ns start = now();
  dev.poll_time_limit = false;
  ++dev.stats.poll_entries;
  hw_->local_irq_enable();
  polling = true;  // current_set_polling_and_test()
  in_poll_ = true;
  if (tracing()) trace::cpu_idle(now(), id_, 0);  // cpuidle_enter_state(): state 0, "POLL"
  if (!need_resched) {
    sim_ns batch = k_.params().poll_relax_batch_ns;
    sim_ns end = start + (dev.poll_limit_ns / batch + 1) * batch;
    while (!need_resched) {
      if (now() >= end) {
        dev.poll_time_limit = true;
        ++dev.stats.poll_timeouts;
        break;
      }
      hw_->poll_wait(end);
    }
  }
  in_poll_ = false;
  if (tracing()) trace::cpu_idle(now(), id_, PWR_EVENT_EXIT);
  hw_->local_irq_disable();
  polling = false;  // current_clr_polling()
  dev.stats.poll_ns += now() - start;
  return 0;
}

// call_cpuidle() -> cpuidle_enter_state(): state 0 polls, state 1 halts.
int GuestCpu::call_cpuidle(int state) {
  CpuidleDevice& dev = cpuidle_dev_;
  polling = false;  // current_clr_polling_and_test()
  if (need_resched) {
    dev.last_residency_ns = 0;
    ++dev.stats.busy;
    hw_->local_irq_enable();
    return -1;  // -EBUSY
  }
  sim_ns t0 = now();
  bool polling_state = cpuidle_state_count(k_.params().cpuidle) == 2 && state == 0;
  if (polling_state) {
    poll_idle();
  } else {
    ++dev.stats.halt_entries;
    default_idle_call();  // the halt state's enter: default_idle() -> HLT
  }
  dev.last_residency_ns = now() - t0;
  hw_->local_irq_enable();
  return state;
}

// cpu_idle_poll(): idle=poll / nohlt: spin with interrupts on until need_resched.
void GuestCpu::cpu_idle_poll() {
  if (tracing()) trace::poll_enter(now(), id_);
  if (tracing()) trace::cpu_idle(now(), id_, 0);
  hw_->local_irq_enable();
  in_poll_ = true;
  while (!need_resched) hw_->poll_wait(KTIME_MAX);
  in_poll_ = false;
  if (tracing()) trace::cpu_idle(now(), id_, PWR_EVENT_EXIT);
  if (tracing()) trace::poll_exit(now(), id_);
}

// cpuidle_idle_call(): the no-driver, multi-state and single-state paths.
void GuestCpu::cpuidle_idle_call(bool got_tick) {
  if (need_resched) {
    hw_->local_irq_enable();
    return;
  }
  const CpuidleParams& cp = k_.params().cpuidle;
  int states = cpuidle_state_count(cp);
  if (states == 0) {
    // cpuidle_not_available(): no driver (or cpuidle.off=1)
    apply_tick_choice(k_.policy().no_driver, got_tick);
    default_idle_call();
  } else if (states > 1) {
    bool stop_tick = true;  // governors expect true by default
    int next = haltpoll_select(cpuidle_dev_, &stop_tick);
    idle_call_stop_or_retain_tick(stop_tick);
    int entered = call_cpuidle(next);
    if (entered >= 0) haltpoll_reflect(cp.haltpoll, cpuidle_dev_, entered);  // cpuidle_reflect()
  } else {
    apply_tick_choice(k_.policy().single_state, got_tick);
    call_cpuidle(0);
  }
  polling = true;  // exit_idle: __current_set_polling()
  // it is up to the idle functions to re-enable interrupts
  if (VTICK_WARN(hw_->irqs_disabled(), "CPU ", id_, " left its idle state with interrupts off")) hw_->local_irq_enable();
}

// do_idle(): one idle episode, from picking the idle task to need_resched.
void GuestCpu::do_idle() {
  ++idle_stats.episodes;
  sim_ns entered = now();
  trace::idle_enter(entered, id_);
  enter_state(GuestCpuState::Idle);
  polling = true;  // __current_set_polling()
  tick_.tick_nohz_idle_enter();
  charge_cputime_updates();
  kernel_work(k_.params().costs.idle_enter_ns);
  bool got_tick = false;  // f4c31b07b136: reset at every episode
  const GuestParams& p = k_.params();
  while (!need_resched) {
    hw_->local_irq_disable();
    if (p.idle_poll) {  // cpu_idle_force_poll
      // 2026 series P2: a nohz_full CPU stops the tick instead of restarting it
      if (p.series.p2 && k_.tick_nohz_full_cpu(id_)) tick_.tick_nohz_idle_stop_tick();
      else tick_.tick_nohz_idle_restart_tick();
      cpu_idle_poll();
    } else {
      cpuidle_idle_call(got_tick);
    }
    got_tick = tick_.tick_nohz_idle_got_tick();
    if (got_tick) ++idle_stats.tick_woken_halts;
  }
  idle_hist_[idle_hist_pos_++ % idle_hist_.size()] = now() - entered;  // tglx_avg's history
  hw_->local_irq_disable();
  tick_.tick_nohz_idle_exit();
  charge_cputime_updates();
  hw_->local_irq_enable();
  polling = false;  // __current_clr_polling()
  flush_smp_call_function_queue();
  kernel_work(k_.params().costs.idle_exit_ns);
  if (tracing()) trace::idle_exit(now(), id_);
}

}  // namespace vtick
