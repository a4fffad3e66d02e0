// The scenario's keys: each struct's declaration rows mounted at its section. This is
// the one place that says where a struct's parameters sit in a scenario file.
#include <map>

#include "sim/scenario.hpp"

namespace vtick {

VTICK_PARAM_TABLE(PlatformSpec, VTICK_PLATFORM_PARAMS)
VTICK_PARAM_CTOR(PlatformSpec)
VTICK_PARAM_TABLE(RunSpec, VTICK_RUN_PARAMS)
VTICK_PARAM_CTOR(RunSpec)
VTICK_PARAM_TABLE(AblateSpec, VTICK_ABLATE_PARAMS)
VTICK_PARAM_CTOR(AblateSpec)

const ParamTable<Scenario>& scenario_params() {
  static const ParamTable<Scenario> t = [] {
    using S = Scenario;
    ParamTable<S> v;
    mount<S, PlatformSpec>(v, "platform", PlatformSpec::table(), [](S& s) -> PlatformSpec& { return s.platform; });
    mount<S, HostParams>(v, "host", HostParams::table(), [](S& s) -> HostParams& { return s.host; });
    mount<S, HostSchedParams>(v, "host", HostSchedParams::table(), [](S& s) -> HostSchedParams& { return s.host.sched; });
    mount<S, IoThreadParams>(v, "host.iothread", IoThreadParams::table(), [](S& s) -> IoThreadParams& { return s.host.iothread; });
    mount<S, VhostParams>(v, "host.vhost", VhostParams::table(), [](S& s) -> VhostParams& { return s.host.vhost; });
    mount<S, NoiseParams>(v, "host.noise", NoiseParams::table(), [](S& s) -> NoiseParams& { return s.host.noise; });
    mount<S, KvmParams>(v, "host.kvm", KvmParams::table(), [](S& s) -> KvmParams& { return s.host.kvm; });
    mount<S, TimerAwareParams>(v, "host", TimerAwareParams::table(), [](S& s) -> TimerAwareParams& { return s.host.timer_aware; });
    mount<S, ArchCosts>(v, "host.costs", ArchCosts::table(), [](S& s) -> ArchCosts& { return s.costs; });
    mount<S, GuestParams>(v, "guest", GuestParams::table(), [](S& s) -> GuestParams& { return s.guest; });
    mount<S, CpuidleParams>(v, "guest", CpuidleParams::table(), [](S& s) -> CpuidleParams& { return s.guest.cpuidle; });
    mount<S, NohzReasons>(v, "guest.nohz", NohzReasons::table(), [](S& s) -> NohzReasons& { return s.guest.reasons; });
    mount<S, SchedParams>(v, "guest.sched", SchedParams::table(), [](S& s) -> SchedParams& { return s.guest.sched; });
    mount<S, BackgroundParams>(v, "guest.background", BackgroundParams::table(), [](S& s) -> BackgroundParams& { return s.guest.background; });
    mount<S, GuestCosts>(v, "guest.costs", GuestCosts::table(), [](S& s) -> GuestCosts& { return s.guest.costs; });
    mount<S, WorkloadSpec>(v, "workload", WorkloadSpec::table(), [](S& s) -> WorkloadSpec& { return s.workload; });
    mount<S, RunSpec>(v, "run", RunSpec::table(), [](S& s) -> RunSpec& { return s.run; });
    mount<S, AblateSpec>(v, "ablate", AblateSpec::table(), [](S& s) -> AblateSpec& { return s.ablate; });
    std::vector<const ParamInfo*> rows;
    for (const auto& p : v) rows.push_back(&p);
    for (const auto& p : HaltpollParams::table()) rows.push_back(&p);
    check_param_infos(rows);
    return v;
  }();
  return t;
}

const Param<Scenario>* find_scenario_param(const std::string& key) {
  static const std::map<std::string, const Param<Scenario>*> index = [] {
    std::map<std::string, const Param<Scenario>*> m;
    for (const auto& p : scenario_params()) m[p.key] = &p;
    return m;
  }();
  auto it = index.find(key);
  return it == index.end() ? nullptr : it->second;
}

}  // namespace vtick
