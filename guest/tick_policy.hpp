// kernel/sched/idle.c variants: who stops the tick before a no-driver / single-state idle.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/time.hpp"

namespace vtick {

// What cpuidle_idle_call() does with the tick on its two special paths:
//   Stop                   tick_nohz_idle_stop_tick()
//   Retain                 tick_nohz_idle_retain_tick()
//   StopOrRetain(x)        idle_call_stop_or_retain_tick(x): stop if x or already stopped
enum class TickChoice {
  Stop,
  Retain,
  StopOrRetainGotTick,     // x = got_tick (f4c31b07b136)
  StopOrRetainFalse,       // x = false
  StopIfAvgIdleAboveTick,  // x = 4-entry moving average of idle durations > TICK_NSEC
};

struct TickPolicy {
  std::string name;
  std::string origin;       // the commit or mail it comes from
  TickChoice no_driver;     // cpuidle_not_available(): before default_idle_call()
  TickChoice single_state;  // drv->state_count == 1: before call_cpuidle()
  bool nohz = true;         // false: nohz=off, the tick never stops
};

const std::vector<TickPolicy>& tick_policies();
const TickPolicy* find_tick_policy(const std::string& name);

}  // namespace vtick
