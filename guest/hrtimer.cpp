// kernel/time/hrtimer.c, kernel/time/clockevents.c, kernel/time/tick-oneshot.c
#include "guest/hrtimer.hpp"

#include <algorithm>
#include <vector>

#include "core/trace.hpp"
#include "platform/vhw.hpp"

namespace vtick {

std::uint64_t Hrtimer::forward(sim_ns now, sim_ns interval) {
  sim_ns delta = now - expires;
  if (delta < 0) return 0;
  std::uint64_t orun = 1;
  if (delta >= interval) {
    sim_ns n = delta / interval;
    expires += n * interval;
    softexpires += n * interval;
    if (expires > now) return static_cast<std::uint64_t>(n);
    orun = static_cast<std::uint64_t>(n) + 1;
  }
  expires += interval;
  softexpires += interval;
  return orun;
}

// --- clock event device -------------------------------------------------------

int ClockEventDevice::cpu() const { return hw_->cpu_id(); }
sim_ns ClockEventDevice::now() const { return hw_->clock(); }

void ClockEventDevice::write_deadline(sim_ns t) {
  ++stats_.deadline_writes;
  if (tracing()) trace::clockevent_write(now(), cpu(), isa_ == Isa::X86_64 ? "TSC_DEADLINE" : "CNTV_CVAL_EL0", t);
  hw_->timer_write_deadline(t);
  // lapic_next_deadline(): wrmsrq(MSR_IA32_TSC_DEADLINE), traced after it returns
  if (isa_ == Isa::X86_64 && tracing()) trace::write_msr(now(), cpu(), 0x6e0, t);
}

void ClockEventDevice::write_control(bool en) {
  ++stats_.control_writes;
  if (tracing()) trace::clockevent_write(now(), cpu(), isa_ == Isa::X86_64 ? "LVTT" : "CNTV_CTL_EL0", en);
  hw_->timer_write_control(en);
  // x2APIC: the LVTT is MSR 0x832 (apic_write() -> native_apic_msr_write())
  if (isa_ == Isa::X86_64 && tracing()) trace::write_msr(now(), cpu(), 0x832, en ? 0 : 0x10000);  // APIC_LVT_MASKED
}

// clockevents_switch_state() between ONESHOT and ONESHOT_STOPPED.
void ClockEventDevice::set_state_stopped(bool stopped) {
  if (stopped == stopped_) return;
  stopped_ = stopped;
  if (stopped) {
    ++stats_.stop;
    write_control(false);                           // LVTT |= MASKED / CNTV_CTL.ENABLE = 0
    if (isa_ == Isa::X86_64) write_deadline(0);     // lapic_timer_shutdown: TSC_DEADLINE = 0
  } else {
    ++stats_.restart;
    if (isa_ == Isa::X86_64) write_control(true);   // lapic_timer_set_oneshot: LVTT
  }
}

// tick_program_event()
void ClockEventDevice::tick_program_event(sim_ns expires) {
  if (expires == KTIME_MAX) {
    set_state_stopped(true);
    next_event_ = KTIME_MAX;
    return;
  }
  set_state_stopped(false);
  next_event_ = expires;
  ++stats_.program;
  write_deadline(expires);                         // lapic_next_deadline / CNTV_CVAL
  if (isa_ == Isa::Arm64) write_control(true);     // arch_timer_set_next_event: CNTV_CTL
}

// --- hrtimer cpu base ---------------------------------------------------------

void HrtimerBase::enqueue(Hrtimer& t) {
  t.seq = ++seq_;
  t.queued = true;
  t.base_cpu = cpu_;
  queue_.insert(std::lower_bound(queue_.begin(), queue_.end(), &t, ByExpiry{}), &t);
}

void HrtimerBase::migrate_to(HrtimerBase& to) {
  std::vector<Hrtimer*> all = queue_;  // in expiry order: the same order there
  queue_.clear();
  for (Hrtimer* t : all) to.enqueue(*t);
  expires_next_ = KTIME_MAX;  // this CPU's device is shut down with it
  next_timer_ = nullptr;
}

void HrtimerBase::remove(Hrtimer& t) {
  auto it = std::find(queue_.begin(), queue_.end(), &t);
  if (it != queue_.end()) queue_.erase(it);
  t.queued = false;
}

sim_ns HrtimerBase::next_event_without(const Hrtimer* excl) const {
  for (const Hrtimer* t : queue_)
    if (t != excl) return t->expires;
  return KTIME_MAX;
}

void HrtimerBase::force_reprogram() {
  sim_ns e = queue_.empty() ? KTIME_MAX : (*queue_.begin())->expires;
  next_timer_ = queue_.empty() ? nullptr : *queue_.begin();
  if (e == expires_next_) return;
  expires_next_ = e;
  dev_.tick_program_event(e);
}

void HrtimerBase::reprogram(Hrtimer& t) {
  if (t.expires >= expires_next_) return;  // only an earlier timer needs the hardware
  if (in_hrtirq_) return;                   // hrtimer_interrupt() programs on its way out
  next_timer_ = &t;
  expires_next_ = t.expires;
  dev_.tick_program_event(t.expires);
}

// __hrtimer_start_range_ns(): a restart of the current earliest timer (force_local)
// re-evaluates the device once after enqueueing; any other start reprograms only if
// the timer becomes the earliest.
void HrtimerBase::start(Hrtimer& t, sim_ns expires, sim_ns delta) {
  bool force_local = (&t == next_timer_);
  if (t.queued) remove(t);
  t.softexpires = expires;
  t.expires = expires + delta;
  if (tracing()) trace::hrtimer_start(dev_.now(), dev_.cpu(), &t, t.name, t.expires, t.softexpires);
  enqueue(t);
  if (force_local) force_reprogram();
  else if (*queue_.begin() == &t) reprogram(t);
}

void HrtimerBase::start_expires(Hrtimer& t) { start(t, t.softexpires, t.expires - t.softexpires); }

// hrtimer_cancel() -> remove_hrtimer(): the hardware is touched only when the
// cancelled timer was the one it is programmed for.
void HrtimerBase::cancel(Hrtimer& t) {
  if (!t.queued) return;
  remove(t);
  if (&t == next_timer_) force_reprogram();
}

void HrtimerBase::interrupt(const std::function<sim_ns()>& now_fn) {
  dev_.event_fired();
  for (int attempt = 0; attempt < 3; ++attempt) {
    sim_ns now = now_fn();
    in_hrtirq_ = true;
    expires_next_ = KTIME_MAX;
    next_timer_ = nullptr;  // starts from callbacks queue only; the exit programs once
    // __hrtimer_run_queues(): in hard-expiry order, stop at the first timer whose
    // soft expiry is still ahead.
    while (!queue_.empty()) {
      Hrtimer* t = *queue_.begin();
      if (t->softexpires > now) break;
      remove(*t);
      if (tracing()) trace::hrtimer_expire_entry(now, dev_.cpu(), t, t->name, now, t->expires);
      if (t->function(now_fn()) == HrtimerRestart::Restart && !t->queued) enqueue(*t);
    }
    next_timer_ = queue_.empty() ? nullptr : *queue_.begin();
    expires_next_ = next_timer_ ? next_timer_->expires : KTIME_MAX;
    in_hrtirq_ = false;
    // tick_program_event(expires_next, 0) fails with -ETIME for a time already past:
    // run the queue again (hrtimer_interrupt retries up to three times).
    if (expires_next_ == KTIME_MAX || expires_next_ > now_fn()) break;
  }
  dev_.tick_program_event(expires_next_);
}

}  // namespace vtick
