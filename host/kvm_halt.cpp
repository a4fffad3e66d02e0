// virt/kvm/kvm_main.c: grow_halt_poll_ns, shrink_halt_poll_ns, the tail of kvm_vcpu_halt.
#include "host/kvm_halt.hpp"
#include "core/warn.hpp"

namespace vtick {

sim_ns kvm_vcpu_max_halt_poll_ns(const KvmParams& p) {
  return p.max_halt_poll_ns >= 0 ? p.max_halt_poll_ns : p.halt_poll_ns;
}

// Not capped here: kvm_vcpu_halt() clamps halt_poll_ns to the max on the next halt.
sim_ns grow_halt_poll_ns(const KvmParams& p, sim_ns cur) {
  if (p.halt_poll_ns_grow == 0) return cur;  // grow == 0: polling never grows
  sim_ns val = cur * static_cast<sim_ns>(p.halt_poll_ns_grow);
  if (val < p.halt_poll_ns_grow_start) val = p.halt_poll_ns_grow_start;
  return val;
}

sim_ns shrink_halt_poll_ns(const KvmParams& p, sim_ns cur) {
  sim_ns val = p.halt_poll_ns_shrink ? cur / static_cast<sim_ns>(p.halt_poll_ns_shrink) : 0;
  if (val < p.halt_poll_ns_grow_start) val = 0;
  return val;
}

sim_ns adjust_halt_poll_ns(const KvmParams& p, sim_ns cur, sim_ns halt_ns, bool poll_allowed, KvmHaltStats& st) {
  if (!poll_allowed) return cur;
  // vcpu_valid_wakeup() is always true outside s390.
  sim_ns max = kvm_vcpu_max_halt_poll_ns(p);
  sim_ns next = cur;
  if (max == 0) {
    next = 0;  // polling disabled for this VM
  } else if (halt_ns <= cur) {
    // the poll window covered the halt: keep it
  } else if (cur && halt_ns > max) {
    next = shrink_halt_poll_ns(p, cur);  // long block: polling was wasted
  } else if (cur < max && halt_ns < max) {
    next = grow_halt_poll_ns(p, cur);  // short halt, poll window too small
  }
  if (next > cur) ++st.halt_poll_grow;
  if (next < cur) ++st.halt_poll_shrink;
  return next;
}

void update_halt_poll_stats(KvmHaltStats& st, sim_ns poll_ns, bool success) {
  ++st.halt_attempted_poll;
  if (success) {
    ++st.halt_successful_poll;
    st.halt_poll_success_ns += poll_ns;
  } else {
    st.halt_poll_fail_ns += poll_ns;
  }
}

}  // namespace vtick

// --- the halt path of a vCPU thread --------------------------------------------

#include "core/sg.hpp"
#include "core/trace.hpp"
#include "host/kvm.hpp"
#include "host/kvm_vcpu.hpp"

namespace vtick {

// kvm_vcpu_kick(): the waker's side. A running target gets the notification (posted-
// interrupt IPI, arm64 kick); a blocked one is woken by it (kvm_vcpu_wake_up(), whose
// cost the waker pays: KvmVcpu::send_ipi()); a target in a poll sees it. The target's
// actor takes each in the order of arrival.
void KvmVcpu::kvm_vcpu_kick() { bell_.ring(); }

// kvm_vcpu_wake_up(): rcuwait_wake_up() of the blocked vCPU thread (halt_wakeup), by the
// sw hrtimer (apic_timer_fn / kvm_bg_timer_expire) or an interrupt's sender (send_ipi()).
void KvmVcpu::kvm_vcpu_wake_up(bool by_timer) {
  ++st_.halt.halt_wakeup;
  ++(by_timer ? st_.timer_wakeups : st_.ipi_wakeups);
  vm_.sched().wake(thread_);
}

// Waits for notifications or the guest timer until `until`, making what arrives pending.
void KvmVcpu::wait_for_wake(sim_ns until) {
  next_step_host_only();  // what follows is the halt's own code (the speed report's count)
  wait_event(bell_, std::min(until, next_event_time()));
  process_events(false);
}

// kvm_vcpu_block(): schedule out until kvm_vcpu_check_block() sees an event. Returns
// whether the thread really scheduled out ("waited").
bool KvmVcpu::kvm_vcpu_block(sim_ns& pending) {
  const ArchCosts& c = vm_.costs();
  HostScheduler& hs = vm_.sched();
  if (tracing()) trace::kvm_vcpu_block(now(), id_);
  set_state(VcpuState::Exit);
  next_step_host_only();
  host_work(c.vcpu_block_ns);  // kvm_arch_vcpu_blocking(), sw timer / bg_timer start, schedule()
  process_events(false);
  if (kvm_vcpu_check_block()) return false;
  ++st_.blocks;
  timer_->vcpu_blocking(st_);  // kvm_arch_vcpu_blocking(): hv -> sw timer / bg_timer
  // the guest's armed timer is now a host hrtimer on this CPU: the idle governor sees it
  thread_.next_timer = timer_->deadline();
  hs.schedule_out(thread_, false);
  scheduled_out_ = true;
  set_state(VcpuState::Blocked);
  bool by_timer = false;
  while (!kvm_vcpu_check_block()) {
    std::uint64_t timer_before = st_.timer_fired;
    wait_for_wake(KTIME_MAX);
    by_timer = st_.timer_fired != timer_before;
  }
  // woken, the thread waits for its hardware thread (C-state exit, or another thread's
  // turn), then the scheduler switches it in
  kvm_vcpu_wake_up(by_timer);
  set_state(VcpuState::Runnable);
  steal_ns_ += hs.wait_until_running(thread_);  // run_delay: runnable until switched in
  timer_->vcpu_unblocking();                    // kvm_arch_vcpu_unblocking()
  pending = resume_cost(c.vcpu_wakeup_ns);  // vcpu_load, hv timer switch: done on the way into the guest
  // the host timer's callback (apic_timer_fn / kvm_bg_timer_expire) wakes the thread from
  // this CPU's interrupt: its try_to_wake_up() comes first (an IPI's sender paid for it)
  if (by_timer) pending += c.vcpu_kick_wakeup_ns;
  // [not upstream] host/not_upstream.hpp: the amplifier
  if (by_timer) pending += vm_.not_upstream().timer_wakeup_cost(st_.amplified_wakeups, st_.amplifier_ns);
  return true;
}

// Real resumes vary (the host's scheduler, caches, a nested host's own exits): a fixed
// cost would phase-lock guest loops that meet at a wake-up, such as two threads on a lock.
sim_ns KvmVcpu::resume_cost(sim_ns mean) { return wake_rng_.spread(mean, vm_.costs().wake_sigma); }

sim_ns KvmVcpu::poll_open_ns(sim_ns now) const {
  if (halt_start_ < 0) return 0;
  return (halt_poll_end_ < 0 ? now : halt_poll_end_) - halt_start_;
}

// kvm_vcpu_halt(): poll for up to vcpu->halt_poll_ns, then block; adapt the window.
sim_ns KvmVcpu::kvm_vcpu_halt() {
  const KvmParams& p = vm_.params().kvm;
  sim_ns max = kvm_vcpu_max_halt_poll_ns(p);
  bool poll_allowed = poll_control_;  // !kvm_arch_no_poll()
  if (halt_poll_ns_ > max) halt_poll_ns_ = max;
  VTICK_WARN(halt_poll_ns_ < 0, "vCPU ", id_, ": halt_poll_ns ", halt_poll_ns_);
  sim_ns start = now();
  halt_start_ = start;
  halt_poll_end_ = -1;
  trace::kvm_vcpu_halt(start, id_, halt_poll_ns_, poll_allowed);
  // [not upstream] host/not_upstream.hpp: upstream polls for vcpu->halt_poll_ns; the
  // timer-aware policies may change the window or keep the hardware thread
  HaltPlan plan = vm_.not_upstream().plan_halt(poll_allowed ? halt_poll_ns_ : 0, guest_timer_in(start), st_.aware);
  bool do_poll = plan.poll_ns > 0;
  sim_ns poll_end = start;
  bool woke_in_poll = false;
  if (do_poll) {
    sim_ns stop = start + plan.poll_ns;
    set_state(VcpuState::HaltPoll);
    for (;;) {
      if (kvm_vcpu_check_block()) { woke_in_poll = true; break; }
      // kvm_vcpu_can_poll(): window over, or another host task wants this CPU
      if (now() >= stop || !vm_.sched().single_task_running(thread_)) break;
      wait_for_wake(stop);
    }
    poll_end = now();
    trace::halt_poll_end(poll_end, id_, poll_end - start, woke_in_poll);
  }
  halt_poll_end_ = poll_end;
  sim_ns pending = 0;
  bool waited = false;
  // [not upstream] the amplifier: a halt ended by the guest's own timer while polling
  if (woke_in_poll && (irr_ & (1u << static_cast<unsigned>(IrqVector::LocalTimer))))
    pending += vm_.not_upstream().timer_wakeup_cost(st_.amplified_wakeups, st_.amplifier_ns);
  if (!woke_in_poll) {
    if (plan.keep_cpu) {  // [not upstream] idle reclaim keeps an imminent-timer vCPU spinning...
      set_state(VcpuState::HaltPoll);
      while (!kvm_vcpu_check_block() && vm_.sched().single_task_running(thread_)) wait_for_wake(KTIME_MAX);
    }
    // ... until another host task wants the CPU, as kvm_vcpu_can_poll() would stop a poll
    if (!kvm_vcpu_check_block()) waited = kvm_vcpu_block(pending);
  }
  sim_ns cur = now();
  if (waited) st_.halt.halt_wait_ns += cur - poll_end;
  if (do_poll) update_halt_poll_stats(st_.halt, poll_end - start, !waited);
  halt_start_ = -1;
  sim_ns old = halt_poll_ns_;
  halt_poll_ns_ = adjust_halt_poll_ns(p, halt_poll_ns_, cur - start, poll_allowed, st_.halt);
  trace::kvm_vcpu_wakeup(cur, id_, cur - start, waited);
  if (halt_poll_ns_ != old) trace::kvm_halt_poll_ns(cur, id_, halt_poll_ns_, old);
  return pending;
}

}  // namespace vtick
