// kernel/sched/idle.c cpuidle_idle_call() on a host CPU: the governor, the POLL state
// (drivers/cpuidle/poll_state.c) and the host tick (kernel/time/tick-sched.c idle paths).
#include <algorithm>

#include "core/trace.hpp"
#include "host/host_sched.hpp"
#include "platform/sg_platform.hpp"

namespace vtick {

namespace {
// A real host always has a timer-wheel event within about a second (clocksource
// watchdog, vmstat, writeback): the sleep length the governors see is capped there.
constexpr sim_ns kHostWheelHorizon = NSEC_PER_SEC;
// CPUIDLE_POLL_MIN / CPUIDLE_POLL_MAX (drivers/cpuidle/cpuidle.c cpuidle_poll_time()).
constexpr sim_ns kPollMin = 10 * NSEC_PER_USEC;
constexpr sim_ns kNoLatencyLimit = 2000 * NSEC_PER_SEC;  // PM_QOS_CPU_LATENCY_DEFAULT_VALUE
}  // namespace

// The host cpuidle driver's table: intel_idle / acpi_idle put POLL first on x86;
// cpuidle-psci and ACPI LPI start at WFI on arm64. States beyond max_cstate are not
// registered (intel_idle.max_cstate, processor.max_cstate), and a state no different from
// the one before it (Milan's and Altra's C1E) is not a state of its own.
std::vector<cpuidle::CpuidleState> host_idle_states(const ArchCosts& c, HostCState max, std::vector<int>& as_cstate) {
  std::vector<cpuidle::CpuidleState> st;
  as_cstate.clear();
  if (c.isa == Isa::X86_64) {
    st.push_back({"POLL", 0, 0, true, false});
    as_cstate.push_back(-1);
  }
  for (int s = 0; s <= static_cast<int>(max); ++s) {
    auto cs = static_cast<HostCState>(s);
    cpuidle::CpuidleState x{cstate_name(cs), c.cstate_exit_ns(cs), c.cstate_residency_ns(cs), false, false};
    if (!st.empty() && !st.back().polling && x.exit_latency_ns == st.back().exit_latency_ns &&
        x.target_residency_ns == st.back().target_residency_ns)
      continue;
    st.push_back(x);
    as_cstate.push_back(s);
  }
  return st;
}

// cpuidle_poll_time(): the first enabled state with a target residency of at least
// CPUIDLE_POLL_MIN bounds the poll, at most TICK_NSEC / 16.
sim_ns cpuidle_poll_time(const std::vector<cpuidle::CpuidleState>& st, sim_ns tick_nsec) {
  sim_ns limit = tick_nsec / 16;
  for (size_t i = 1; i < st.size(); ++i) {
    if (st[i].disabled || st[i].target_residency_ns < kPollMin) continue;
    return std::min(st[i].target_residency_ns, limit);
  }
  return limit;
}

static cpuidle::GovernorKind governor_kind(IdleGovernor g) {
  switch (g) {
    case IdleGovernor::Teo: return cpuidle::GovernorKind::Teo;
    case IdleGovernor::Ladder: return cpuidle::GovernorKind::Ladder;
    default: return cpuidle::GovernorKind::Menu;
  }
}

void HostScheduler::init_idle() {
  states_ = host_idle_states(costs_, p_.max_cstate, state_cstate_);
  poll_limit_ = cpuidle_poll_time(states_, NSEC_PER_SEC / p_.hz);
  for (auto& c : cpus_) c->gov = cpuidle::CpuidleGovernor::create(governor_kind(p_.idle_governor), states_);
}

// The hardware thread enters C-state `want` at t (POLL is entered as C1: see below).
void HostScheduler::enter_cstate(HostCpu& c, HostCState want, sim_ns t) {
  c.requested = want;
  c.hw.set_cstate(want, t);
  c.hw.set_activity(HwActivity::Idle, t);
  trace::host_idle(t, -1 - c.hw.id(), want);  // host CPUs are -1, -2, ...
}

// Leaving the current segment's state at t: its exit latency, and the state reached
// (a POLL is left at once; a C-state may be capped by the SMT sibling).
sim_ns HostScheduler::exit_latency_at(HostCpu& c, sim_ns t, HostCState& reached) const {
  if (states_[static_cast<size_t>(c.idle_idx)].polling) {
    reached = HostCState::C1;
    return 0;
  }
  reached = state_reached(c, t);
  return costs_.cstate_exit_ns(reached);
}

// do_idle(): tick_nohz_idle_enter(), then the governor's choice. promote asks for the
// deepest allowed state and lets idle time decide; poll spins (cpu_idle_poll()).
void HostScheduler::go_idle(HostCpu& c) {
  sim_ns t = now();
  c.idle_since = t;
  ++c.stats.idle_entries;
  c.tick_stopped = false;  // a CPU leaves its idle loop with the tick running
  c.idle_idx = -1;
  c.seg_end = KTIME_MAX;
  switch (p_.idle_governor) {
    case IdleGovernor::Promote: enter_cstate(c, p_.max_cstate, t); return;
    case IdleGovernor::Poll:
      c.requested = HostCState::C1;
      c.hw.set_activity(HwActivity::HaltPoll, t);  // a cpu_relax() loop, as KVM's halt polling
      trace::host_idle(t, -1 - c.hw.id(), HostCState::C1);
      return;
    default: cpuidle_idle_call(c, t); return;
  }
}

// One pass of cpuidle_idle_call() at t: the governor picks a state from the sleep length
// (the earliest hrtimer on this CPU, for a blocked vCPU its guest's armed timer) and says
// whether the tick may stop; a retained tick ends the segment at the next tick, POLL at
// cpuidle_poll_time().
void HostScheduler::cpuidle_idle_call(HostCpu& c, sim_ns t) {
  const sim_ns tick = NSEC_PER_SEC / p_.hz;
  sim_ns next = std::min(next_timer_on(c), t + kHostWheelHorizon);
  sim_ns next_tick = (t / tick + 1) * tick;
  cpuidle::IdleQuery q{};
  q.sleep_length = std::max<sim_ns>(next - t, 0);
  q.delta_tick = c.tick_stopped ? q.sleep_length : std::min(q.sleep_length, next_tick - t);
  q.tick_stopped = c.tick_stopped;
  q.latency_req = p_.pm_qos_latency < 0 ? kNoLatencyLimit : p_.pm_qos_latency;
  q.tick_nsec = tick;
  bool stop_tick = true;
  int idx = c.gov->select(states_, c.dev, q, stop_tick);
  if (stop_tick && !c.tick_stopped) {  // tick_nohz_idle_stop_tick(); else tick_nohz_idle_retain_tick()
    c.tick_stopped = true;
    ++c.stats.tick_stops;
  }
  c.idle_idx = idx;
  c.seg_start = t;
  c.seg_by_tick = !c.tick_stopped;
  c.seg_end = c.tick_stopped ? KTIME_MAX : next_tick;
  const cpuidle::CpuidleState& s = states_[static_cast<size_t>(idx)];
  if (s.polling) {
    // poll_idle() leaves only on need_resched or its time limit; a tick meanwhile is
    // handled while polling and only marks the period (tick_nohz_idle_got_tick())
    ++c.stats.poll_choices;
    c.dev.poll_time_limit = false;  // poll_idle() clears it on entry
    c.seg_by_tick = !c.tick_stopped && next_tick <= t + poll_limit_;
    c.seg_end = t + poll_limit_;
    // Kept as idle at C1 for the SMT sibling: a POLL lasts cpuidle_poll_time() at most
    // (20 us on Skylake-SP) and its end is only replayed at the next wake-up, when a
    // sibling's speed can no longer change in the past.
    enter_cstate(c, HostCState::C1, t);
    return;
  }
  auto want = static_cast<HostCState>(state_cstate_[static_cast<size_t>(idx)]);
  ++c.stats.idle_choices[static_cast<int>(want)];
  enter_cstate(c, want, t);
}

// The segments that ended before t without a wake-up: a host tick or a POLL timeout woke
// the CPU, the governor learnt of it (cpuidle_reflect()) and chose again once out of the
// state. Strictly before t: a wake-up at the same instant is seen first (need_resched is
// checked before the governor runs, and poll_idle()'s time limit is a strict test).
void HostScheduler::idle_catch_up(HostCpu& c, sim_ns t) {
  if (p_.idle_governor == IdleGovernor::Poll || p_.idle_governor == IdleGovernor::Promote) return;
  for (;;) {
    if (c.idle_idx < 0) {  // leaving a state after an internal wake-up, until seg_start
      if (c.seg_start >= t) return;
      cpuidle_idle_call(c, c.seg_start);
      continue;
    }
    if (c.seg_end >= t) return;
    sim_ns e = c.seg_end;
    if (states_[static_cast<size_t>(c.idle_idx)].polling) {
      ++c.stats.poll_timeouts;
      c.dev.poll_time_limit = true;
    } else {
      ++c.stats.tick_wakeups;
    }
    sim_ns lat = exit_latency_at(c, e, c.leaving);
    c.dev.last_residency_ns = e - c.seg_start + lat;
    c.gov->reflect(c.dev, c.idle_idx, c.seg_by_tick);
    // the tick handler's few microseconds stay idle time: they only show at this replay,
    // when the SMT sibling's speed can no longer change in the past
    c.idle_idx = -1;
    c.seg_start = e + lat;
  }
}

void HostScheduler::sync_idle(sim_ns t) {
  for (auto& c : cpus_)
    if (c->idle()) idle_catch_up(*c, t);
}

// The wake-up at t: the exit latency still to pay, and the governor's reflect() of the
// idle period that ends here.
sim_ns HostScheduler::idle_exit(HostCpu& c, sim_ns t, HostCState& reached) {
  if (p_.idle_governor == IdleGovernor::Poll) {
    reached = HostCState::C1;
    return 0;
  }
  if (p_.idle_governor == IdleGovernor::Promote) {
    reached = state_reached(c, t);
    return costs_.cstate_exit_ns(reached);
  }
  if (HwThread* sib = c.hw.sibling())  // its state now, for the core C-state cap
    if (HostCpu& sc = *cpus_[static_cast<size_t>(sib->id())]; sc.idle()) idle_catch_up(sc, t);
  idle_catch_up(c, t);
  if (c.idle_idx < 0) {  // still leaving the state an internal wake-up woke it from
    reached = c.leaving;
    return c.seg_start - t;
  }
  sim_ns lat = exit_latency_at(c, t, reached);
  c.dev.last_residency_ns = t - c.seg_start + lat;
  c.gov->reflect(c.dev, c.idle_idx, false);
  c.idle_idx = -1;
  return lat;
}

// The state the hardware thread is really in when woken: promotion by idle time, and a
// core with a busy SMT sibling stays out of core C-states (C1 at most).
HostCState HostScheduler::state_reached(HostCpu& c, sim_ns t) const {
  int s = static_cast<int>(c.requested);
  if (p_.idle_governor == IdleGovernor::Promote)
    while (s > 0 && t - c.idle_since < costs_.cstate_residency_ns(static_cast<HostCState>(s))) --s;
  if (HwThread* sib = c.hw.sibling()) {
    int cap = sib->activity() == HwActivity::Idle ? static_cast<int>(sib->cstate()) : 0;
    s = std::min(s, std::max(cap, 0));
  }
  return static_cast<HostCState>(s);
}

}  // namespace vtick
