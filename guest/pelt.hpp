// kernel/sched/pelt.c: per-entity load tracking (load_avg), the part placement and nohz need.
#pragma once
#include <cmath>

#include "core/time.hpp"

namespace vtick {

// struct sched_avg's load_avg of a nice-0 task (scale 1024): the geometric series of
// ___update_load_sum() / decay_load() with y^32 = 1/2 per 1024 us period, taken in
// continuous time (the kernel accrues whole periods; the difference is below 1/32 of a
// period's weight). Runnable time accrues, sleeping time only decays.
struct SchedAvg {
  static constexpr double kScale = 1024.0;                       // NICE_0_LOAD >> SCHED_FIXEDPOINT_SHIFT
  static constexpr double kHalfLifeNs = 32.0 * 1024.0 * 1000.0;  // LOAD_AVG_PERIOD periods of 1024 us
  double load_avg = 0;
  sim_ns last_update = 0;

  // __update_load_avg_se(): bring the average to `now`, `runnable` since the last update.
  void update(sim_ns now, bool runnable) {
    if (now <= last_update) return;
    double decay = std::exp2(-static_cast<double>(now - last_update) / kHalfLifeNs);
    load_avg = load_avg * decay + (runnable ? kScale * (1.0 - decay) : 0.0);
    last_update = now;
  }
  double at(sim_ns now, bool runnable) const {
    SchedAvg a = *this;
    a.update(now, runnable);
    return a.load_avg;
  }
};

}  // namespace vtick
