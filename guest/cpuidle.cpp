// drivers/cpuidle/governors/haltpoll.c and the driver shapes of drivers/cpuidle.
#include "guest/cpuidle.hpp"

namespace vtick {

VTICK_PARAM_TABLE(HaltpollParams, VTICK_HALTPOLL_PARAMS)
VTICK_PARAM_CTOR(HaltpollParams)
VTICK_PARAM_TABLE(CpuidleParams, VTICK_CPUIDLE_PARAMS)
VTICK_PARAM_CTOR(CpuidleParams)

int cpuidle_state_count(const CpuidleParams& p) {
  switch (p.driver) {
    case CpuidleDriver::Haltpoll: return 2;     // cpuidle-haltpoll: poll, "haltpoll idle" (HLT)
    case CpuidleDriver::SingleState: return 1;
    case CpuidleDriver::None: break;
  }
  return 0;
}

int haltpoll_select(const CpuidleDevice& dev, bool* stop_tick) {
  if (dev.poll_limit_ns == 0) return 1;  // no poll window: halt, tick may stop
  if (dev.last_state_idx == 0) {
    if (dev.poll_time_limit) return 1;    // the last poll ran out: halt
    *stop_tick = false;
    return 0;                             // poll again
  }
  *stop_tick = false;
  return 0;                               // the last state was halt: poll first
}

sim_ns adjust_poll_limit(const HaltpollParams& p, sim_ns val, sim_ns block_ns) {
  if (block_ns > val && block_ns <= p.guest_halt_poll_ns) {
    sim_ns v = val * static_cast<sim_ns>(p.guest_halt_poll_grow);
    if (v < p.guest_halt_poll_grow_start) v = p.guest_halt_poll_grow_start;
    if (v > p.guest_halt_poll_ns) v = p.guest_halt_poll_ns;
    return v;
  }
  if (block_ns > p.guest_halt_poll_ns && p.guest_halt_poll_allow_shrink)
    return p.guest_halt_poll_shrink ? val / static_cast<sim_ns>(p.guest_halt_poll_shrink) : 0;
  return val;
}

void haltpoll_reflect(const HaltpollParams& p, CpuidleDevice& dev, int index) {
  dev.last_state_idx = index;
  if (index == 0) return;
  sim_ns old = dev.poll_limit_ns;
  dev.poll_limit_ns = adjust_poll_limit(p, old, dev.last_residency_ns);
  if (dev.poll_limit_ns > old) ++dev.stats.poll_limit_grow;
  if (dev.poll_limit_ns < old) ++dev.stats.poll_limit_shrink;
}

}  // namespace vtick
