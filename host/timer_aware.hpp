// Host behaviours keyed on the guest's armed timer (hypotheses H9, M4). Upstream KVM only
// arms its sw hrtimer / bg_timer at that deadline; these are named, switchable policies
// a host or hypervisor could have. All are off unless configured.
#pragma once
#include "core/stats.hpp"
#include <cstdint>
#include <string>

#include "core/param.hpp"
#include "core/time.hpp"

namespace vtick {

struct HostParams;
struct VcpuStats;

// Timer-aware polling: when the guest's timer is within the threshold, poll until it.
enum class TimerPoll {
  Off,
  Replace,  // instead of the adaptive window
  Extend,   // whichever is longer
};
VTICK_ENUM_NAMES(TimerPoll, "off", "replace", "extend");

// Idle reclaim: a halted vCPU whose timer is far gives its hardware thread up at once (no
// polling: the SMT sibling runs solo, host threads may run there); one whose timer is
// within the threshold keeps it, spinning until an event, at a cost to the sibling.
#define VTICK_TIMER_AWARE_PARAMS(P)                                                                                  \
  P(TimerPoll, timer_poll, ".timer_poll", Enum, "off", kNoMin, kNoMax, "", "not upstream (hypothesis H9)",          \
    "timer-aware polling: poll up to a guest timer that is near")                                                    \
  P(sim_ns, timer_poll_threshold, ".timer_poll_threshold", Duration, 200000, 0, 1e9, "ns", "not upstream; [EST] about one halt-poll window",          \
    "timer-aware polling: guest timer within this")                                                                  \
  P(bool, reclaim, ".reclaim", Bool, false, kNoMin, kNoMax, "", "not upstream (hypothesis M4)",                      \
    "idle-vCPU reclaim by guest timer distance")                                                                     \
  P(sim_ns, reclaim_threshold, ".reclaim_threshold", Duration, 1000000, 0, 1e9, "ns", "not upstream; [EST] one HZ=1000 tick",               \
    "idle reclaim: timers further than this release the thread")

struct TimerAwareParams {
  VTICK_PARAMS(TimerAwareParams, VTICK_TIMER_AWARE_PARAMS);
};

#define VTICK_TIMER_AWARE_STATS(C)                                                                                   \
  C(std::uint64_t, timer_polls, "host.timer_polls", "count", Counter, "halts polled up to the guest's timer (host.timer_poll)") \
  C(std::uint64_t, reclaims, "host.reclaims", "count", Counter, "halts that released the hardware thread at once (host.reclaim)") \
  C(std::uint64_t, keeps, "host.keeps", "count", Counter, "halts that kept spinning on the hardware thread (host.reclaim)")
struct TimerAwareStats {
  VTICK_STATS(VTICK_TIMER_AWARE_STATS)
};

struct HaltPlan {
  sim_ns poll_ns;   // poll window
  bool keep_cpu;    // never block: spin until an event
};

// The plan for one halt, from the adaptive window and the time to the guest's timer.
HaltPlan plan_halt(const HostParams& p, sim_ns adaptive_poll_ns, sim_ns to_timer, VcpuStats& st);

}  // namespace vtick
