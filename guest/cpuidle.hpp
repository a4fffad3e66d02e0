// drivers/cpuidle: the guest's cpuidle driver (none, single-state, cpuidle-haltpoll)
// and the haltpoll governor.
#pragma once
#include <cstdint>
#include <string>

#include "core/time.hpp"

namespace vtick {

// drivers/cpuidle/governors/haltpoll.c module parameters ("haltpoll." boot prefix).
struct HaltpollParams {
  sim_ns guest_halt_poll_ns = 200000;
  unsigned guest_halt_poll_shrink = 2;
  unsigned guest_halt_poll_grow = 2;
  sim_ns guest_halt_poll_grow_start = 50000;
  bool guest_halt_poll_allow_shrink = true;
};

struct CpuidleParams {
  std::string driver = "none";   // none | single-state | haltpoll
  HaltpollParams haltpoll;
};

struct CpuidleStats {
  std::uint64_t poll_entries = 0;     // state 0 (poll) entered
  std::uint64_t poll_timeouts = 0;    // ... left because the poll limit ran out
  sim_ns poll_ns = 0;
  std::uint64_t halt_entries = 0;     // the halt state entered
  std::uint64_t busy = 0;             // call_cpuidle() found need_resched (-EBUSY)
  std::uint64_t poll_limit_grow = 0;
  std::uint64_t poll_limit_shrink = 0;
};

// Per-CPU cpuidle device state the haltpoll governor keeps (struct cpuidle_device).
struct CpuidleDevice {
  sim_ns poll_limit_ns = 0;
  int last_state_idx = -1;
  bool poll_time_limit = false;
  sim_ns last_residency_ns = 0;
  CpuidleStats stats;
};

int cpuidle_state_count(const CpuidleParams& p);  // 0: no driver

// haltpoll_select(): 0 = poll, 1 = halt; may clear *stop_tick.
int haltpoll_select(const CpuidleDevice& dev, bool* stop_tick);
// haltpoll_reflect() -> adjust_poll_limit() after a halt of `block_ns`.
void haltpoll_reflect(const HaltpollParams& p, CpuidleDevice& dev, int index);
sim_ns adjust_poll_limit(const HaltpollParams& p, sim_ns poll_limit_ns, sim_ns block_ns);

}  // namespace vtick
