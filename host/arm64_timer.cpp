// arch/arm64/kvm/arch_timer.c: kvm_timer_update_irq(), kvm_timer_blocking() / _unblocking().
#include "host/arm64_timer.hpp"

#include "core/trace.hpp"
#include "host/kvm_params.hpp"
#include "host/x86_lapic.hpp"

namespace vtick {

bool ArchTimer::expire_if_due(sim_ns now, bool in_guest, int vcpu) {
  if (!armed() || now < deadline_) return false;
  kvm_timer_update_irq(now, in_guest, vcpu);
  return true;
}

// The timer condition is met: the vtimer PPI is raised. The model treats it as consumed
// (the guest's handler reprograms CVAL), as the TSC deadline reads 0 once fired.
void ArchTimer::kvm_timer_update_irq(sim_ns now, bool in_guest, int vcpu) {
  sim_ns fire_at = deadline_;
  deadline_ = 0;
  trace::kvm_timer_update_irq(now, vcpu, fire_at, in_guest);
}

std::unique_ptr<VcpuTimer> VcpuTimer::create(Isa isa, const KvmParams& kp, double ghz) {
  if (isa == Isa::X86_64) return std::make_unique<LapicTimer>(kp.lapic_timer_advance, ghz);
  return std::make_unique<ArchTimer>();
}

}  // namespace vtick
