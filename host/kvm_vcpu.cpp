// arch/x86/kvm/x86.c vcpu_run()/vcpu_enter_guest() (arm64: arm.c kvm_arch_vcpu_ioctl_run),
// reduced to what the guest's idle and tick behaviour touches: guest-mode execution, exits,
// interrupt injection.
#include "host/kvm_vcpu.hpp"

#include <simgrid/s4u/Exec.hpp>

#include "core/trace.hpp"

#include "host/kvm.hpp"

namespace vtick {

const char* vcpu_state_name(VcpuState s) {
  switch (s) {
    case VcpuState::Guest: return "guest";
    case VcpuState::Exit: return "exit";
    case VcpuState::HaltPoll: return "halt_poll";
    case VcpuState::Blocked: return "blocked";
    case VcpuState::Runnable: return "runnable";
    default: return "?";
  }
}

const char* exit_reason_name(ExitReason r, bool x86) {
  switch (r) {
    case ExitReason::Hlt: return x86 ? "HLT" : "WFx";
    case ExitReason::TscDeadline: return x86 ? "MSR_WRITE TSC_DEADLINE" : "SYS64 CNTV_CVAL";
    case ExitReason::Lvtt: return x86 ? "MSR_WRITE x2APIC LVTT" : "SYS64 CNTV_CTL";
    case ExitReason::Ipi: return x86 ? "MSR_WRITE x2APIC ICR" : "SYS64 ICC_SGI1R";
    case ExitReason::TimerExpiry: return x86 ? "PREEMPTION_TIMER" : "IRQ vtimer";
    case ExitReason::ExternalInterrupt: return x86 ? "EXTERNAL_INTERRUPT" : "IRQ";
    case ExitReason::Kick: return x86 ? "EXTERNAL_INTERRUPT kick" : "IRQ kick";
    case ExitReason::Pause: return x86 ? "PAUSE_INSTRUCTION" : "WFx YIELD";
    case ExitReason::PollControl: return x86 ? "MSR_WRITE POLL_CONTROL" : "HVC";
    case ExitReason::Io: return x86 ? "EPT_MISCONFIG virtio" : "DABT_LOW virtio";
    case ExitReason::Net: return x86 ? "EPT_MISCONFIG virtio-net" : "DABT_LOW virtio-net";
  }
  return "?";
}

static std::uint32_t bit(IrqVector v) { return 1u << static_cast<unsigned>(v); }

KvmVcpu::KvmVcpu(Kvm& vm, int id, HwThread& hw)
    : vm_(vm), id_(id), hw_(hw), bell_("vcpu" + std::to_string(id) + ".notify"),
      wake_rng_(vm.seed(), "host/vcpu" + std::to_string(id) + "/wake") {}

KvmVcpu::~KvmVcpu() = default;

void KvmVcpu::set_guest(GuestIrqSink* idt, std::function<void()> guest_main) {
  idt_ = idt;
  guest_main_ = std::move(guest_main);
}

void KvmVcpu::start() {
  const KvmParams& kp = vm_.params().kvm;
  timer_ = VcpuTimer::create(vm_.costs().isa, kp, vm_.costs().ghz);
  ple_window_ = kp.ple_window;
  thread_.name = "vcpu" + std::to_string(id_);
  thread_.bell = &bell_;
  thread_.is_vcpu = true;
  int n = vm_.sched().nr_cpus();
  thread_.allowed = vm_.params().pinning == Pinning::Shared ? (n >= 64 ? ~0ULL : (1ULL << n) - 1) : 1ULL << hw_.id();
  vm_.sched().add_running(thread_, hw_.id());
  spawn_actor("vcpu" + std::to_string(id_), hw_.host(), [this] { thread_main(); });
}

// The vCPU thread: KVM_RUN enters guest mode and the guest kernel boots.
void KvmVcpu::thread_main() {
  bell_.claim();  // other CPUs may revoke its promises before it first waits
  time_.start(VcpuState::Guest, now());
  if (tracing()) trace::kvm_vcpu_state(now(), id_, VcpuState::Guest, cur_hw().id());
  cur_hw().set_activity(HwActivity::Guest, now());
  guest_main_();
}

sim_ns KvmVcpu::clock() const { return now(); }

// The hardware thread's activity follows the vCPU thread only while it runs there;
// blocked or waiting, the host scheduler and the next thread decide what the thread does.
void KvmVcpu::set_state(VcpuState s) {
  sim_ns t = now();
  time_.enter(s, t);
  if (tracing()) trace::kvm_vcpu_state(t, id_, s, cur_hw().id());
  switch (s) {
    case VcpuState::Guest: cur_hw().set_activity(HwActivity::Guest, t); break;
    case VcpuState::Exit: cur_hw().set_activity(HwActivity::HostKernel, t); break;
    case VcpuState::HaltPoll: cur_hw().set_activity(HwActivity::HaltPoll, t); break;
    default: break;
  }
}

// The end of an exit and vcpu_enter_guest(): `handling` ns of exit handling, the
// reschedule if the host wants the CPU (xfer_to_guest_mode work), the entry mitigations,
// then guest mode. One execution when nothing intervenes.
void KvmVcpu::enter_guest(sim_ns handling) {
  HostScheduler& hs = vm_.sched();
  bool resched = hs.must_yield(thread_);
  sim_ns work = handling + (resched ? 0 : entry_mitigation());
  if (work) {
    set_state(VcpuState::Exit);
    host_work(work);
  }
  process_events(false);
  if (resched || hs.must_yield(thread_)) {
    hs.schedule_out(thread_, true);
    set_state(VcpuState::Runnable);
    preempted_ = true;  // kvm_sched_out() of a runnable vCPU: kvm_steal_time_set_preempted()
    steal_ns_ += hs.wait_until_running(thread_);
    preempted_ = false;  // record_steal_time() on the way back in clears it
    // Interrupts that arrived while preempted were only posted (x86: PIR with SN set, no
    // notification IPI; arm64: pending in the vgic): they are taken on this entry.
    for (const auto& f : inflight_) st_.irqs_while_preempted += f.at <= now();
    scheduled_out_ = true;
    set_state(VcpuState::Exit);
    host_work(hs.params().switch_ns + entry_mitigation());
    process_events(false);
  }
  if (scheduled_out_) shrink_ple_window();
  // __kvm_wait_lapic_expire(): a sw timer that fired early is waited for to its deadline
  if (sim_ns wait = timer_->wait_before_entry(now()); wait > 0) {
    set_state(VcpuState::Exit);
    ++st_.timer_advance_waits;
    st_.timer_advance_wait_ns += wait;
    host_work(wait);
  }
  scheduled_out_ = false;
  ++st_.entries;
  set_state(VcpuState::Guest);
}

// A host interrupt asks this thread to leave its CPU (wake-up preemption or the end of
// its slice): an external-interrupt exit, then the reschedule on the way back in.
void KvmVcpu::preempt_exit() {
  ++st_.exits.external_interrupt;
  kvm_exit(ExitReason::ExternalInterrupt);
  enter_guest(vm_.costs().vmexit_ns + vm_.costs().host_irq_ns);
}

void KvmVcpu::kvm_exit(ExitReason r) {
  ++st_.vm_exits;
  if (tracing()) trace::kvm_exit(now(), id_, r);
}

void KvmVcpu::host_work(sim_ns ns) { execute(cur_hw().host(), ns); }

// In guest mode the hv (preemption) timer fires at the deadline; outside it, the sw
// hrtimer is started timer_advance_ns early (start_sw_tscdeadline).
sim_ns KvmVcpu::next_event_time(bool guest_mode) const {
  sim_ns t = timer_->fire_time(guest_mode);
  for (const auto& f : inflight_) t = std::min(t, f.at);
  // a wake-up preemption already asked for (check_preempt_wakeup) is taken at once
  if (vm_.sched().must_yield(thread_)) return now();
  return std::min(t, vm_.sched().slice_end(thread_));
}

// Makes arrived notifications and an expired guest timer pending. A timer that expires
// in guest mode forces an exit (x86 VMX preemption timer; arm64 vtimer PPI taken by
// the host); anywhere else it is noticed without one.
bool KvmVcpu::process_events(bool in_guest) {
  sim_ns t = now();
  std::uint32_t before = irr_;
  for (size_t i = 0; i < inflight_.size();) {
    if (inflight_[i].at <= t) {
      trace::kvm_apic_accept_irq(t, id_, inflight_[i].v, inflight_[i].at);
      irr_ |= bit(inflight_[i].v);
      if (inflight_[i].has_io) used_ring_.push_back(inflight_[i].io);
      if (in_guest) ++st_.posted_irqs;
      inflight_.erase(inflight_.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  if (timer_->expire_if_due(t, in_guest, id_)) {
    irr_ |= bit(IrqVector::LocalTimer);
    ++st_.timer_fired;
    if (in_guest) {
      ++st_.exits.timer_expiry;
      kvm_exit(ExitReason::TimerExpiry);
      enter_guest(vm_.costs().vmexit_ns + vm_.costs().timer_expiry_ns);
    }
  }
  // x86 with APICv / AVIC posts interrupts to a running vCPU without an exit; without it
  // (a nested host), and arm64 without direct injection, kvm_vcpu_kick() IPIs the vCPU's
  // CPU out of guest mode (an IRQ exit) and the interrupt is injected on entry.
  std::uint32_t arrived = irr_ & ~before & ~bit(IrqVector::LocalTimer);
  const KvmParams& kp = vm_.params().kvm;
  const bool posted = vm_.costs().isa == Isa::Arm64 ? kp.direct_injection : kp.apicv;
  if (in_guest && arrived && !posted) {
    ++st_.exits.kick;
    kvm_exit(ExitReason::Kick);
    enter_guest(vm_.costs().vmexit_ns + vm_.costs().kick_ns);
  }
  if (in_guest && vm_.sched().must_yield(thread_)) preempt_exit();
  return irr_ != before;
}

// Interrupt injection on entry: highest x86 vector first (RESCHEDULE 0xfd,
// CALL_FUNCTION_SINGLE 0xfb, LOCAL_TIMER 0xec).
void KvmVcpu::deliver() {
  static constexpr IrqVector kPriority[] = {IrqVector::Reschedule, IrqVector::CallFunction, IrqVector::LocalTimer,
                                            IrqVector::Device};
  while (if_ && irr_) {
    for (IrqVector v : kPriority) {
      if (!(irr_ & bit(v))) continue;
      irr_ &= ~bit(v);
      if_ = false;
      idt_->handle_irq(v);
      if_ = true;
      break;
    }
  }
}

void KvmVcpu::local_irq_enable() {
  if_ = true;
  if (irr_) deliver();
}

sim_ns KvmVcpu::run(sim_ns work) {
  if (if_ && irr_) {
    deliver();
    return work;
  }
  if (work <= 0) return 0;
  // Short work with nothing due before its end: a plain wait (see core/sg.hpp).
  if (work <= fast_work_ns()) {
    sim_ns end = now() + work_duration(cur_hw().host(), work);
    if (next_event_time(true) >= end) {
      if (!run_ahead(end - now())) sleep_until(end);
      process_events(true);
      if (if_ && irr_) deliver();
      return 0;
    }
  }
  // The guest's work runs as an Exec on the hardware thread; an event cuts it (cancel,
  // keeping what is left) and it restarts, possibly on another hardware thread.
  sim_ns left = work;
  for (;;) {
    bool done;
    if (work_is_timed(cur_hw().sibling() != nullptr)) {  // no Exec
      done = wait_timed_work(bell_, cur_hw().host(), left, next_event_time(true));
    } else {
      simgrid::s4u::ExecPtr ex = start_work(cur_hw().host(), left);
      wait_event(bell_, ex, next_event_time(true));
      done = work_done(ex);
      if (!done) {
        left = work_remaining(ex);
        work_cancel(ex);
      }
    }
    process_events(true);
    if (done) {
      if (if_ && irr_) deliver();
      return 0;
    }
    if (if_ && irr_) {
      deliver();
      return left;
    }
  }
}

void KvmVcpu::exit_to_host(sim_ns handling_ns, std::uint64_t& counter) {
  ++counter;
  enter_guest(vm_.costs().vmexit_ns + handling_ns);
}

// An offlined CPU halts with interrupts disabled (or calls PSCI CPU_OFF): only
// INIT-SIPI / CPU_ON brings it back. Its hardware thread is idle meanwhile.
void KvmVcpu::cpu_off() {
  ++st_.exits.hlt;
  kvm_exit(ExitReason::Hlt);
  set_state(VcpuState::Exit);
  host_work(vm_.costs().vmexit_ns + vm_.costs().hlt_exit_ns);
  powered_off_ = true;
  thread_.next_timer = KTIME_MAX;
  vm_.sched().schedule_out(thread_, false);
  set_state(VcpuState::Blocked);
  while (powered_off_) {
    next_step_host_only();  // (the speed report's count: an offline vCPU's thread waits in the host)
    wait_event(bell_, KTIME_MAX);
  }
  irr_ = 0;  // INIT resets the local APIC
  inflight_.clear();
  timer_->reset();
  HostScheduler& hs = vm_.sched();
  hs.wake(thread_);
  set_state(VcpuState::Runnable);
  steal_ns_ += hs.wait_until_running(thread_);
  scheduled_out_ = true;
  enter_guest(vm_.costs().vcpu_wakeup_ns);
}

void KvmVcpu::power_on() {
  powered_off_ = false;
  bell_.ring();
}

// The guest spins in guest mode: nothing exits (pause-loop exiting comes with the host
// model); to its SMT sibling the thread is a spinning one.
void KvmVcpu::poll_wait(sim_ns until) {
  if_ = true;
  if (irr_) {
    deliver();
    return;
  }
  // pause-loop exiting (x86): spinning longer than the PLE window exits (host/vmx.cpp)
  const KvmParams& kp = vm_.params().kvm;
  bool ple = vm_.costs().isa == Isa::X86_64 && kp.ple_gap > 0 && !kp.hlt_passthrough;
  sim_ns ple_at = ple ? now() + static_cast<sim_ns>(static_cast<double>(ple_window_) / vm_.costs().ghz) : KTIME_MAX;
  cur_hw().set_activity(HwActivity::GuestPoll, now());
  wait_event(bell_, std::min({until, next_event_time(true), ple_at}));
  cur_hw().set_activity(HwActivity::Guest, now());
  if (now() >= ple_at && !irr_) handle_pause();
  process_events(true);
  if (irr_) deliver();
}

// x86: WRMSR IA32_TSC_DEADLINE exits (handle_fastpath_set_msr_irqoff ->
// kvm_set_lapic_tscdeadline_msr -> start_apic_timer); arm64: CNTV_CVAL_EL0 is the guest's.
void KvmVcpu::timer_write_deadline(sim_ns deadline) {
  timer_->write_deadline(deadline);
  const ArchCosts& c = vm_.costs();
  if (c.timer_write_exits) {
    kvm_exit(ExitReason::TscDeadline);
    exit_to_host(c.timer_write_ns, st_.exits.msr_tsc_deadline);  // fastpath
  } else {
    execute(cur_hw().host(), c.guest_timer_write_ns);  // CNTV_CVAL_EL0: no trap
    process_events(true);
  }
}

void KvmVcpu::timer_write_control(bool enabled) {
  timer_->write_control(enabled);
  const ArchCosts& c = vm_.costs();
  if (c.timer_write_exits) {
    kvm_exit(ExitReason::Lvtt);
    exit_to_host(c.timer_ctl_ns, st_.exits.apic_lvtt);
  } else {
    execute(cur_hw().host(), c.guest_timer_write_ns);  // CNTV_CTL_EL0: no trap
    process_events(true);
  }
}

// x2APIC ICR write / ICC_SGI1R_EL1: the sender exits, KVM posts the interrupt to the
// target (kvm_apic_send_ipi -> __apic_accept_irq / vgic_v3_dispatch_sgi -> kick). A
// target that is not in guest mode and has blocked is woken by the sender, in this exit:
// vmx_deliver_posted_interrupt() -> kvm_vcpu_trigger_posted_interrupt() ->
// kvm_vcpu_wake_up() (kvm_vcpu_kick() on SVM and arm64), the host's try_to_wake_up() of
// its thread; its hardware thread starts waking only then.
void KvmVcpu::send_ipi(int dest_cpu, IrqVector v) {
  const ArchCosts& c = vm_.costs();
  ++st_.exits.ipi;
  kvm_exit(ExitReason::Ipi);
  KvmVcpu& target = vm_.vcpu(dest_cpu);
  sim_ns handling = c.ipi_send_ns;
  if (target.time_.current() == VcpuState::Blocked) {
    handling += c.vcpu_kick_wakeup_ns;
    ++st_.kick_wakeups;
  }
  // posted by the exit handler: it reaches the target after the handling and delivery
  target.kvm_apic_accept_irq(v, now() + c.vmexit_ns + handling + c.ipi_deliver_ns);
  enter_guest(c.vmexit_ns + handling);
}

void KvmVcpu::write_poll_control(bool host_poll_allowed) {
  poll_control_ = host_poll_allowed;
  if (vm_.costs().isa == Isa::X86_64) {
    kvm_exit(ExitReason::PollControl);
    exit_to_host(vm_.costs().timer_ctl_ns, st_.exits.msr_poll_control);  // an MSR write on the slow path
  }
}

// virtio-blk notify: an exit (ioeventfd), then the device completes the request after
// the host's I/O latency and interrupts this vCPU.
void KvmVcpu::io_submit(std::uint64_t request) {
  const ArchCosts& c = vm_.costs();
  ++st_.exits.io;
  kvm_exit(ExitReason::Io);
  vm_.io_submit(*this, request, now() + c.vmexit_ns + c.ipi_send_ns);  // the ioeventfd fires in the exit
  enter_guest(c.vmexit_ns + c.ipi_send_ns);
}

// virtio-net TX kick: an exit (ioeventfd to the vhost worker); the peer's reply comes back
// through the vhost thread (or the device alone) as an interrupt on this vCPU.
void KvmVcpu::net_xmit(std::uint64_t request) {
  const ArchCosts& c = vm_.costs();
  ++st_.exits.net;
  kvm_exit(ExitReason::Net);
  vm_.net_xmit(*this, request, now() + c.vmexit_ns + c.ipi_send_ns);
  enter_guest(c.vmexit_ns + c.ipi_send_ns);
}

std::vector<std::uint64_t> KvmVcpu::io_completions() {
  std::vector<std::uint64_t> out;
  out.swap(used_ring_);
  return out;
}

// The device's MSI (irqfd): pending like any interrupt, the completed request with it.
void KvmVcpu::inject_device_irq(std::uint64_t token, sim_ns at) {
  inflight_.push_back({IrqVector::Device, at, true, token});
  kvm_vcpu_kick();
}

void KvmVcpu::inject_device_irq(sim_ns at) {
  inflight_.push_back({IrqVector::Device, at});
  kvm_vcpu_kick();
}

// __apic_accept_irq() (x86, with posted interrupts: the PIR bit and the notification) /
// vgic_v3_dispatch_sgi() (arm64): pending from `at`, when the notification arrives.
void KvmVcpu::kvm_apic_accept_irq(IrqVector v, sim_ns at) {
  inflight_.push_back({v, at});
  kvm_vcpu_kick();
}

}  // namespace vtick
