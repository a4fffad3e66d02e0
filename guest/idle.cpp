// kernel/sched/idle.c: do_idle(), cpuidle_idle_call(), default_idle_call().
#include "core/trace.hpp"
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
  if (!tick_.tick_nohz_tick_stopped() && k_.policy().nohz) ++idle_stats.retained_halts;
  sim_ns t0 = now();
  emit(t0, id_, "halt", tick_.tick_nohz_tick_stopped());
  enter_state(GuestCpuState::Halted);
  hw_->safe_halt();  // arch_cpu_idle(): sti; hlt  /  wfi
  enter_state(GuestCpuState::Idle);
  emit(now(), id_, "halt_end");
  idle_hist_[idle_hist_pos_++ % idle_hist_.size()] = now() - t0;
}

// cpuidle_idle_call(): only the no-driver path exists so far (cpuidle_not_available()).
void GuestCpu::cpuidle_idle_call(bool got_tick) {
  if (need_resched) {
    hw_->local_irq_enable();
    return;
  }
  apply_tick_choice(k_.policy().no_driver, got_tick);
  default_idle_call();
  polling = true;  // exit_idle: __current_set_polling()
  if (hw_->irqs_disabled()) hw_->local_irq_enable();
}

// do_idle(): one idle episode, from picking the idle task to need_resched.
void GuestCpu::do_idle() {
  ++idle_stats.episodes;
  emit(now(), id_, "idle_enter");
  enter_state(GuestCpuState::Idle);
  polling = true;  // __current_set_polling()
  tick_.tick_nohz_idle_enter();
  kernel_work(k_.params().costs.idle_enter_ns);
  bool got_tick = false;  // f4c31b07b136: reset at every episode
  while (!need_resched) {
    hw_->local_irq_disable();
    cpuidle_idle_call(got_tick);
    got_tick = tick_.tick_nohz_idle_got_tick();
    if (got_tick) ++idle_stats.tick_woken_halts;
  }
  hw_->local_irq_disable();
  tick_.tick_nohz_idle_exit();
  hw_->local_irq_enable();
  polling = false;  // __current_clr_polling()
  flush_smp_call_function_queue();
  kernel_work(k_.params().costs.idle_exit_ns);
  emit(now(), id_, "idle_exit");
}

}  // namespace vtick
