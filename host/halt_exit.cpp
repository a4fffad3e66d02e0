// arch/x86/kvm/vmx/vmx.c handle_halt() + x86.c kvm_emulate_halt(), arch/arm64/kvm/
// handle_exit.c kvm_handle_wfx() + arm.c kvm_vcpu_wfi(): the guest's HLT / WFI exits, and
// the halts that do not exit (HLT passthrough, WFI not trapped).
#include "host/kvm.hpp"
#include "host/kvm_vcpu.hpp"

namespace vtick {

// The guest's `sti; hlt` / `wfi` (platform/vhw.hpp): an exit unless it is passed through.
void KvmVcpu::safe_halt() {
  if_ = true;
  if (vm_.costs().isa == Isa::X86_64) {
    if (vm_.params().kvm.hlt_passthrough) halt_in_guest();  // KVM_X86_DISABLE_EXITS_HLT
    else handle_halt();
  } else {
    if (kvm_vcpu_should_clear_twi()) halt_in_guest();
    else kvm_handle_wfx();
  }
}

// EXIT_REASON_HLT: the world switch and the exit's handling, then the emulation.
void KvmVcpu::handle_halt() {
  ++st_.exits.hlt;
  kvm_exit(ExitReason::Hlt);
  set_state(VcpuState::Exit);
  host_work(vm_.costs().vmexit_ns + vm_.costs().hlt_exit_ns);
  process_events(false);
  kvm_emulate_halt();
}

// __kvm_emulate_halt() (stat.halt_exits), then vcpu_block(): with an event pending
// (kvm_vcpu_has_events()) the vCPU stays RUNNABLE and re-enters at once, else it halts.
void KvmVcpu::kvm_emulate_halt() {
  ++st_.halt_exits;
  sim_ns pending = 0;
  if (kvm_vcpu_check_block()) ++st_.exits.hlt_fastpath;
  else pending = kvm_vcpu_halt() + resume_cost(vm_.costs().halt_resume_ns);  // kvm_lapic_switch_to_hv_timer(), injection
  enter_guest(pending);
  deliver();
}

// ESR_ELx_EC_WFx: the trap (stat.wfi_exit_stat, kept as halt_exits), then kvm_vcpu_wfi().
void KvmVcpu::kvm_handle_wfx() {
  ++st_.exits.hlt;
  ++st_.halt_exits;
  kvm_exit(ExitReason::Hlt);
  set_state(VcpuState::Exit);
  host_work(vm_.costs().vmexit_ns + vm_.costs().hlt_exit_ns);
  process_events(false);
  kvm_vcpu_wfi();
}

// kvm_vcpu_wfi(): kvm_vgic_vmcr_sync() and vgic_v4_put() (in hlt_exit_ns), kvm_vcpu_halt(),
// then vgic_v4_load() and the vgic flush on the way in (halt_resume_ns), runnable or not.
void KvmVcpu::kvm_vcpu_wfi() {
  sim_ns pending = kvm_vcpu_halt() + resume_cost(vm_.costs().halt_resume_ns);
  enter_guest(pending);
  deliver();
}

// kvm_vcpu_should_clear_twi() at vcpu load: WFI does not trap under notrap, or by default
// when the hardware thread runs this task alone and interrupts are injected directly.
bool KvmVcpu::kvm_vcpu_should_clear_twi() {
  const KvmParams& kp = vm_.params().kvm;
  if (kp.wfi_trap_policy == WfiTrapPolicy::Trap) return false;
  if (kp.wfi_trap_policy == WfiTrapPolicy::NoTrap) return true;
  return vm_.sched().single_task_running(thread_) && kp.direct_injection;
}

// A halt that stays in guest mode: the hardware thread idles (C1 / WFI standby) with the
// vCPU thread still on it; an interrupt wakes it after the C1 exit latency.
void KvmVcpu::halt_in_guest() {
  ++st_.halts_in_guest;
  HwThread& hw = cur_hw();
  while (!irr_) {
    hw.set_cstate(HostCState::C1, now());
    hw.set_activity(HwActivity::Idle, now());
    wait_event(bell_, next_event_time(true));
    sleep_until(now() + vm_.costs().cstate_exit_ns(HostCState::C1));
    cur_hw().set_activity(HwActivity::Guest, now());
    process_events(true);
  }
  deliver();
}

}  // namespace vtick
