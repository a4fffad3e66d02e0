#include "guest/tick_policy.hpp"

#include <stdexcept>

namespace vtick {

const std::vector<TickPolicy>& tick_policies() {
  static const std::vector<TickPolicy> p = {
      {TickPolicyId::Legacy, "before f4c31b07b136: no driver always stops (ed98c3491998), single state always retains (e5c9ffc6ae1b)",
       TickChoice::Stop, TickChoice::Retain, true},
      {TickPolicyId::GotTick, "f4c31b07b136 'sched: idle: Consolidate the handling of two special cases': both paths stop only after a tick woke the CPU in this idle episode",
       TickChoice::StopOrRetainGotTick, TickChoice::StopOrRetainGotTick, true},
      {TickPolicyId::ForceRetain, "f4c31b07b136 with idle_call_stop_or_retain_tick(false) on the no-driver path (Rafael Wysocki's test request, Jul 2026)",
       TickChoice::StopOrRetainFalse, TickChoice::StopOrRetainGotTick, true},
      {TickPolicyId::Loehle, "Christian Loehle's fix (Jul 2026): no driver calls tick_nohz_idle_stop_tick() directly again, single state keeps the heuristic",
       TickChoice::Stop, TickChoice::StopOrRetainGotTick, true},
      {TickPolicyId::TglxAvg, "Thomas Gleixner, 'sched/idle: Make default_idle_call() NOHZ aware' (1 Mar 2026): stop only if the 4-entry moving average of idle durations exceeds one tick",
       TickChoice::StopIfAvgIdleAboveTick, TickChoice::Retain, true},
      {TickPolicyId::Periodic, "nohz=off: the tick never stops (NOHZ_MODE_INACTIVE)", TickChoice::Stop, TickChoice::Retain, false},
  };
  return p;
}

const TickPolicy& tick_policy(TickPolicyId id) {
  const TickPolicy& p = tick_policies().at(static_cast<std::size_t>(id));
  if (p.id != id) throw std::logic_error("tick_policies() is not in TickPolicyId order");
  return p;
}

}  // namespace vtick
