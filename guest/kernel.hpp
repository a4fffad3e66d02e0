// One guest kernel instance: its CPUs, global timekeeping state, scheduler and tasks.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "core/state_clock.hpp"
#include "core/time.hpp"
#include "guest/hrtimer.hpp"
#include "guest/params.hpp"
#include "guest/task.hpp"
#include "guest/tick_policy.hpp"
#include "guest/tick_sched.hpp"
#include "platform/vhw.hpp"

namespace vtick {

class GuestKernel;

// Where a guest CPU's time goes, as the guest sees it.
enum class GuestCpuState { User, Sys, Irq, Idle, Halted, Count };
const char* guest_cpu_state_name(GuestCpuState s);

struct IdleStats {
  std::uint64_t episodes = 0;        // do_idle() calls
  std::uint64_t halts = 0;           // arch_cpu_idle(): HLT / WFI executed
  std::uint64_t halt_skipped = 0;    // default_idle_call() found need_resched after clearing polling
  std::uint64_t retained_halts = 0;  // HLT/WFI entered with the tick still running
  std::uint64_t tick_woken_halts = 0;  // halts ended by the tick handler (got_idle_tick)
};

struct SchedStats {
  std::uint64_t switches = 0;
  std::uint64_t wakeups_local = 0;    // wakee on the waker's CPU
  std::uint64_t wakeups_remote = 0;   // wakee on another CPU
  std::uint64_t resched_ipis = 0;     // smp_send_reschedule()
  std::uint64_t wake_idle_without_ipi = 0;  // target was polling: flag only
  std::uint64_t preemptions = 0;
};

// Per-CPU kernel state: what lives in per-cpu variables and struct rq in the kernel.
class GuestCpu final : public GuestIrqSink {
 public:
  GuestCpu(GuestKernel& k, int id);

  GuestKernel& kernel() { return k_; }
  int id() const { return id_; }
  VirtualCpu& hw() { return *hw_; }
  void attach(VirtualCpu* hw) { hw_ = hw; }
  sim_ns now() const { return hw_->clock(); }

  // The idle task of this CPU running cpu_startup_entry(): never returns.
  void cpu_startup_entry();
  void handle_irq(IrqVector v) override;

  // Executes guest kernel work to completion; interrupts are taken (and return) inside.
  void kernel_work(sim_ns ns);
  void enter_state(GuestCpuState s) { time_.enter(s, now()); }
  GuestCpuState state() const { return time_.current(); }

  HrtimerBase& hrtimers() { return hrtimers_; }
  ClockEventDevice& clockevent() { return ce_; }
  TickSched& tick() { return tick_; }

  // thread_info flags of the current task (TIF_NEED_RESCHED, TIF_POLLING_NRFLAG).
  bool need_resched = false;
  bool polling = false;

  // runqueue
  std::deque<Task*> rq;
  std::vector<std::pair<Task*, sim_ns>> boot_sleepers;  // tasks that start after a delay
  sim_ns slice_start = 0;  // when curr was picked (sched slice)
  Task* curr = nullptr;  // nullptr: the idle task

  // accounting
  StateClock<GuestCpuState> time_;
  IdleStats idle_stats;
  std::array<std::uint64_t, static_cast<size_t>(IrqVector::Count)> irqs{};

 private:
  // kernel/sched/idle.c
  void do_idle();
  void cpuidle_idle_call(bool got_tick);
  void default_idle_call();
  void idle_call_stop_or_retain_tick(bool stop_tick);
  void apply_tick_choice(TickChoice c, bool got_tick);
  // task execution
  void schedule();
  void run_curr();

  GuestKernel& k_;
  int id_;
  VirtualCpu* hw_ = nullptr;
  ClockEventDevice ce_;
  HrtimerBase hrtimers_;
  TickSched tick_;
  std::array<sim_ns, 4> idle_hist_{};  // tglx_avg: last four idle durations
  std::size_t idle_hist_pos_ = 0;
};

class GuestKernel {
 public:
  GuestKernel(GuestParams p, int nr_cpus, std::uint64_t seed = 1);
  const GuestParams& params() const { return p_; }
  const TickPolicy& policy() const { return *policy_; }
  sim_ns tick_nsec() const { return tick_nsec_; }
  sim_ns sched_slice() const;  // sysctl_sched_base_slice after sched_tunable_scaling
  int nr_cpus() const { return static_cast<int>(cpus_.size()); }
  GuestCpu& cpu(int i) { return *cpus_[static_cast<size_t>(i)]; }

  // kernel/time/tick-sched.c globals
  static constexpr int TICK_DO_TIMER_NONE = -1;
  int tick_do_timer_cpu = 0;
  std::uint64_t jiffies = 0;
  sim_ns last_jiffies_update = 0;
  sim_ns tick_next_period = 0;
  void tick_do_update_jiffies64(sim_ns now);

  // tasks and the scheduler (kernel/sched/core.c parts)
  Task& add_task(std::string comm, std::vector<Phase> program, int cpu, std::uint64_t allowed);
  // The task first sleeps `delay` from boot (a random start phase).
  void delay_start(Task& t, sim_ns delay);
  int add_event() { events_.emplace_back(); return static_cast<int>(events_.size()) - 1; }
  WaitEvent& event(int i) { return events_[static_cast<size_t>(i)]; }
  std::deque<std::unique_ptr<Task>>& tasks() { return tasks_; }
  void try_to_wake_up(Task& p, GuestCpu& waker);
  void resched_curr(GuestCpu& target, GuestCpu& self);
  SchedStats sched_stats;
  std::vector<sim_ns> wake_latency;  // ns from try_to_wake_up to running, per wake-up
  bool record_latency = true;

 private:
  GuestParams p_;
  std::uint64_t seed_;
  const TickPolicy* policy_;
  sim_ns tick_nsec_;
  std::vector<std::unique_ptr<GuestCpu>> cpus_;
  std::deque<std::unique_ptr<Task>> tasks_;
  std::deque<WaitEvent> events_;
};

}  // namespace vtick
