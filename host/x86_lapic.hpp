// arch/x86/kvm/lapic.c: the LAPIC timer in TSC-deadline mode with the hv (VMX preemption)
// timer in guest mode, the sw hrtimer outside it, and the adaptive timer advance.
#pragma once
#include "host/vcpu_timer.hpp"

namespace vtick {

// lapic.c's constants (LAPIC_TIMER_ADVANCE_ADJUST_MIN/_MAX in TSC cycles).
inline constexpr sim_ns LAPIC_TIMER_ADVANCE_NS_INIT = 1000;
inline constexpr sim_ns LAPIC_TIMER_ADVANCE_NS_MAX = 5000;
inline constexpr double LAPIC_TIMER_ADVANCE_ADJUST_MIN = 100;
inline constexpr double LAPIC_TIMER_ADVANCE_ADJUST_MAX = 10000;
inline constexpr sim_ns LAPIC_TIMER_ADVANCE_ADJUST_STEP = 8;

class LapicTimer final : public VcpuTimer {
 public:
  LapicTimer(bool lapic_timer_advance, double ghz);
  void write_deadline(sim_ns deadline) override { start_apic_timer(deadline); }
  void write_control(bool enabled) override;
  sim_ns fire_time(bool guest_mode) const override;
  bool expire_if_due(sim_ns now, bool in_guest, int vcpu) override;
  void vcpu_blocking(VcpuStats& st) override { kvm_lapic_switch_to_sw_timer(st); }
  void vcpu_unblocking() override { kvm_lapic_switch_to_hv_timer(); }
  sim_ns wait_before_entry(sim_ns now) override { return kvm_wait_lapic_expire(now); }
  sim_ns timer_advance_ns() const override { return timer_advance_ns_; }
  void reset() override {  // INIT: kvm_lapic_reset() cancels the timer
    deadline_ = 0;
    hv_timer_in_use_ = false;
  }

 private:
  void start_apic_timer(sim_ns deadline);  // kvm_set_lapic_tscdeadline_msr()
  void apic_timer_expired(sim_ns now, bool in_guest, int vcpu);
  void kvm_lapic_switch_to_sw_timer(VcpuStats& st);
  void kvm_lapic_switch_to_hv_timer();
  sim_ns kvm_wait_lapic_expire(sim_ns now);  // __kvm_wait_lapic_expire()
  void adjust_lapic_timer_advance(sim_ns advance_expire_delta);

  double ghz_;
  sim_ns timer_advance_ns_;
  bool hv_timer_in_use_ = false;
  sim_ns expired_tscdeadline_ = 0;  // a sw timer that fired early, by the advance
};

}  // namespace vtick
