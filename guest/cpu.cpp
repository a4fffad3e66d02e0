// The per-CPU kernel loop: kernel/sched/core.c __schedule() and the interrupt entry.
#include "core/trace.hpp"
#include "guest/kernel.hpp"
#include "guest/task_program.hpp"

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
    : k_(k), id_(id), ce_(k.params().isa, hw_), hrtimers_(ce_, id), tick_(*this), rng_(k.seed(), "guest/cpu" + std::to_string(id)),
      cost_rng_(k.seed(), "guest/cpu" + std::to_string(id) + "/costs") {
  cputime_.configure(k.params().cputime != CputimeScheme::Old, k.params().cputime == CputimeScheme::NewFixed,
                     k.params().irq_time_accounting);
}

void GuestCpu::account_process_tick(sim_ns now) {
  // account_process_tick(): user_tick, else the idle task (p == rq->idle, the tick's own
  // hardirq only) is idle wherever in it the tick lands, else system
  Cputime what = Cputime::System;
  if (irq_from_ == GuestCpuState::User) what = Cputime::User;
  else if (!curr && irq_from_ != GuestCpuState::Irq) what = Cputime::Idle;
  // vtime_accounting_enabled_this_cpu(): user and system come from context tracking;
  // idle stays with each scheme's idle accounting (ticks, nohz deltas)
  if (vtime_cpu() && what != Cputime::Idle) return;
  cputime_.account_process_tick(now, what, k_.tick_nsec(), hw_->steal_clock(),
                                tick_.tick_nohz_tick_stopped() && tick_.inidle());
}

bool GuestCpu::vtime_cpu() const { return k_.tick_nohz_full_cpu(id_); }

// vtime_user_exit() -> vtime_account_user() leaving user space, vtime_user_enter() ->
// vtime_account_system() leaving the kernel (interrupts included: no
// CONFIG_IRQ_TIME_ACCOUNTING split here); idle and a halted CPU are not vtime's.
static Cputime vtime_column(GuestCpuState s) {  // Count: not vtime's
  return s == GuestCpuState::User ? Cputime::User
         : s == GuestCpuState::Sys || s == GuestCpuState::Irq ? Cputime::System
                                                             : Cputime::Count;
}

void GuestCpu::vtime_account_state(GuestCpuState leaving, sim_ns t) {
  sim_ns delta = t - vtime_start_;
  vtime_start_ = t;
  Cputime c = vtime_column(leaving);
  if (delta > 0 && c != Cputime::Count) cputime_.vtime_account(c, delta, hw_->steal_clock());
}

Kcpustat GuestCpu::proc_stat(sim_ns t) {
  Kcpustat k = k_.params().cputime != CputimeScheme::Old ? cputime_.proc_stat_new(t, hw_->steal_clock())
                                                         : cputime_.proc_stat_old(online_, t);
  // kcpustat_cpu_fetch_vtime(): a reader also sees the vtime delta still running
  Cputime c = vtime_column(state());
  if (vtime_cpu() && t > vtime_start_ && c != Cputime::Count) k[static_cast<std::size_t>(c)] += t - vtime_start_;
  return k;
}

// add_timer(): queue on this CPU's wheel; a nohz_full CPU whose tick is stopped is
// kicked so it can re-evaluate (trigger_dyntick_cpu -> wake_up_full_nohz_cpu ->
// tick_nohz_full_kick_cpu): the kick's irq_work runs nohz_full_kick_func(), which is
// empty unless the 2026 series P1(a) makes a polling CPU leave its poll loop.
void GuestCpu::add_timer(sim_ns delay, std::function<void(GuestCpu&, const WheelTimer&)> fn) {
  std::uint64_t dj = static_cast<std::uint64_t>((delay + k_.tick_nsec() - 1) / k_.tick_nsec());
  WheelTimer t;
  t.fn = std::move(fn);
  t.queued_at = now();
  wheel_.add(k_.jiffies + std::max<std::uint64_t>(dj, 1), k_.jiffies, std::move(t));
  if (k_.tick_nohz_full_cpu(id_) && tick_.tick_nohz_tick_stopped()) {
    ++idle_stats.nohz_kicks;
    if (k_.params().series.p1_kick && polling) need_resched = true;
  }
}

// A cost of 0 (a path a scenario leaves inside another's figure) charges nothing and draws
// nothing: Rng::spread() returns it as it is.
void GuestCpu::kernel_work(sim_ns ns) { kernel_spin(kernel_cost(ns)); }

void GuestCpu::kernel_spin(sim_ns ns) {
  while (ns > 0) ns = hw_->run(ns);
}

// Real kernel paths vary (caches, branch predictors, a nested host's own exits): fixed
// costs phase-lock loops that meet on a lock so they never collide (issue 43 step 0).
// No draw at guest.costs.sigma 0, so those runs keep their numbers.
sim_ns GuestCpu::kernel_cost(sim_ns mean) { return cost_rng_.spread(mean, k_.params().costs.sigma); }

// guest.costs.cputime_update_ns per accounting update made on this path (0: the updates
// are part of idle_enter_ns / idle_exit_ns / irq_entry_ns, as before it existed).
void GuestCpu::charge_cputime_updates() {
  std::uint64_t n = cputime_.take_updates();
  if (sim_ns c = k_.params().costs.cputime_update_ns; c > 0 && n > 0) kernel_work(static_cast<sim_ns>(n) * c);
}

// The interrupt entry: irq_enter_rcu() -> handler -> irq_exit_rcu().
void GuestCpu::handle_irq(IrqVector v) {
  ++irqs[static_cast<size_t>(v)];
  if (tracing()) trace::irq(now(), id_, v);
  GuestCpuState prev = state();
  irq_from_ = prev;
  enter_state(GuestCpuState::Irq);
  tick_.tick_nohz_irq_enter();
  const sim_ns irq_start = now();  // account_hardirq_enter(): irqtime's start stamp
  charge_cputime_updates();
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
      if (tracing()) trace::device_irq(now(), id_);
      hw_->run(c.io_complete_ns);  // virtio-blk vring interrupt: complete the bios
      for (std::uint64_t req : hw_->io_completions()) k_.complete_request(req, *this);
      break;
    default:
      break;
  }
  cputime_.irqtime_account_irq(now() - irq_start);  // account_hardirq_exit()
  tick_.tick_nohz_irq_exit();
  charge_cputime_updates();
  enter_state(prev);
}

// Kernel housekeeping timers on the wheel (vmstat, writeback, ...): self-rearming,
// exponentially spaced at guest.timers.background_hz.
void GuestCpu::arm_background_timer() {
  double hz = k_.params().background_timer_hz;
  sim_ns delay = rng_.exponential(static_cast<sim_ns>(1e9 / hz));
  add_timer(delay, [](GuestCpu& c, const WheelTimer&) {
    ++c.idle_stats.background_timers;
    c.arm_background_timer();
  });
}

// The CPU's own part of cpu_down() (kernel/cpu.c takedown_cpu() -> take_cpu_down() and
// the CPUHP_AP_*_DYING steps): it leaves cpu_active_mask and cpu_online_mask, so no
// wake-up or balance picks it; its queued calls run (smpcfd_dying_cpu); every task moves
// to an online CPU it may run on (sched_cpu_dying(), select_fallback_rq()) and that CPU
// is told (wakeup_preempt(): an IPI to an idle one); its tick stops and the jiffies duty
// is handed over (tick_sched_timer_dying(), tick_handover_do_timer()); its hrtimers and
// timer-wheel timers move to the first online CPU (hrtimers_cpu_dying(),
// timers_dead_cpu()), which reprograms its own device on a CALL_FUNCTION IPI
// (retrigger_next_event()); its idle accounting stops. Then it plays dead until cpu_up().
void GuestCpu::go_offline() {
  offline_pending = false;
  flush_smp_call_function_queue();  // wake-ups queued here become runnable here, then move
  online_ = false;
  k_.update_max_interval();
  if (curr) {
    update_curr();
    curr->state = TaskState::Runnable;
    curr->on_cpu = false;
    rq.push_back(curr);
    curr = nullptr;
  }
  while (!delayed.empty()) finish_delayed_dequeue_entity(*delayed.front());  // sleepers: off the queue
  std::vector<Task*> moving = rq;
  if (k_.sched().fair == FairPolicy::Eevdf) {
    for (Task* t : moving) {  // migrate_tasks(): dequeued one by one, each with its lag
      update_entity_lag(*t);
      rq.erase(std::find(rq.begin(), rq.end(), t));
    }
  }
  rq.clear();
  rq_changed();
  for (Task* t : moving) {
    GuestCpu& to = k_.cpu(k_.select_fallback_rq(*t));
    if (tracing()) trace::sched_migrate_task(now(), id_, t->pid, id_, to.id(), "hotplug");
    t->vruntime = t->vruntime - min_vruntime + to.min_vruntime;
    ++k_.sched_stats.migrate_hotplug;
    k_.enqueue_task(to, *t, false);
    k_.wakeup_preempt(to, *t, *this);
  }
  hw_->local_irq_disable();
  sim_ns t = now();
  cputime_.stop_idle(t);
  cputime_.dyntick_stop(t, hw_->steal_clock());
  tick_.tick_sched_timer_dying();
  tick_.tick_handover_do_timer();
  k_.nohz_balance_exit_idle(*this);
  GuestCpu& ncpu = k_.cpu(k_.first_online_cpu());
  if (&ncpu != this) {
    hrtimers_.migrate_to(ncpu.hrtimers());
    wheel_.migrate_to(ncpu.wheel());
    ncpu.retrigger_pending = true;
    ncpu.hw().revoke_local();
    send_call_function_single_ipi(ncpu, "hrtimers_cpu_dying");
  }
  trace::cpu_offline(t, id_);
  enter_state(GuestCpuState::Halted);
  hw_->cpu_off();
  // start_secondary(): back online
  online_ = true;
  k_.update_max_interval();
  rq_changed();
  need_resched = false;
  enter_state(GuestCpuState::Idle);
  if (tracing()) trace::cpu_online(now(), id_);
  tick_.tick_setup_sched_timer(now());
  hw_->local_irq_enable();
}

void GuestCpu::cpu_startup_entry() {
  time_.start(GuestCpuState::Idle, now());
  if (tracing()) trace::guest_cpu_state(now(), id_, GuestCpuState::Idle);
  hw_->local_irq_disable();
  tick_.tick_setup_sched_timer(now());
  for (auto& [t, delay] : boot_sleepers) hrtimers_.start(t->sleep_timer, now() + delay, k_.params().timer_slack_ns);
  next_balance = now() + (sd.empty() ? 0 : k_.get_sd_balance_interval(sd.front(), false));
  if (k_.params().background_timer_hz > 0) arm_background_timer();
  // cpuidle-haltpoll: haltpoll_cpu_online() -> arch_haltpoll_enable(): on x86 the host stops
  // halt polling (MSR_KVM_POLL_CONTROL); arm64's is empty (no such MSR), KVM keeps polling
  if (k_.params().cpuidle.driver == CpuidleDriver::Haltpoll && k_.params().isa == Isa::X86_64) hw_->write_poll_control(false);
  hw_->local_irq_enable();
  k_.packing_update(now(), LbCause::Other);  // the tasks this CPU boots with
  for (;;) {
    schedule();
    if (offline_pending) go_offline();
    else if (curr) run_task_program(*this, *curr);
    else do_idle();
  }
}

}  // namespace vtick
