// arch/x86/kvm/lapic.c: start_apic_timer(), apic_timer_expired(), the hv <-> sw timer
// switch around blocking, __kvm_wait_lapic_expire() and adjust_lapic_timer_advance().
#include "host/x86_lapic.hpp"

#include "core/trace.hpp"
#include "core/warn.hpp"
#include "host/kvm_params.hpp"
#include "host/kvm_vcpu.hpp"

namespace vtick {

LapicTimer::LapicTimer(bool lapic_timer_advance, double ghz)
    : ghz_(ghz), timer_advance_ns_(lapic_timer_advance ? LAPIC_TIMER_ADVANCE_NS_INIT : 0) {}

// The guest writes IA32_TSC_DEADLINE in guest mode: the hv timer is (re)programmed, or
// cancelled by a 0 deadline.
void LapicTimer::start_apic_timer(sim_ns deadline) {
  deadline_ = deadline;
  hv_timer_in_use_ = armed();
}

// LVTT masked / unmasked.
void LapicTimer::write_control(bool enabled) {
  enabled_ = enabled;
  hv_timer_in_use_ = armed();
}

// In guest mode the hv timer fires at the deadline; outside it the sw hrtimer was
// started timer_advance_ns early (start_sw_tscdeadline()).
sim_ns LapicTimer::fire_time(bool guest_mode) const {
  return armed() ? deadline_ - (guest_mode ? 0 : timer_advance_ns_) : KTIME_MAX;
}

bool LapicTimer::expire_if_due(sim_ns now, bool in_guest, int vcpu) {
  if (!armed() || now < fire_time(in_guest)) return false;
  apic_timer_expired(now, in_guest, vcpu);
  return true;
}

void LapicTimer::apic_timer_expired(sim_ns now, bool in_guest, int vcpu) {
  sim_ns fire_at = fire_time(in_guest);
  if (now < deadline_) expired_tscdeadline_ = deadline_;  // early by the advance: wait on entry
  deadline_ = 0;  // TSC-deadline mode: the MSR reads 0 once the timer fired
  hv_timer_in_use_ = false;
  trace::apic_timer_expired(now, vcpu, fire_at, in_guest);
}

// kvm_lapic_switch_to_sw_timer() from kvm_arch_vcpu_blocking(): the preemption timer
// does not run while the thread is scheduled out; a host hrtimer takes over.
void LapicTimer::kvm_lapic_switch_to_sw_timer(VcpuStats& st) {
  if (!hv_timer_in_use_) return;
  VTICK_WARN(!armed(), "an hv timer in use with the LAPIC timer disarmed");
  hv_timer_in_use_ = false;
  ++st.hv_to_sw_timer;
}

// kvm_lapic_switch_to_hv_timer() on the way back into the guest.
void LapicTimer::kvm_lapic_switch_to_hv_timer() {
  VTICK_WARN(hv_timer_in_use_, "start_hv_timer() with the hv timer already in use");  // start_hv_timer()'s WARN_ON
  hv_timer_in_use_ = armed();
}

// __kvm_wait_lapic_expire(): a sw timer that fired early by the advance is waited for
// to the deadline (a busy-wait before entry), and the advance adapts to the error.
sim_ns LapicTimer::kvm_wait_lapic_expire(sim_ns now) {
  if (!expired_tscdeadline_) return 0;
  sim_ns delta = now - expired_tscdeadline_;
  expired_tscdeadline_ = 0;
  adjust_lapic_timer_advance(delta);
  return delta < 0 ? -delta : 0;
}

// adjust_lapic_timer_advance(): move the advance by 1/8 of an error within
// [ADJUST_MIN, ADJUST_MAX] cycles; an advance beyond the maximum starts over.
void LapicTimer::adjust_lapic_timer_advance(sim_ns delta) {
  double cycles = static_cast<double>(delta < 0 ? -delta : delta) * ghz_;
  if (cycles < LAPIC_TIMER_ADVANCE_ADJUST_MIN || cycles > LAPIC_TIMER_ADVANCE_ADJUST_MAX) return;
  timer_advance_ns_ += delta / LAPIC_TIMER_ADVANCE_ADJUST_STEP;
  if (timer_advance_ns_ > LAPIC_TIMER_ADVANCE_NS_MAX || timer_advance_ns_ < 0) timer_advance_ns_ = LAPIC_TIMER_ADVANCE_NS_INIT;
}


}  // namespace vtick
