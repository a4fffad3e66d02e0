#include "host/timer_aware.hpp"

#include <algorithm>

#include "host/kvm_params.hpp"
#include "host/kvm_vcpu.hpp"

namespace vtick {

VTICK_PARAM_TABLE(TimerAwareParams, VTICK_TIMER_AWARE_PARAMS)
VTICK_PARAM_CTOR(TimerAwareParams)

HaltPlan plan_halt(const HostParams& p, sim_ns adaptive, sim_ns to_timer, VcpuStats& st) {
  const TimerAwareParams& t = p.timer_aware;
  HaltPlan plan{adaptive, false};
  if (t.reclaim) {
    if (to_timer > t.reclaim_threshold) {
      ++st.aware.reclaims;
      return {0, false};
    }
    ++st.aware.keeps;
    return {0, true};
  }
  if (t.timer_poll != TimerPoll::Off && to_timer > 0 && to_timer <= t.timer_poll_threshold) {
    ++st.aware.timer_polls;
    plan.poll_ns = t.timer_poll == TimerPoll::Replace ? to_timer : std::max(adaptive, to_timer);
  }
  return plan;
}

}  // namespace vtick
