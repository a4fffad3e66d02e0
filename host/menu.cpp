// drivers/cpuidle/governors/menu.c: the menu governor, post-6.17 text (6 buckets, no iowait/performance multiplier).
#include <algorithm>
#include <climits>
#include <cstdint>

#include "host/cpuidle_gov.hpp"

namespace vtick::cpuidle {  // the host's cpuidle framework (the guest has its own: guest/cpuidle.hpp)

namespace {

using u64 = std::uint64_t;
using s64 = std::int64_t;

constexpr unsigned int INTERVALS = MENU_INTERVALS;
constexpr int INTERVAL_SHIFT = 3;
constexpr unsigned int RESOLUTION = 1024;
constexpr unsigned int DECAY = 8;
constexpr u64 US = NSEC_PER_USEC;
constexpr u64 MAX_INTERESTING = 50000 * US;

// Residencies, latencies and timer distances are never negative here; the kernel compares them as u64.
constexpr u64 as_u64(sim_ns v) { return static_cast<u64>(v); }

}  // namespace

// which_bucket(): one correction factor per decade of the time till the next timer.
int which_bucket(u64 duration_ns) {
  if (duration_ns < 10 * US) return 0;
  if (duration_ns < 100 * US) return 1;
  if (duration_ns < 1000 * US) return 2;
  if (duration_ns < 10000 * US) return 3;
  if (duration_ns < 100000 * US) return 4;
  return 5;
}

// The timer_us computation in menu_select(): the factor is a ratio scaled by RESOLUTION*DECAY; +1/2 rounds.
unsigned int menu_timer_us(u64 next_timer_ns, unsigned int correction_factor) {
  constexpr u64 scale = u64{RESOLUTION} * DECAY * US;
  return static_cast<unsigned int>((scale / 2 + next_timer_ns * correction_factor) / scale);
}

// get_typical_interval(): the average of the recent intervals if they repeat closely enough,
// after dropping outliers one side at a time; UINT_MAX when no pattern is left.
unsigned int get_typical_interval(const unsigned int intervals[MENU_INTERVALS]) {
  s64 min_thresh = -1, max_thresh = UINT_MAX;  // signed so that UINT_MAX samples (rejected entries) are excluded
  for (;;) {
    unsigned int max = 0, min = UINT_MAX, divisor = 0;
    u64 avg = 0, variance = 0;
    for (unsigned int i = 0; i < INTERVALS; i++) {
      const unsigned int v = intervals[i];
      const s64 value = v;
      if (value <= min_thresh || value >= max_thresh) continue;
      divisor++;
      avg += v;
      variance += u64{v} * v;
      if (v > max) max = v;
      if (v < min) min = v;
    }
    if (!max) return UINT_MAX;

    if (divisor == INTERVALS) {
      avg >>= INTERVAL_SHIFT;
      variance >>= INTERVAL_SHIFT;
    } else {
      avg /= divisor;
      variance /= divisor;
    }
    const u64 avg_sq = avg * avg;
    variance -= avg_sq;

    // Accept when stddev <= 20 µs, or avg > 6*stddev with at least 3/4 of the samples kept.
    if (variance <= UINT64_MAX / 36) {
      if ((avg_sq > variance * 36 && divisor * 4 >= INTERVALS * 3) || variance <= 400)
        return static_cast<unsigned int>(avg);
    }

    // Too few samples left to drop more: no prediction, so deep states stay possible (the 6.15 "return max" was reverted).
    if (divisor * 4 <= INTERVALS * 3) return UINT_MAX;

    // Drop the side farther from the average; the inclusive tests drop every sample equal to it.
    if (avg - min > max - avg)
      min_thresh = min;
    else
      max_thresh = max;
  }
}

// menu_enable_device(): zeroed history, every correction factor at unity.
MenuGovernor::MenuGovernor(const std::vector<CpuidleState>&) {
  for (unsigned int& cf : correction_factor_) cf = RESOLUTION * DECAY;
  for (unsigned int& v : intervals_) v = 0;
}

int MenuGovernor::select(const std::vector<CpuidleState>& states, CpuidleDevice& dev, const IdleQuery& q,
                         bool& stop_tick) {
  if (states.empty()) return 0;  // the cpuidle core never runs a governor without a state table
  return menu_select(states, dev, q, stop_tick);
}

void MenuGovernor::reflect(CpuidleDevice&, int index, bool tick_wakeup) { menu_reflect(index, tick_wakeup); }

void MenuGovernor::menu_update_intervals(unsigned int interval_us) {
  intervals_[interval_ptr_++] = interval_us;
  if (interval_ptr_ >= MENU_INTERVALS) interval_ptr_ = 0;
}

// menu_select()
int MenuGovernor::menu_select(const std::vector<CpuidleState>& states, CpuidleDevice& dev, const IdleQuery& q,
                              bool& stop_tick) {
  const s64 latency_req = q.latency_req;
  const int state_count = static_cast<int>(states.size());
  const u64 tick_nsec = as_u64(q.tick_nsec);
  s64 delta_tick;

  if (needs_update_) {
    menu_update(states, dev, q.tick_nsec);
    needs_update_ = false;
  } else if (!dev.last_residency_ns) {
    // The driver rejected the previous entry: poison one slot so stale samples don't form a pattern.
    menu_update_intervals(UINT_MAX);
  }

  u64 predicted_ns = u64{get_typical_interval(intervals_)} * US;
  if (predicted_ns > as_u64(RESIDENCY_THRESHOLD_NS)) {
    s64 delta = q.sleep_length;
    delta_tick = q.delta_tick;
    if (delta < 0) {
      delta = 0;
      delta_tick = 0;
    }
    next_timer_ns_ = as_u64(delta);
    bucket_ = which_bucket(next_timer_ns_);
    const unsigned int timer_us = menu_timer_us(next_timer_ns_, correction_factor_[bucket_]);
    predicted_ns = std::min(u64{timer_us} * US, predicted_ns);
  } else {
    // Short pattern: skip the costly sleep-length query; assume a far timer and the tick half a period away.
    next_timer_ns_ = as_u64(KTIME_MAX);
    delta_tick = q.tick_nsec / 2;
    bucket_ = MENU_BUCKETS - 1;
  }

  if (state_count <= 1 || latency_req == 0 ||
      ((next_timer_ns_ < as_u64(states[1].target_residency_ns) || latency_req < states[1].exit_latency_ns) &&
       !states[0].disabled)) {
    // State 0 it is; a polling state 0 keeps the tick.
    stop_tick = !states[0].polling;
    return 0;
  }

  // With the tick stopped a short misprediction could strand the CPU in a shallow state: use the timer.
  if (q.tick_stopped && predicted_ns < tick_nsec) predicted_ns = next_timer_ns_;

  int idx = -1;
  for (int i = 0; i < state_count; i++) {
    const CpuidleState& s = states[i];
    if (s.disabled) continue;
    if (idx == -1) idx = i;  // first enabled state
    if (s.exit_latency_ns > latency_req) break;
    if (as_u64(s.target_residency_ns) <= predicted_ns) {
      idx = i;
      continue;
    }
    // Prefer a shallow physical state to busy polling unless the timer is even nearer.
    if (states[idx].polling && s.target_residency_ns < RESIDENCY_THRESHOLD_NS &&
        as_u64(s.target_residency_ns) <= next_timer_ns_) {
      predicted_ns = as_u64(s.target_residency_ns);
      idx = i;
      break;
    }
    if (predicted_ns < tick_nsec) break;
    if (!q.tick_stopped) {
      // Shallow state, running tick: an early wakeup is cheap and the governor re-runs.
      predicted_ns = as_u64(states[idx].target_residency_ns);
      break;
    }
    // Tick stopped: take this state if it fits before the next event, to avoid a long shallow stay.
    if (states[idx].target_residency_ns < q.tick_nsec && s.target_residency_ns <= delta_tick) idx = i;
    return idx;
  }

  if (idx == -1) idx = 0;  // nothing enabled: state 0 regardless

  // Keep the tick for polling or for an idle shorter than a tick; then fit the state before the next event.
  if ((states[idx].polling || predicted_ns < tick_nsec) && !q.tick_stopped) {
    stop_tick = false;
    if (idx > 0 && states[idx].target_residency_ns > delta_tick) {
      for (int i = idx - 1; i >= 0; i--) {
        if (states[i].disabled) continue;
        idx = i;
        if (states[i].target_residency_ns <= delta_tick) break;
      }
    }
  }
  return idx;
}

// menu_reflect(): only note the outcome; the learning runs lazily in the next select.
void MenuGovernor::menu_reflect(int index, bool tick_wakeup) {
  last_state_idx_ = index;
  needs_update_ = true;
  tick_wakeup_ = tick_wakeup;
}

// menu_update(): turn the last idle period into a measured duration, then update the bucket's
// correction factor and the interval history.
void MenuGovernor::menu_update(const std::vector<CpuidleState>& states, const CpuidleDevice& dev, sim_ns tick_nsec) {
  const CpuidleState& target = states[last_state_idx_];
  u64 measured_ns;

  if (tick_wakeup_ && next_timer_ns_ > as_u64(tick_nsec)) {
    // The tick woke us though no timer was near: the prediction was too short, count a long idle.
    measured_ns = 9 * MAX_INTERESTING / 10;
  } else if (target.polling && dev.poll_time_limit) {
    // Polling timed out: assume the next timer would have been the wakeup.
    measured_ns = next_timer_ns_;
  } else {
    measured_ns = as_u64(dev.last_residency_ns);
    // The residency includes the exit latency; if it is that short, assume the state was barely reached.
    if (measured_ns > 2 * as_u64(target.exit_latency_ns))
      measured_ns -= as_u64(target.exit_latency_ns);
    else
      measured_ns /= 2;
  }

  if (measured_ns > next_timer_ns_) measured_ns = next_timer_ns_;  // keep the ratio <= 1

  unsigned int new_factor = correction_factor_[bucket_];
  new_factor -= new_factor / DECAY;
  if (next_timer_ns_ > 0 && measured_ns < MAX_INTERESTING)
    new_factor += static_cast<unsigned int>(RESOLUTION * measured_ns / next_timer_ns_);
  else
    new_factor += RESOLUTION;  // idle that long counts as a perfect prediction
  correction_factor_[bucket_] = new_factor;

  // ktime_to_us() truncates, and the u32 parameter truncates again (only for the KTIME_MAX case).
  menu_update_intervals(static_cast<unsigned int>(measured_ns / US));
}

}  // namespace vtick::cpuidle
