// The host's kernel/sched on the VM's hardware threads (vCPU threads and host threads),
// and the host's idle loop (kernel/sched/idle.c, a cpuidle governor, the host tick) for idle ones.
#pragma once
#include "core/stats.hpp"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/param.hpp"
#include "core/sg.hpp"
#include "host/cpuidle_gov.hpp"
#include "core/time.hpp"
#include "platform/arch.hpp"
#include "platform/hw_thread.hpp"

namespace vtick {

struct Machine;
class HostCpu;

// How an idle hardware thread's C-state is chosen.
enum class IdleGovernor {
  Menu,     // drivers/cpuidle/governors/menu.c (host/menu.cpp)
  Teo,      // drivers/cpuidle/governors/teo.c (host/teo.cpp)
  Ladder,   // drivers/cpuidle/governors/ladder.c (host/ladder.cpp)
  Poll,     // idle=poll on the host: cpu_idle_poll(), no C-state
  Promote,  // the deepest allowed state, reached by idle time (hardware auto-promotion)
};
VTICK_ENUM_NAMES(IdleGovernor, "menu", "teo", "ladder", "poll", "promote");

#define VTICK_HOST_SCHED_PARAMS(P)                                                                                   \
  P(sim_ns, wakeup_granularity, ".sched.wakeup_granularity", Duration, 4000000, 0, 100e6, "ns",                     \
    "kernel/sched/fair.c sysctl_sched_wakeup_granularity: 1 ms x (1 + ilog2(8)) on a >= 8-CPU host",                 \
    "host sysctl_sched_wakeup_granularity")                                                                          \
  P(sim_ns, min_granularity, ".sched.min_granularity", Duration, 3000000, 1, 100e6, "ns",                           \
    "fair.c sysctl_sched_min_granularity: 0.75 ms x 4", "host sysctl_sched_min_granularity")                        \
  P(sim_ns, latency, ".sched.latency", Duration, 24000000, 1, 1e9, "ns", "fair.c sysctl_sched_latency: 6 ms x 4",    \
    "host sysctl_sched_latency")                                                                                     \
  P(sim_ns, switch_ns, ".sched.switch", Duration, 1000, 200, 10000, "ns", "[EST] context switch between host threads", \
    "host context switch between two threads on one hardware thread")                                               \
  P(IdleGovernor, idle_governor, ".idle_governor", Enum, "menu", kNoMin, kNoMax, "", "menu: the default of a NO_HZ host kernel (drivers/cpuidle/governor.c, rating 20); teo, ladder as the kernel has them; poll: idle=poll; promote: hardware auto-promotion [EST]", \
    "host cpuidle governor (cpuidle.governor=), or idle=poll, or hardware promotion")                                \
  P(int, hz, ".hz", Int, 1000, 100, 1000, "Hz", "host CONFIG_HZ: 1000 in the x86 and arm64 configs of Oracle UEK and Ubuntu [EST]", \
    "host tick rate (the tick an idle host CPU keeps when its governor retains it)")                                 \
  P(sim_ns, pm_qos_latency, ".pm_qos_latency", Int, -1, -1, 10e6, "ns", "/dev/cpu_dma_latency (PM QoS); -1: none, the kernel default (PM_QOS_CPU_LATENCY_DEFAULT_VALUE)", \
    "host CPU latency limit: the governors skip states that exit slower (cpuidle_governor_latency_req())")           \
  P(HostCState, max_cstate, ".max_cstate", Enum, "C6", kNoMin, kNoMax, "", "intel_idle.max_cstate default (deepest); cloud hosts may limit it [EST]", \
    "deepest host C-state (intel_idle.max_cstate / processor.max_cstate)")

struct HostSchedParams {
  VTICK_PARAMS(HostSchedParams, VTICK_HOST_SCHED_PARAMS);
};

// A schedulable host thread (task_struct): a vCPU thread or a host thread.
struct HostThread {
  std::string name;
  Doorbell* bell = nullptr;      // its actor's notification line
  HostCpu* cpu = nullptr;        // where it is queued, runs, or last ran
  std::uint64_t allowed = ~0ULL; // hardware threads it may run on
  enum class State { Running, Runnable, Sleeping } state = State::Sleeping;
  sim_ns vruntime = 0;
  sim_ns exec_start = 0;
  sim_ns run_delay = 0;          // schedstat run_delay: runnable, not running
  sim_ns exit_latency = 0;       // C-state exit still to wait when picked on an idle CPU
  bool preempt_pending = false;
  sim_ns next_timer = KTIME_MAX; // its armed timer while it sleeps (the idle governor's input)
  std::uint64_t preemptions = 0;
  std::uint64_t wakeups = 0;
  bool is_vcpu = false;
};

#define VTICK_HOST_CPU_STATS(C)                                                                                      \
  C(std::uint64_t, idle_entries, "idle_entries", "count", Counter, "do_idle() entries of the host CPU")            \
  C(std::uint64_t, switches, "sched.switches", "count", Counter, "host context switches on this hardware thread")  \
  C(std::uint64_t, preemptions, "sched.preemptions", "count", Counter, "host preemptions of a running thread here") \
  C(std::uint64_t, poll_choices, "cpuidle.poll_choices", "count", Counter, "the governor chose the POLL state (x86 state 0)") \
  C(std::uint64_t, poll_timeouts, "cpuidle.poll_timeouts", "count", Counter, "POLL ended by cpuidle_poll_time(), the governor ran again") \
  C(std::uint64_t, tick_wakeups, "cpuidle.tick_wakeups", "count", Counter, "host tick interrupts that woke the idle hardware thread (tick retained)") \
  C(std::uint64_t, tick_stops, "cpuidle.tick_stops", "count", Counter, "idle periods in which the host tick stopped (tick_nohz_idle_stop_tick())")
struct HostCpuStats {
  VTICK_STATS(VTICK_HOST_CPU_STATS)
  std::uint64_t wakeups_from[kNumCStates] = {0, 0, 0};  // wake-ups by the state left ("wakeups_from.<C>")
  std::uint64_t idle_choices[kNumCStates] = {0, 0, 0};  // the idle governor's C-state choices ("idle_choices.<C>")
};

class HostCpu {
 public:
  explicit HostCpu(HwThread& hw) : hw(hw) {}
  HwThread& hw;
  HostThread* curr = nullptr;
  std::vector<HostThread*> rq;     // runnable, not running
  std::vector<HostThread*> sleepers;  // its sleeping threads (their timers: next_timer_on())
  sim_ns min_vruntime = 0;
  sim_ns slice_start = 0;
  sim_ns idle_since = 0;
  HostCState requested = HostCState::C1;  // the idle governor's choice
  // The idle loop (host/host_idle.cpp): the governor's per-CPU state, and the current
  // segment of the idle period: entered at seg_start, left at seg_end by the host tick or
  // a POLL timeout unless a real wake-up comes first (replayed lazily at that wake-up).
  std::unique_ptr<cpuidle::CpuidleGovernor> gov;
  cpuidle::CpuidleDevice dev;
  int idle_idx = -1;
  sim_ns seg_start = 0;
  sim_ns seg_end = KTIME_MAX;
  bool seg_by_tick = false;         // a C-state segment ends at the tick; a POLL had a tick in it
  bool tick_stopped = false;
  HostCState leaving = HostCState::C1;  // the state an internal wake-up left (idle_idx < 0)
  HostCpuStats stats;
  bool idle() const { return curr == nullptr; }
  int nr_running() const { return static_cast<int>(rq.size()) + (curr ? 1 : 0); }
};

// The host cpuidle driver's state table for this CPU model (as_cstate: each state as a
// C-state, -1 for POLL), and cpuidle_poll_time() for it (host/host_idle.cpp).
std::vector<cpuidle::CpuidleState> host_idle_states(const ArchCosts& c, HostCState max, std::vector<int>& as_cstate);
sim_ns cpuidle_poll_time(const std::vector<cpuidle::CpuidleState>& st, sim_ns tick_nsec);

class HostScheduler {
 public:
  HostScheduler(Machine& m, HostSchedParams p);
  HostCpu& cpu(int hw) { return *cpus_[static_cast<size_t>(hw)]; }
  int nr_cpus() const { return static_cast<int>(cpus_.size()); }
  const HostSchedParams& params() const { return p_; }

  // The thread starts running on `hw` (a vCPU thread at KVM_RUN) or asleep.
  void add_running(HostThread& t, int hw);
  void add_sleeping(HostThread& t, int hw);

  // try_to_wake_up() of a sleeping thread, from any actor: place it, maybe preempt.
  void wake(HostThread& t);
  // Called by t's own actor: block until t runs; returns the time it waited.
  sim_ns wait_until_running(HostThread& t);
  // t (running) gives its CPU up: to sleep, or preempted / yielding (still runnable).
  void schedule_out(HostThread& t, bool still_runnable);
  // Replays the internal wake-ups of every idle CPU up to t (before counters are read).
  void sync_idle(sim_ns t);
  // For the running thread's actor: must it give the CPU up now?
  bool must_yield(const HostThread& t) const;
  // When the running thread's slice ends if others wait (KTIME_MAX if none).
  sim_ns slice_end(const HostThread& t) const;
  bool single_task_running(const HostThread& t) const { return t.cpu->rq.empty(); }

 private:
  int select_cpu(const HostThread& t) const;
  void pick_next(HostCpu& c);
  void init_idle();
  void go_idle(HostCpu& c);
  void cpuidle_idle_call(HostCpu& c, sim_ns t);
  void enter_cstate(HostCpu& c, HostCState want, sim_ns t);
  sim_ns exit_latency_at(HostCpu& c, sim_ns t, HostCState& reached) const;
  void idle_catch_up(HostCpu& c, sim_ns t);
  sim_ns idle_exit(HostCpu& c, sim_ns t, HostCState& reached);
  HostCState state_reached(HostCpu& c, sim_ns now) const;
  sim_ns next_timer_on(const HostCpu& c) const;

  HostSchedParams p_;
  const ArchCosts& costs_;
  std::vector<std::unique_ptr<HostCpu>> cpus_;
  std::vector<cpuidle::CpuidleState> states_;  // the host cpuidle driver's table (host_idle_states())
  std::vector<int> state_cstate_;     // its states as C-states (-1: POLL)
  sim_ns poll_limit_ = 0;             // cpuidle_poll_time()
};

}  // namespace vtick
