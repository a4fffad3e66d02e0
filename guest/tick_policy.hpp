// kernel/sched/idle.c variants: who stops the tick before a no-driver / single-state idle.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
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

// The variants, one enumerator each (guest.tick_policy).
enum class TickPolicyId { Legacy, GotTick, ForceRetain, Loehle, TglxAvg, Periodic };
VTICK_ENUM_NAMES(TickPolicyId, "legacy", "got_tick", "force_retain", "loehle", "tglx_avg", "periodic");

struct TickPolicy {
  TickPolicyId id;
  std::string origin;       // the commit or mail it comes from
  TickChoice no_driver;     // cpuidle_not_available(): before default_idle_call()
  TickChoice single_state;  // drv->state_count == 1: before call_cpuidle()
  bool nohz = true;         // false: nohz=off, the tick never stops
};

const std::vector<TickPolicy>& tick_policies();  // in TickPolicyId order
const TickPolicy& tick_policy(TickPolicyId id);
inline const char* tick_policy_name(const TickPolicy& p) { return enum_name(p.id); }

}  // namespace vtick
