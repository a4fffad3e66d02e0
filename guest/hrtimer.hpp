// kernel/time/hrtimer.c + clockevents.c + tick-oneshot.c: per-CPU hrtimers and the tick device.
#pragma once
#include "core/stats.hpp"
#include <cstdint>
#include <functional>
#include <vector>

#include "core/time.hpp"
#include "platform/arch.hpp"

namespace vtick {

class VirtualCpu;

enum class HrtimerRestart { NoRestart, Restart };

struct Hrtimer {
  const char* name = "";
  std::function<HrtimerRestart(sim_ns now)> function;
  sim_ns softexpires = 0;  // earliest expiry
  sim_ns expires = 0;      // hard expiry = softexpires + slack; the queue is sorted by it
  bool queued = false;
  int base_cpu = -1;       // the CPU whose base holds it: where its callback runs
  std::uint64_t seq = 0;   // insertion order: deterministic tie-break

  void set_expires(sim_ns t) { softexpires = expires = t; }
  // hrtimer_forward(): push the expiry past `now` by whole intervals; returns overruns.
  std::uint64_t forward(sim_ns now, sim_ns interval);
};

// Counts of what the guest asked its timer hardware to do (each a register write).
#define VTICK_CLOCKEVENT_STATS(C)                                                                                    \
  C(std::uint64_t, program, "program", "count", Counter, "clockevents_program_event(): set_next_event with a new deadline") \
  C(std::uint64_t, stop, "stop", "count", Counter, "ONESHOT -> ONESHOT_STOPPED (the driver's shutdown)")             \
  C(std::uint64_t, restart, "restart", "count", Counter, "ONESHOT_STOPPED -> ONESHOT")                              \
  C(std::uint64_t, deadline_writes, "deadline_writes", "count", Counter, "TSC_DEADLINE / CNTV_CVAL_EL0 register writes") \
  C(std::uint64_t, control_writes, "control_writes", "count", Counter, "LVTT / CNTV_CTL_EL0 register writes")
struct ClockeventStats {
  VTICK_STATS(VTICK_CLOCKEVENT_STATS)
};

// The per-CPU clock event device in oneshot mode, driven by tick_program_event(), with
// the register writes of its driver: x86 lapic-deadline (arch/x86/kernel/apic/apic.c:
// lapic_next_deadline = 1 TSC_DEADLINE write; lapic_timer_shutdown = LVTT masked +
// TSC_DEADLINE=0; lapic_timer_set_oneshot = LVTT write) or arm64 arch_timer
// (drivers/clocksource/arm_arch_timer.c: set_next_event = CVAL + CTL; shutdown = CTL).
class ClockEventDevice {
 public:
  ClockEventDevice(Isa isa, VirtualCpu*& hw) : isa_(isa), hw_(hw) {}
  void tick_program_event(sim_ns expires);  // KTIME_MAX stops the device
  void event_fired() { next_event_ = KTIME_MAX; }
  sim_ns next_event() const { return next_event_; }
  bool stopped() const { return stopped_; }
  const ClockeventStats& stats() const { return stats_; }
  // For tracing: the CPU this device belongs to, and its clock.
  int cpu() const;
  sim_ns now() const;

 private:
  void set_state_stopped(bool stopped);
  void write_deadline(sim_ns t);
  void write_control(bool en);
  Isa isa_;
  VirtualCpu*& hw_;
  bool stopped_ = true;  // until the first program (tick_setup_sched_timer)
  sim_ns next_event_ = KTIME_MAX;
  ClockeventStats stats_;
};

// struct hrtimer_cpu_base: the per-CPU queue of hrtimers (hard-irq base only).
class HrtimerBase {
 public:
  HrtimerBase(ClockEventDevice& dev, int cpu) : dev_(dev), cpu_(cpu) {}
  // hrtimer_start_range_ns(): fires between `expires` and `expires + delta`.
  void start(Hrtimer& t, sim_ns expires, sim_ns delta = 0);
  void start_expires(Hrtimer& t);  // hrtimer_start_expires(): keep the timer's expiry
  void cancel(Hrtimer& t);         // hrtimer_cancel() on the local CPU
  // hrtimer_interrupt(): run every timer whose soft expiry has passed, then program
  // the device once for the next expiry. `now_fn` reads the clock (callbacks take time).
  void interrupt(const std::function<sim_ns()>& now_fn);
  sim_ns expires_next() const { return expires_next_; }
  // hrtimers_cpu_dying() -> migrate_hrtimer_list(): every queued timer to `to`, which is
  // not programmed here (another CPU's device): its CPU calls retrigger_next_event().
  void migrate_to(HrtimerBase& to);
  void retrigger_next_event() { force_reprogram(); }  // hrtimer_force_reprogram() on its own CPU
  // Earliest hard expiry of any queued timer except `excl` (hrtimer_next_event_without).
  sim_ns next_event_without(const Hrtimer* excl) const;

 private:
  struct ByExpiry {
    bool operator()(const Hrtimer* a, const Hrtimer* b) const {
      return a->expires != b->expires ? a->expires < b->expires : a->seq < b->seq;
    }
  };
  void enqueue(Hrtimer& t);
  void remove(Hrtimer& t);
  void force_reprogram();  // hrtimer_force_reprogram(cpu_base, skip_equal = 1)
  void reprogram(Hrtimer& t);  // hrtimer_reprogram(): only if it becomes the earliest

  ClockEventDevice& dev_;
  int cpu_;
  std::vector<Hrtimer*> queue_;  // the timerqueue, sorted ByExpiry (a few timers: no node to allocate per start)
  sim_ns expires_next_ = KTIME_MAX;
  const Hrtimer* next_timer_ = nullptr;
  bool in_hrtirq_ = false;
  std::uint64_t seq_ = 0;
};

}  // namespace vtick
