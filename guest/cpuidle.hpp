// drivers/cpuidle: the guest's cpuidle driver (none, single-state, cpuidle-haltpoll)
// and the haltpoll governor.
#pragma once
#include "core/stats.hpp"
#include <cstdint>
#include <string>

#include "core/param.hpp"
#include "core/time.hpp"

namespace vtick {

// drivers/cpuidle/governors/haltpoll.c module parameters, set on the guest's command line
// with the "haltpoll." prefix (haltpoll.guest_halt_poll_ns=...).
#define HALTPOLL_C "drivers/cpuidle/governors/haltpoll.c module parameter"
#define VTICK_HALTPOLL_PARAMS(P)                                                                                     \
  P(sim_ns, guest_halt_poll_ns, ".guest_halt_poll_ns", Int, 200000, 0, 10e6, "ns", HALTPOLL_C,                      \
    "longest poll of the haltpoll governor before it halts")                                                         \
  P(unsigned, guest_halt_poll_shrink, ".guest_halt_poll_shrink", Int, 2, 0, 64, "divisor", HALTPOLL_C,              \
    "divisor when a long halt shrinks the poll limit (0: reset)")                                                    \
  P(unsigned, guest_halt_poll_grow, ".guest_halt_poll_grow", Int, 2, 0, 64, "factor", HALTPOLL_C,                   \
    "multiplier when a short halt grows the poll limit")                                                             \
  P(sim_ns, guest_halt_poll_grow_start, ".guest_halt_poll_grow_start", Int, 50000, 0, 10e6, "ns", HALTPOLL_C,       \
    "first poll limit when growing from 0")                                                                          \
  P(bool, guest_halt_poll_allow_shrink, ".guest_halt_poll_allow_shrink", Bool, true, kNoMin, kNoMax, "", HALTPOLL_C, \
    "whether a long halt shrinks the poll limit")
struct HaltpollParams {
  VTICK_PARAMS(HaltpollParams, VTICK_HALTPOLL_PARAMS);
};

// The guest's cpuidle driver (drivers/cpuidle): none (default_idle_call), a single-state
// driver (one halt state, e.g. ACPI C1 or arm64 WFI), or cpuidle-haltpoll (poll + halt).
enum class CpuidleDriver { None, SingleState, Haltpoll };
VTICK_ENUM_NAMES(CpuidleDriver, "none", "single-state", "haltpoll");

#define VTICK_CPUIDLE_PARAMS(P)                                                                                      \
  P(CpuidleDriver, driver, ".cpuidle_driver", Enum, "none", kNoMin, kNoMax, "",                                      \
    "the reported guests run without a cpuidle driver (domain/mission.md)", "guest cpuidle driver")
struct CpuidleParams {
  VTICK_PARAMS(CpuidleParams, VTICK_CPUIDLE_PARAMS);
  HaltpollParams haltpoll;
};

#define VTICK_CPUIDLE_STATS(C)                                                                                       \
  C(std::uint64_t, poll_entries, "poll_entries", "count", Counter, "state 0 (poll_idle) entered (the state's usage)") \
  C(std::uint64_t, poll_timeouts, "poll_timeouts", "count", Counter, "polls left because the poll limit ran out")    \
  C(sim_ns, poll_ns, "poll_ns", "ns", Counter, "time in state 0 (the state's time)")                               \
  C(std::uint64_t, halt_entries, "halt_entries", "count", Counter, "the halt state entered")                       \
  C(std::uint64_t, busy, "busy", "count", Counter, "call_cpuidle() found need_resched (-EBUSY)")                   \
  C(std::uint64_t, poll_limit_grow, "poll_limit_grow", "count", Counter, "haltpoll adjust_poll_limit() grew the limit") \
  C(std::uint64_t, poll_limit_shrink, "poll_limit_shrink", "count", Counter, "haltpoll adjust_poll_limit() shrank the limit")
struct CpuidleStats {
  VTICK_STATS(VTICK_CPUIDLE_STATS)
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
