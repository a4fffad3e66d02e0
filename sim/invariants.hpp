// The checks every run ends with: what the model's accounting must satisfy whatever the
// scenario (time conservation, KVM's poll accounting, exits, ticks, /proc/stat), read
// from the counters so that a check can be reproduced from the results alone.
#pragma once
#include <string>
#include <vector>

#include "core/time.hpp"
#include "sim/metrics.hpp"

namespace vtick {

struct InvariantInputs {
  sim_ns end = 0;                       // simulated time of the totals
  int vcpus = 0, hw_threads = 0;
  sim_ns tick_nsec = 0;                 // TICK_NSEC of the guest
  bool reclaim = false;                 // host.reclaim spins in the halt-poll state outside a poll
  bool cputime_old = true;              // guest.cputime = old
  bool hotplug = false;                 // some CPU goes offline during the run
  std::vector<sim_ns> poll_open_ns;     // per vCPU: a poll still open at `end`
};

struct InvariantResult {
  std::vector<std::string> checked;     // the invariants' names, in order
  std::string broken;                   // "" or "NAME on vCPU 1: what differs"
};

// `totals`: every counter since the start (not differenced); `window`: the measured
// window's. Fault injection for tests: VTICK_FAULT_INVARIANT=NAME breaks that one
// invariant's input (docs/cli.md, "Invariants").
InvariantResult check_invariants(const Metrics& totals, const Metrics& window, const InvariantInputs& in);

}  // namespace vtick
