// drivers/cpuidle/governors/teo.c: the timer events oriented governor, v6.19-era text (teo_decay, total_tick, short_idles).
#include <cstdint>
#include <limits>

#include "host/cpuidle_gov.hpp"

namespace vtick::cpuidle {  // the host's cpuidle framework (the guest has its own: guest/cpuidle.hpp)

namespace {

using s64 = std::int64_t;

constexpr unsigned int PULSE = 1024;
constexpr int DECAY_SHIFT = 3;
constexpr s64 LATENCY_THRESHOLD_NS = RESIDENCY_THRESHOLD_NS / 2;
constexpr s64 S64_MAX = std::numeric_limits<s64>::max();

// teo_find_shallower_state(): walk down from state_idx to the first enabled state fitting duration_ns
// (or the shallowest enabled one).
int teo_find_shallower_state(const std::vector<CpuidleState>& states, int state_idx, s64 duration_ns) {
  for (int i = state_idx - 1; i >= 0; i--) {
    if (states[i].disabled) continue;
    state_idx = i;
    if (states[i].target_residency_ns <= duration_ns) break;
  }
  return state_idx;
}

}  // namespace

// teo_decay(): geometric decay by 1/8; once the decrement rounds to 0 the metric is cleared,
// so stale small values do not linger forever.
void teo_decay(unsigned int& metric) {
  const unsigned int delta = metric >> DECAY_SHIFT;
  if (delta)
    metric -= delta;
  else
    metric = 0;
}

// teo_enable_device(): all metrics zeroed.
TeoGovernor::TeoGovernor(const std::vector<CpuidleState>& states) : bins_(states.size()) {}

int TeoGovernor::select(const std::vector<CpuidleState>& states, CpuidleDevice& dev, const IdleQuery& q,
                        bool& stop_tick) {
  if (states.empty()) return 0;  // the cpuidle core never runs a governor without a state table
  if (bins_.size() < states.size()) bins_.resize(states.size());  // the kernel has CPUIDLE_STATE_MAX bins
  return teo_select(states, dev, q, stop_tick);
}

void TeoGovernor::reflect(CpuidleDevice&, int index, bool tick_wakeup) { teo_reflect(index, tick_wakeup); }

// teo_update(): classify the last wakeup as a hit (in the sleep-length bin) or an intercept
// (in the bin of the measured idle duration), after decaying every metric.
void TeoGovernor::teo_update(const std::vector<CpuidleState>& states, CpuidleDevice& dev, sim_ns tick_nsec) {
  const int state_count = static_cast<int>(states.size());
  int idx_timer = 0, idx_duration = 0;
  s64 measured_ns;
  unsigned int total = 0;

  teo_decay(short_idles_);

  if (dev.poll_time_limit) {
    dev.poll_time_limit = false;
    measured_ns = S64_MAX;  // the polling timeout fired: this may have been a long sleep
  } else {
    const s64 lat_ns = states[last_state_idx_].exit_latency_ns;
    measured_ns = dev.last_residency_ns;
    // Half the exit latency approximates the average wakeup delay.
    if (measured_ns >= lat_ns) {
      measured_ns -= lat_ns / 2;
      if (measured_ns < RESIDENCY_THRESHOLD_NS) short_idles_ += PULSE;
    } else {
      measured_ns /= 2;
      short_idles_ += PULSE;
    }
  }

  for (int i = 0; i < state_count; i++) {
    Bin& bin = bins_[i];
    teo_decay(bin.hits);
    total += bin.hits;
    teo_decay(bin.intercepts);
    total += bin.intercepts;

    const s64 target_residency_ns = states[i].target_residency_ns;
    if (target_residency_ns <= sleep_length_ns_) {
      idx_timer = i;
      if (target_residency_ns <= measured_ns) idx_duration = i;
    }
  }

  total_ = total + PULSE;

  teo_decay(tick_intercepts_);

  teo_decay(total_tick_);
  if (tick_wakeup_) {
    total_tick_ += PULSE;
    // Mostly tick wakeups: count a hit on the deepest state so the tick gets stopped more often.
    if (3 * total_tick_ > 2 * total_) {
      bins_[state_count - 1].hits += PULSE;
      return;
    }
  }

  if (idx_timer == idx_duration) {
    bins_[idx_timer].hits += PULSE;
  } else {
    bins_[idx_duration].intercepts += PULSE;
    if (measured_ns <= tick_nsec) tick_intercepts_ += PULSE;
  }
}

// teo_select()
int TeoGovernor::teo_select(const std::vector<CpuidleState>& states, CpuidleDevice& dev, const IdleQuery& q,
                            bool& stop_tick) {
  const s64 latency_req = q.latency_req;
  const int state_count = static_cast<int>(states.size());
  s64 delta_tick = q.tick_nsec / 2;
  unsigned int idx_intercept_sum = 0;
  unsigned int intercept_sum = 0;
  unsigned int idx_hit_sum = 0;
  unsigned int hit_sum = 0;
  int constraint_idx = 0;
  int idx0 = 0, idx = -1;
  s64 duration_ns;

  if (last_state_idx_ >= 0) {
    teo_update(states, dev, q.tick_nsec);
    last_state_idx_ = -1;
  }

  // If the query below is skipped the next wakeup can't be told timer or not; infinity makes it an intercept.
  sleep_length_ns_ = KTIME_MAX;

  if (state_count < 2) {
    idx = 0;
    goto out_tick;
  }

  if (!states[0].disabled) idx = 0;

  // Candidate = deepest enabled state; keep the bin sums of everything shallower than it.
  for (int i = 1; i < state_count; i++) {
    const Bin& prev_bin = bins_[i - 1];
    const CpuidleState& s = states[i];

    intercept_sum += prev_bin.intercepts;  // disabled states' bins count too
    hit_sum += prev_bin.hits;

    if (s.disabled) continue;
    if (idx < 0) idx0 = i;  // first enabled state
    idx = i;
    if (s.exit_latency_ns <= latency_req) constraint_idx = i;

    idx_intercept_sum = intercept_sum;
    idx_hit_sum = hit_sum;
  }

  if (idx < 0) {
    idx = 0;  // nothing enabled: state 0 regardless
    goto out_tick;
  }

  if (idx == idx0) {
    // One enabled state: use it, and keep the tick if it is shallow.
    duration_ns = states[idx].target_residency_ns;
    goto end;
  }

  // Shallower-bin intercepts outweigh the rest (minus shallower hits): look for a shallower state.
  if (2 * idx_intercept_sum > total_ - idx_hit_sum) {
    int min_idx = idx0;
    if (q.tick_stopped) {
      // With the tick stopped, nothing shallower than a tick period: it could last very long.
      while (min_idx < idx && states[min_idx].target_residency_ns < q.tick_nsec) min_idx++;
    }
    // The deepest state the idle duration did not fall short of in most recent cases.
    intercept_sum = 0;
    for (int i = idx - 1; i >= min_idx; i--) {
      intercept_sum += bins_[i].intercepts;
      if (states[i].disabled) continue;
      idx = i;
      if (2 * intercept_sum > idx_intercept_sum) break;
    }
  }

  if (idx > constraint_idx) idx = constraint_idx;  // PM QoS

  // Mostly very short idles, or a tight latency limit: shallow anyway, so skip the sleep-length query.
  if ((!idx || states[idx].target_residency_ns < RESIDENCY_THRESHOLD_NS) &&
      (2 * short_idles_ >= total_ || latency_req < LATENCY_THRESHOLD_NS))
    goto out_tick;

  duration_ns = q.sleep_length;
  delta_tick = q.delta_tick;
  sleep_length_ns_ = duration_ns;

  if (!idx) goto out_tick;

  // A timer before the candidate's target residency: go shallower.
  if (states[idx].target_residency_ns > duration_ns) idx = teo_find_shallower_state(states, idx, duration_ns);

  // Intercepts within a tick dominate: don't stop the tick for a sub-tick state.
  if (states[idx].target_residency_ns < q.tick_nsec && tick_intercepts_ > total_ / 2 + total_ / 8)
    duration_ns = q.tick_nsec / 2;

end:
  // The tick may stop unless the state polls or the idle is expected to be shorter than a tick.
  if ((!states[idx].polling && duration_ns >= q.tick_nsec) || q.tick_stopped) return idx;

  // The tick stays: fit the state before the next event including the tick.
  if (idx > idx0 && states[idx].target_residency_ns > delta_tick)
    idx = teo_find_shallower_state(states, idx, delta_tick);

out_tick:
  stop_tick = false;
  return idx;
}

// teo_reflect(): note the entered state and whether the tick ended the idle; learning waits for the next select.
void TeoGovernor::teo_reflect(int state, bool tick_wakeup) {
  tick_wakeup_ = tick_wakeup;
  last_state_idx_ = state;
}

}  // namespace vtick::cpuidle
