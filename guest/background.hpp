// What a real guest runs besides the workload: kernel threads (per-CPU kworkers, RCU,
// DAMON, compaction) and user housekeeping (a cloud agent, a journal). Each source is a
// task that sleeps a random interval and works; the presets say where the figures come from.
#pragma once
#include <vector>

#include "core/enum_names.hpp"
#include "core/param.hpp"
#include "core/time.hpp"

namespace vtick {

class GuestKernel;

enum class BackgroundPreset { None, Measured, Cloud };
VTICK_ENUM_NAMES(BackgroundPreset, "none", "measured", "cloud");

#define VTICK_BACKGROUND_PARAMS(P)                                                                                      \
  P(BackgroundPreset, preset, ".preset", Enum, "none", kNoMin, kNoMax, "", "guest/background.cpp (docs/model.md)",       \
    "background tasks: none, measured (this project's 2-vCPU KVM guest, docs/real-guest/) or cloud (measured plus a cloud agent's periodic work and a journal [EST])") \
  P(double, scale, ".scale", Float, 1.0, 0, 100, "factor", "a sweep knob",                                           \
    "multiplies every background source's wake-up rate (levels of background load)")
struct BackgroundParams {
  VTICK_PARAMS(BackgroundParams, VTICK_BACKGROUND_PARAMS);
};

// One background source: a task (one per vCPU, pinned, when per_cpu) that sleeps an
// interval drawn around 1/hz and then works `work`, at `nice`.
struct BackgroundSource {
  const char* comm;
  bool per_cpu;
  double hz;      // wake-ups per second (per CPU when per_cpu)
  sim_ns work;    // ns of work per wake-up
  int nice;
  const char* source;
};
const std::vector<BackgroundSource>& background_sources(BackgroundPreset p);

// Adds the preset's tasks to the guest (after the workload's, so their pids stay).
void install_background(GuestKernel& k, const BackgroundParams& p);

}  // namespace vtick
