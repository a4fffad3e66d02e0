// drivers/cpuidle/governors/ladder.c: the ladder governor (step one state up or down per decision, ns thresholds).
#include <cstdint>

#include "host/cpuidle_gov.hpp"

namespace vtick::cpuidle {  // the host's cpuidle framework (the guest has its own: guest/cpuidle.hpp)

namespace {

constexpr int PROMOTION_COUNT = 4;
constexpr int DEMOTION_COUNT = 1;

// A polling state 0 is never a ladder rung (it is entered only for latency_req == 0).
int first_index(const std::vector<CpuidleState>& states) { return !states.empty() && states[0].polling ? 1 : 0; }

}  // namespace

// ladder_enable_device(): start on the first rung; each rung's thresholds are its own exit latency.
LadderGovernor::LadderGovernor(const std::vector<CpuidleState>& states) : states_(states.size()) {
  const int state_count = static_cast<int>(states.size());
  const int first_idx = first_index(states);
  last_state_idx_ = first_idx;
  for (int i = first_idx; i < state_count; i++) {
    LadderState& l = states_[i];
    l.promotion_count = 0;
    l.demotion_count = 0;
    l.promotion_count_threshold = PROMOTION_COUNT;
    l.demotion_count_threshold = DEMOTION_COUNT;
    if (i < state_count - 1) l.promotion_time_ns = states[i].exit_latency_ns;
    if (i > first_idx) l.demotion_time_ns = states[i].exit_latency_ns;
  }
}

// Ladder never clears stop_tick: the nohz code alone decides whether the tick stops.
int LadderGovernor::select(const std::vector<CpuidleState>& states, CpuidleDevice& dev, const IdleQuery& q, bool&) {
  if (states.empty()) return 0;  // the cpuidle core never runs a governor without a state table
  if (states_.size() < states.size()) states_.resize(states.size());
  return ladder_select_state(states, dev, q);
}

void LadderGovernor::reflect(CpuidleDevice&, int index, bool) { ladder_reflect(index); }

// ladder_do_selection(): leaving a rung resets its counters.
void LadderGovernor::ladder_do_selection(int old_idx, int new_idx) {
  states_[old_idx].promotion_count = 0;
  states_[old_idx].demotion_count = 0;
  last_state_idx_ = new_idx;
}

// ladder_select_state()
int LadderGovernor::ladder_select_state(const std::vector<CpuidleState>& states, const CpuidleDevice& dev,
                                        const IdleQuery& q) {
  const int state_count = static_cast<int>(states.size());
  const int last_idx = last_state_idx_;
  const int first_idx = first_index(states);
  const sim_ns latency_req = q.latency_req;

  if (latency_req == 0) {  // the strictest limit: state 0 only
    ladder_do_selection(last_idx, 0);
    return 0;
  }

  LadderState& last_state = states_[last_idx];
  const sim_ns last_residency = dev.last_residency_ns - states[last_idx].exit_latency_ns;

  // Promotion: enough consecutive idles longer than this rung's exit latency.
  if (last_idx < state_count - 1 && !states[last_idx + 1].disabled && last_residency > last_state.promotion_time_ns &&
      states[last_idx + 1].exit_latency_ns <= latency_req) {
    last_state.promotion_count++;
    last_state.demotion_count = 0;
    if (last_state.promotion_count >= last_state.promotion_count_threshold) {
      ladder_do_selection(last_idx, last_idx + 1);
      return last_idx + 1;
    }
  }

  // The current rung became unusable: drop to the deepest one the latency limit allows.
  if (last_idx > first_idx && (states[last_idx].disabled || states[last_idx].exit_latency_ns > latency_req)) {
    int i;
    for (i = last_idx - 1; i > first_idx; i--) {
      if (states[i].exit_latency_ns <= latency_req) break;
    }
    ladder_do_selection(last_idx, i);
    return i;
  }

  // Demotion: idles shorter than this rung's exit latency.
  if (last_idx > first_idx && last_residency < last_state.demotion_time_ns) {
    last_state.demotion_count++;
    last_state.promotion_count = 0;
    if (last_state.demotion_count >= last_state.demotion_count_threshold) {
      ladder_do_selection(last_idx, last_idx - 1);
      return last_idx - 1;
    }
  }

  return last_idx;
}

// ladder_reflect(): a POLL (index 0) entry does not move the ladder.
void LadderGovernor::ladder_reflect(int index) {
  if (index > 0) last_state_idx_ = index;
}

}  // namespace vtick::cpuidle
