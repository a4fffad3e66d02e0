// Not upstream (no kernel file): the host behaviours of host/not_upstream.hpp.
#include "host/not_upstream.hpp"

#include <algorithm>

#include "host/kvm_params.hpp"

namespace vtick {

VTICK_PARAM_TABLE(TimerAwareParams, VTICK_TIMER_AWARE_PARAMS)
VTICK_PARAM_CTOR(TimerAwareParams)

HaltPlan NotUpstream::plan_halt(sim_ns adaptive, sim_ns to_timer, TimerAwareStats& st) const {
  const TimerAwareParams& t = p_.timer_aware;
  HaltPlan plan{adaptive, false};
  if (t.reclaim) {
    if (to_timer > t.reclaim_threshold) {
      ++st.reclaims;
      return {0, false};
    }
    ++st.keeps;
    return {0, true};
  }
  if (t.timer_poll != TimerPoll::Off && to_timer > 0 && to_timer <= t.timer_poll_threshold) {
    ++st.timer_polls;
    plan.poll_ns = t.timer_poll == TimerPoll::Replace ? to_timer : std::max(adaptive, to_timer);
  }
  return plan;
}

// The amplifier: a question, not a cost (how much would a tick wake-up have to cost?).
sim_ns NotUpstream::timer_wakeup_cost(std::uint64_t& wakeups, sim_ns& total) const {
  sim_ns a = p_.tick_wakeup_cost;
  if (a > 0) {
    ++wakeups;
    total += a;
  }
  return a;
}

}  // namespace vtick
