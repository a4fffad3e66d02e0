// One hardware thread: a SimGrid host whose speed follows its SMT sibling's activity.
#pragma once
#include <array>
#include <string>

#include "platform/arch.hpp"
#include "core/state_clock.hpp"
#include "core/time.hpp"

namespace simgrid::s4u { class Host; }

namespace vtick {

// What a hardware thread is doing, as far as its SMT sibling can tell.
enum class HwActivity {
  Idle,        // host idle (a C-state): the vCPU thread is blocked or nothing runs
  Guest,       // guest mode: guest kernel or user code
  HostKernel,  // host kernel on behalf of a vCPU: exit handling, entry, schedule()
  HaltPoll,    // KVM halt polling (cpu_relax loop)
  GuestPoll,   // guest polling idle (idle=poll, haltpoll poll state), in guest mode
  HostThread,  // a host thread other than a vCPU (I/O, vhost, noise)
  Count
};
const char* hw_activity_name(HwActivity a);

// SimGrid pstate index a hardware thread runs at, given its sibling's activity.
enum SmtPstate { kSiblingIdle = 0, kSiblingBusy = 1, kSiblingSpin = 2 };

class HwThread {
 public:
  HwThread(int id, std::string name, simgrid::s4u::Host* host, const ArchCosts& costs);

  int id() const { return id_; }
  const std::string& name() const { return name_; }
  simgrid::s4u::Host* host() const { return host_; }
  void set_sibling(HwThread* s) { sibling_ = s; }
  HwThread* sibling() const { return sibling_; }

  HwActivity activity() const { return clock_.current(); }
  // Switches activity at `now`; an SMT sibling's in-flight work speeds up or slows down
  // from this instant (SimGrid re-shares the host at the new pstate speed).
  void set_activity(HwActivity a, sim_ns now);
  // Host idle state reached while Idle (for the time breakdown).
  void set_cstate(HostCState s, sim_ns now);
  HostCState cstate() const { return cstate_; }

  void start(sim_ns now) { clock_.start(HwActivity::Idle, now); idle_since_ = now; }
  std::array<sim_ns, static_cast<size_t>(HwActivity::Count)> breakdown(sim_ns now) const { return clock_.totals(now); }
  std::array<sim_ns, kNumCStates> idle_by_cstate(sim_ns now) const;
  sim_ns co_busy_ns(sim_ns now) const;   // time both this thread and its sibling were busy
  double speed_factor() const;           // current speed relative to nominal

  static bool busy(HwActivity a) { return a != HwActivity::Idle; }

 private:
  void sibling_changed(sim_ns now);
  static int pstate_for(HwActivity sibling);

  int id_;
  std::string name_;
  simgrid::s4u::Host* host_;
  const ArchCosts& costs_;
  HwThread* sibling_ = nullptr;
  StateClock<HwActivity> clock_;
  HostCState cstate_ = HostCState::C1;
  sim_ns idle_since_ = 0;
  std::array<sim_ns, kNumCStates> idle_cstate_{};
  // co-busy accounting: both busy since co_since_ when co_busy_
  bool co_busy_ = false;
  sim_ns co_since_ = 0;
  sim_ns co_total_ = 0;
};

}  // namespace vtick
