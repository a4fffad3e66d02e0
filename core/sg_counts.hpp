// Not kernel code: the counts of core/sg.hpp's blocking calls (sg_event_counts()), apart so
// that a run's result (sim/simulation.hpp) carries them without SimGrid's headers.
#pragma once
#include <cstdint>

namespace vtick {

// Counts of the SimGrid-level events the model caused (for the speed report).
struct SgEventCounts {
  std::uint64_t waits = 0;       // wait_event() + sleep_until()
  std::uint64_t works = 0;       // start_work() + execute()
  std::uint64_t executes = 0;    // ... of which execute() (uninterruptible host/guest work)
  std::uint64_t rings = 0;
  std::uint64_t run_aheads = 0;  // short steps timed by run_ahead(), no event
  // vtick scheduler: blocking calls, and those that passed control to another actor
  // (the only SimGrid activities: a semaphore each)
  std::uint64_t steps = 0;
  std::uint64_t handoffs = 0;
  // ... of the steps, those whose continuation runs host code only (a host thread's, a vCPU
  // thread's inside a halt: next_step_host_only() before the call); the others run guest
  // code, which may read other vCPUs' state (docs/performance.md, the scaling)
  std::uint64_t host_only_steps = 0;
};

}  // namespace vtick
