// kernel/time/timer.c: calc_wheel_index(), get_next_timer_interrupt(), __run_timers(),
// update_process_times(), run_local_timers().
#include "guest/timer_wheel.hpp"

#include <vector>

#include "guest/kernel.hpp"

namespace vtick {

// update_process_times(): the tick's work on this CPU.
void GuestCpu::update_process_times(sim_ns now) {
  account_process_tick(now);
  hw().run(k_.params().costs.tick_handler_ns);
  run_local_timers();
  k_.sched_tick(*this);
}

// run_local_timers() -> TIMER_SOFTIRQ: the wheel's expired buckets.
void GuestCpu::run_local_timers() {
  if (!wheel_.empty() && wheel_.next_expiry() <= k_.jiffies) wheel_.run(k_.jiffies, *this);
}

std::uint64_t TimerWheel::bucket_expiry(std::uint64_t expires, std::uint64_t clk) {
  constexpr int LVL_CLK_SHIFT = 3, LVL_BITS = 6, LVL_DEPTH = 9;
  constexpr std::uint64_t LVL_SIZE = 1ULL << LVL_BITS;
  if (expires <= clk) return clk;  // already due: the next tick runs it
  std::uint64_t delta = expires - clk;
  for (int lvl = 0; lvl < LVL_DEPTH; ++lvl) {
    std::uint64_t start_next = (LVL_SIZE - 1) << ((lvl + 1 - 1) * LVL_CLK_SHIFT);  // LVL_START(lvl + 1)
    if (lvl + 1 == LVL_DEPTH || delta < start_next) {
      // calc_index(): round up with the level's granularity, so a timer armed at the
      // edge of a tick (or truncated in an outer level) never fires early
      int shift = lvl * LVL_CLK_SHIFT;
      return ((expires >> shift) + 1) << shift;
    }
  }
  return expires;
}

void TimerWheel::add(std::uint64_t expires, std::uint64_t clk, WheelTimer t) {
  t.expires = expires;
  t.bucket_expiry = bucket_expiry(expires, clk);
  timers_.emplace(t.bucket_expiry, std::move(t));
}

sim_ns TimerWheel::get_next_timer_interrupt(std::uint64_t basej, sim_ns basem, sim_ns tick_nsec) const {
  if (timers_.empty()) return KTIME_MAX;
  std::uint64_t next = next_expiry();
  if (next <= basej) return basem;
  return basem + static_cast<sim_ns>(next - basej) * tick_nsec;
}

int TimerWheel::run(std::uint64_t jiffies, GuestCpu& cpu) {
  std::vector<WheelTimer> due;
  while (!timers_.empty() && timers_.begin()->first <= jiffies) {
    due.push_back(std::move(timers_.begin()->second));
    timers_.erase(timers_.begin());
  }
  for (auto& t : due) t.fn(cpu, t);  // callbacks may queue new timers
  return static_cast<int>(due.size());
}

}  // namespace vtick
