// arch/arm64/kvm/arch_timer.c: the guest's virtual timer, direct in guest mode (CNTV_CVAL
// and CNTV_CTL written without a trap) and a host hrtimer (bg_timer) while blocked.
#pragma once
#include "host/vcpu_timer.hpp"

namespace vtick {

class ArchTimer final : public VcpuTimer {
 public:
  void write_deadline(sim_ns cval) override { deadline_ = cval; }
  void write_control(bool enable) override { enabled_ = enable; }
  bool expire_if_due(sim_ns now, bool in_guest, int vcpu) override;
  void vcpu_blocking(VcpuStats&) override { kvm_timer_blocking(); }
  void vcpu_unblocking() override { kvm_timer_unblocking(); }

 private:
  void kvm_timer_update_irq(sim_ns now, bool in_guest, int vcpu);
  // bg_timer is armed at the deadline while blocked and cancelled after: the blocked
  // thread's wait ends at fire_time(false), which is that deadline.
  void kvm_timer_blocking() {}
  void kvm_timer_unblocking() {}
};

}  // namespace vtick
