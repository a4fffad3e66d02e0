// The per-CPU kernel loop: kernel/sched/core.c __schedule() and the interrupt entry.
#include "guest/kernel.hpp"

namespace vtick {

const char* guest_cpu_state_name(GuestCpuState s) {
  switch (s) {
    case GuestCpuState::User: return "user";
    case GuestCpuState::Sys: return "system";
    case GuestCpuState::Irq: return "irq";
    case GuestCpuState::Idle: return "idle_loop";
    case GuestCpuState::Halted: return "halted";
    default: return "?";
  }
}

GuestCpu::GuestCpu(GuestKernel& k, int id)
    : k_(k), id_(id), ce_(k.params().isa, hw_), hrtimers_(ce_), tick_(*this) {}

void GuestCpu::kernel_work(sim_ns ns) {
  while (ns > 0) ns = hw_->run(ns);
}

// The interrupt entry: irq_enter_rcu() -> handler -> irq_exit_rcu().
void GuestCpu::handle_irq(IrqVector v) {
  ++irqs[static_cast<size_t>(v)];
  GuestCpuState prev = state();
  enter_state(GuestCpuState::Irq);
  tick_.tick_nohz_irq_enter();
  const GuestCosts& c = k_.params().costs;
  hw_->run(c.irq_entry_ns);  // interrupts are disabled: runs to completion
  switch (v) {
    case IrqVector::LocalTimer:
      hrtimers_.interrupt([this] { return now(); });  // hrtimer_interrupt()
      break;
    case IrqVector::Reschedule:
      hw_->run(c.resched_ipi_ns);  // scheduler_ipi(): the waker already set need_resched
      break;
    case IrqVector::CallFunction:
      flush_smp_call_function_queue();  // generic_smp_call_function_single_interrupt()
      break;
    case IrqVector::Device:
      hw_->run(c.io_complete_ns);  // virtio-blk vring interrupt: complete the bios
      for (std::uint64_t req : hw_->io_completions()) {
        Task& t = *k_.tasks()[static_cast<size_t>(req >> 32) - 1];
        k_.try_to_wake_up(t, *this);
      }
      break;
    default:
      break;
  }
  tick_.tick_nohz_irq_exit();
  enter_state(prev);
}

void GuestCpu::cpu_startup_entry() {
  time_.start(GuestCpuState::Idle, now());
  hw_->local_irq_disable();
  tick_.tick_setup_sched_timer(now());
  for (auto& [t, delay] : boot_sleepers) hrtimers_.start(t->sleep_timer, now() + delay, k_.params().timer_slack_ns);
  next_balance = now() + k_.balance_interval(true);
  hw_->local_irq_enable();
  for (;;) {
    schedule();
    if (curr) run_curr();
    else do_idle();
  }
}

}  // namespace vtick
