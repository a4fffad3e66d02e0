// Host behaviours keyed on the guest's armed timer (hypotheses H9, M4). Upstream KVM only
// arms its sw hrtimer / bg_timer at that deadline; these are named, switchable policies
// a host or hypervisor could have. All are off unless configured.
#pragma once
#include <cstdint>
#include <string>

#include "core/time.hpp"

namespace vtick {

struct HostParams;
struct VcpuStats;

struct TimerAwareParams {
  // timer-aware polling: when the guest's timer is within the threshold, poll until it
  // ("replace": instead of the adaptive window; "extend": whichever is longer)
  std::string timer_poll = "off";
  sim_ns timer_poll_threshold = 200000;
  // idle reclaim: a halted vCPU whose timer is far gives its hardware thread up at once
  // (no polling: the SMT sibling runs solo, host threads may run there); one whose timer
  // is within the threshold keeps it, spinning until an event, at a cost to the sibling
  bool reclaim = false;
  sim_ns reclaim_threshold = 1000000;
};

struct TimerAwareStats {
  std::uint64_t timer_polls = 0;   // halts polled up to the guest's timer
  std::uint64_t reclaims = 0;      // halts that released the thread at once
  std::uint64_t keeps = 0;         // halts that kept spinning on the thread
};

struct HaltPlan {
  sim_ns poll_ns;   // poll window
  bool keep_cpu;    // never block: spin until an event
};

// The plan for one halt, from the adaptive window and the time to the guest's timer.
HaltPlan plan_halt(const HostParams& p, sim_ns adaptive_poll_ns, sim_ns to_timer, VcpuStats& st);

}  // namespace vtick
