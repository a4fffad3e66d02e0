// The guest's per-vCPU timer as KVM emulates it. In guest mode a hardware timer fires at
// the guest's deadline (x86: the VMX preemption timer, "hv timer"; arm64: the vtimer);
// while the vCPU thread is blocked a host hrtimer stands in for it (x86: the sw timer,
// started timer_advance_ns early; arm64: bg_timer). host/x86_lapic.cpp and
// host/arm64_timer.cpp are the two; KvmVcpu asks them when the timer fires and tells them
// when the thread blocks and re-enters.
#pragma once
#include <memory>

#include "core/time.hpp"
#include "platform/arch.hpp"

namespace vtick {

struct KvmParams;
struct VcpuStats;

class VcpuTimer {
 public:
  virtual ~VcpuTimer() = default;
  static std::unique_ptr<VcpuTimer> create(Isa isa, const KvmParams& kp, double ghz);

  // The guest's register writes: the deadline (TSC_DEADLINE / CNTV_CVAL) and whether the
  // timer is enabled (LVTT unmasked / CNTV_CTL.ENABLE).
  virtual void write_deadline(sim_ns deadline) = 0;
  virtual void write_control(bool enabled) = 0;
  bool armed() const { return enabled_ && deadline_ != 0; }
  sim_ns deadline() const { return armed() ? deadline_ : KTIME_MAX; }

  // When it fires: in guest mode at the deadline, outside it when the host timer does.
  virtual sim_ns fire_time(bool /*guest_mode*/) const { return armed() ? deadline_ : KTIME_MAX; }
  // The timer expires at `now` if it is due: the expiry of a TSC-deadline timer clears
  // the deadline (the MSR reads 0), the vtimer's condition holds until rewritten.
  // Returns whether it fired (the caller makes LOCAL_TIMER pending).
  virtual bool expire_if_due(sim_ns now, bool in_guest, int vcpu) = 0;
  // kvm_arch_vcpu_blocking() / _unblocking(): the hardware timer hands over to the host's.
  virtual void vcpu_blocking(VcpuStats& st) = 0;
  virtual void vcpu_unblocking() = 0;
  // Busy-wait owed on entry so the guest never sees its timer early (x86 advance).
  virtual sim_ns wait_before_entry(sim_ns /*now*/) { return 0; }
  virtual sim_ns timer_advance_ns() const { return 0; }
  // INIT / CPU_ON resets the timer.
  virtual void reset() { deadline_ = 0; }

 protected:
  sim_ns deadline_ = 0;  // 0: disarmed
  bool enabled_ = false;
};

}  // namespace vtick
