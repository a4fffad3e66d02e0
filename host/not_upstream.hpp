// Host behaviours upstream KVM does not have, behind one hook (NotUpstream) that
// kvm_vcpu_halt() calls at two marked places: timer-aware polling and idle reclaim
// (hypotheses H9, M4: keyed on the guest's armed timer, which upstream only uses to arm
// its sw hrtimer / bg_timer) and the amplifier (hypotheses.md: extra host work per timer
// wake-up). Each is a named, switchable policy, off unless configured.
#pragma once
#include <cstdint>
#include <string>

#include "core/param.hpp"
#include "core/stats.hpp"
#include "core/time.hpp"

namespace vtick {

struct HostParams;

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

class NotUpstream {
 public:
  explicit NotUpstream(const HostParams& p) : p_(p) {}
  // Before polling: the poll window (upstream: the adaptive one) and whether to keep the
  // hardware thread, from the time to the guest's timer.
  HaltPlan plan_halt(sim_ns adaptive_poll_ns, sim_ns to_timer, TimerAwareStats& st) const;
  // A halt the guest's own timer ended: extra host work before entry (the amplifier,
  // host.tick_wakeup_cost; 0 upstream).
  sim_ns timer_wakeup_cost(std::uint64_t& wakeups, sim_ns& total) const;

 private:
  const HostParams& p_;
};

}  // namespace vtick
