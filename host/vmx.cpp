// arch/x86/kvm/vmx/vmx.c: the VM-entry mitigations (vmx_l1d_flush(), VERW) and pause-loop
// exiting (handle_pause(), grow_ple_window(), shrink_ple_window()).
#include <algorithm>

#include "host/kvm.hpp"
#include "host/kvm_vcpu.hpp"

namespace vtick {

// The entry mitigations of this entry: vmx_l1d_flush() ("cond": after the thread was
// scheduled out, kvm_arch_sched_in sets l1tf_flush_l1d) and the MDS VERW.
sim_ns KvmVcpu::entry_mitigation() {
  const HostParams& hp = vm_.params();
  const ArchCosts& c = vm_.costs();
  sim_ns m = 0;
  if (hp.l1d_flush == L1dFlush::Always || (hp.l1d_flush == L1dFlush::Cond && scheduled_out_)) {
    m += c.l1d_flush_ns;
    ++st_.l1d_flushes;
  }
  if (hp.mds_clear) {
    m += c.mds_clear_ns;
    ++st_.verw_clears;
  }
  return m;
}

// EXIT_REASON_PAUSE_INSTRUCTION: grow_ple_window() (doubling up to ple_window_max), then
// kvm_vcpu_on_spin() finds nobody to yield to.
void KvmVcpu::handle_pause() {
  const KvmParams& kp = vm_.params().kvm;
  ++st_.exits.pause;
  kvm_exit(ExitReason::Pause);
  ple_window_ = std::min<std::uint64_t>(ple_window_ * kp.ple_window_grow, kp.ple_window_max);
  enter_guest(vm_.costs().vmexit_ns + vm_.costs().hlt_exit_ns);
}

// vmx_vcpu_sched_in() -> shrink_ple_window(): divided, or back to ple_window (shrink 0).
void KvmVcpu::shrink_ple_window() {
  const KvmParams& kp = vm_.params().kvm;
  ple_window_ = kp.ple_window_shrink ? std::max<std::uint64_t>(kp.ple_window, ple_window_ / kp.ple_window_shrink) : kp.ple_window;
}

}  // namespace vtick
