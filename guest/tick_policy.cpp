#include "guest/tick_policy.hpp"

namespace vtick {

const std::vector<TickPolicy>& tick_policies() {
  static const std::vector<TickPolicy> p = {
      {"legacy", "before f4c31b07b136: no driver always stops (ed98c3491998), single state always retains (e5c9ffc6ae1b)",
       TickChoice::Stop, TickChoice::Retain, true},
      {"got_tick", "f4c31b07b136 'sched: idle: Consolidate the handling of two special cases': both paths stop only after a tick woke the CPU in this idle episode",
       TickChoice::StopOrRetainGotTick, TickChoice::StopOrRetainGotTick, true},
      {"force_retain", "f4c31b07b136 with idle_call_stop_or_retain_tick(false) on the no-driver path (Rafael Wysocki's test request, Jul 2026)",
       TickChoice::StopOrRetainFalse, TickChoice::StopOrRetainGotTick, true},
      {"loehle", "Christian Loehle's fix (Jul 2026): no driver calls tick_nohz_idle_stop_tick() directly again, single state keeps the heuristic",
       TickChoice::Stop, TickChoice::StopOrRetainGotTick, true},
      {"tglx_avg", "Thomas Gleixner, 'sched/idle: Make default_idle_call() NOHZ aware' (1 Mar 2026): stop only if the 4-entry moving average of idle durations exceeds one tick",
       TickChoice::StopIfAvgIdleAboveTick, TickChoice::Retain, true},
      {"periodic", "nohz=off: the tick never stops (NOHZ_MODE_INACTIVE)", TickChoice::Stop, TickChoice::Retain, false},
  };
  return p;
}

const TickPolicy* find_tick_policy(const std::string& name) {
  for (const auto& p : tick_policies())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace vtick
