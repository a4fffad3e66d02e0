// kernel/time/timer.c: the per-CPU timer wheel (BASE_STD) that tick_nohz_next_event() asks.
#pragma once
#include <cstdint>
#include <functional>
#include <map>

#include "core/time.hpp"

namespace vtick {

class GuestCpu;

struct WheelTimer {
  std::uint64_t expires = 0;         // jiffies asked for
  std::uint64_t bucket_expiry = 0;   // jiffies it really fires at (level granularity)
  std::function<void(GuestCpu&, const WheelTimer&)> fn;
  sim_ns queued_at = 0;
};

class TimerWheel {
 public:
  // __mod_timer() / add_timer_on(): queue for `expires` (jiffies) at wheel clock `clk`.
  void add(std::uint64_t expires, std::uint64_t clk, WheelTimer t);
  bool empty() const { return timers_.empty(); }
  // The earliest bucket expiry in jiffies (only meaningful when not empty).
  std::uint64_t next_expiry() const { return timers_.begin()->first; }
  // get_next_timer_interrupt(): KTIME_MAX when nothing is queued.
  sim_ns get_next_timer_interrupt(std::uint64_t basej, sim_ns basem, sim_ns tick_nsec) const;
  // __run_timers(): fires every timer whose bucket has expired at `jiffies`.
  int run(std::uint64_t jiffies, GuestCpu& cpu);
  // calc_wheel_index(): rounds up to the level's granularity (+1 jiffy at level 0;
  // LVL_CLK_SHIFT 3, 64 slots per level).
  static std::uint64_t bucket_expiry(std::uint64_t expires, std::uint64_t clk);
  // timers_dead_cpu() -> migrate_timer_list(): every pending timer to `to`, same expiry.
  void migrate_to(TimerWheel& to) {
    to.timers_.insert(timers_.begin(), timers_.end());
    timers_.clear();
  }

 private:
  std::multimap<std::uint64_t, WheelTimer> timers_;
};

}  // namespace vtick
