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
  hw_->local_irq_enable();
  for (;;) {
    if (!curr && rq.empty()) do_idle();
    schedule();
    if (curr) run_curr();
  }
}

// __schedule(): put back a preempted task, pick the next runnable one (FIFO within
// the CPU's queue; each task is pinned to its CPU until the placement issue).
void GuestCpu::schedule() {
  need_resched = false;
  if (curr) {
    if (curr->state == TaskState::Running) {
      curr->state = TaskState::Runnable;
      rq.push_back(curr);
      ++k_.sched_stats.preemptions;
    }
    curr = nullptr;
  }
  if (rq.empty()) return;
  Task* next = rq.front();
  rq.pop_front();
  enter_state(GuestCpuState::Sys);
  kernel_work(k_.params().costs.schedule_ns);
  ++k_.sched_stats.switches;
  curr = next;
  slice_start = now();
  next->state = TaskState::Running;
  next->cpu = id_;
  if (next->woken_at >= 0) {
    if (k_.record_latency) k_.wake_latency.push_back(now() - next->woken_at);
    next->woken_at = -1;
  }
}

// Interprets the current task's program until it blocks or must reschedule.
void GuestCpu::run_curr() {
  Task& t = *curr;
  const GuestCosts& c = k_.params().costs;
  while (!need_resched) {
    const Phase& ph = t.program[t.pc];
    bool advance = true;
    switch (ph.kind) {
      case PhaseKind::Run: {
        if (t.left == 0) t.left = phase_length(t, ph);
        enter_state(GuestCpuState::User);
        sim_ns start = now();
        t.left = hw_->run(t.left);
        t.runtime += now() - start;
        advance = (t.left == 0);
        break;
      }
      case PhaseKind::Sleep:
        enter_state(GuestCpuState::Sys);
        kernel_work(c.syscall_ns);
        hw_->local_irq_disable();
        hrtimers_.start(t.sleep_timer, now() + phase_length(t, ph), k_.params().timer_slack_ns);
        hw_->local_irq_enable();
        t.state = TaskState::Sleeping;
        break;
      case PhaseKind::Wait: {
        enter_state(GuestCpuState::Sys);
        kernel_work(c.syscall_ns);
        WaitEvent& ev = k_.event(ph.event);
        if (ev.count > 0) --ev.count;
        else {
          ev.waiters.push_back(&t);
          t.state = TaskState::Blocked;
        }
        break;
      }
      case PhaseKind::Wake: {
        enter_state(GuestCpuState::Sys);
        kernel_work(c.syscall_ns);
        WaitEvent& ev = k_.event(ph.event);
        if (ev.waiters.empty()) ++ev.count;
        else {
          Task* w = ev.waiters.front();
          ev.waiters.pop_front();
          k_.try_to_wake_up(*w, *this);
        }
        break;
      }
    }
    if (advance && ++t.pc == t.program.size()) {
      t.pc = 0;
      ++t.ops;
    }
    if (t.state != TaskState::Running) {
      curr = nullptr;  // blocked: schedule() picks the next task or the idle task
      return;
    }
  }
}

}  // namespace vtick
