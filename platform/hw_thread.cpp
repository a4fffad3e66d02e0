#include "platform/hw_thread.hpp"

#include "core/warn.hpp"

#include "core/sg.hpp"
#include "core/trace.hpp"
#include <simgrid/s4u/Host.hpp>

namespace vtick {

const char* hw_activity_name(HwActivity a) {
  switch (a) {
    case HwActivity::Idle: return "idle";
    case HwActivity::Guest: return "guest";
    case HwActivity::HostKernel: return "host_kernel";
    case HwActivity::HaltPoll: return "halt_poll";
    case HwActivity::GuestPoll: return "guest_poll";
    case HwActivity::HostThread: return "host_thread";
    default: return "?";
  }
}

HwThread::HwThread(int id, std::string name, simgrid::s4u::Host* host, const ArchCosts& costs)
    : id_(id), name_(std::move(name)), host_(host), costs_(costs) {}

int HwThread::pstate_for(HwActivity s) {
  switch (s) {
    case HwActivity::Idle: return kSiblingIdle;
    case HwActivity::HaltPoll:
    case HwActivity::GuestPoll: return kSiblingSpin;
    default: return kSiblingBusy;
  }
}

double HwThread::speed_factor() const {
  if (!sibling_) return 1.0;
  switch (pstate_for(sibling_->activity())) {
    case kSiblingBusy: return costs_.smt_factor_busy;
    case kSiblingSpin: return costs_.smt_factor_spin;
    default: return 1.0;
  }
}

void HwThread::set_activity(HwActivity a, sim_ns now) {
  HwActivity old = clock_.current();
  if (a == old) return;
  VTICK_WARN(now < clock_.since(), "hardware thread ", id_, ": time went back by ", clock_.since() - now, " ns");
  if (old == HwActivity::Idle) idle_cstate_[static_cast<int>(cstate_)] += now - idle_since_;
  if (a == HwActivity::Idle) idle_since_ = now;
  clock_.enter(a, now);
  trace::hw_activity(now, -1 - id_, a, cstate_);
  if (sibling_) {
    sibling_->sibling_changed(now);
    if (pstate_for(old) != pstate_for(a)) set_host_pstate(sibling_->host_, static_cast<unsigned long>(pstate_for(a)));
  }
}

void HwThread::sibling_changed(sim_ns now) {
  // Keep co-busy bookkeeping on the lower-numbered thread of the pair only.
  HwThread* owner = id_ < sibling_->id_ ? this : sibling_;
  bool both = busy(activity()) && busy(sibling_->activity());
  if (both != owner->co_busy_) {
    if (owner->co_busy_) owner->co_total_ += now - owner->co_since_;
    owner->co_busy_ = both;
    owner->co_since_ = now;
  }
}

void HwThread::set_cstate(HostCState s, sim_ns now) {
  if (activity() == HwActivity::Idle) {
    idle_cstate_[static_cast<int>(cstate_)] += now - idle_since_;
    idle_since_ = now;
    if (s != cstate_) trace::hw_activity(now, -1 - id_, HwActivity::Idle, s);
  }
  cstate_ = s;
}

sim_ns HwThread::co_busy_ns(sim_ns now) const {
  if (!sibling_) return 0;
  const HwThread* owner = id_ < sibling_->id_ ? this : sibling_;
  return owner->co_total_ + (owner->co_busy_ ? now - owner->co_since_ : 0);
}

std::array<sim_ns, kNumCStates> HwThread::idle_by_cstate(sim_ns now) const {
  auto r = idle_cstate_;
  if (activity() == HwActivity::Idle) r[static_cast<int>(cstate_)] += now - idle_since_;
  return r;
}

}  // namespace vtick
