// One guest kernel instance: its CPUs, global timekeeping state, scheduler and tasks.
#pragma once
#include "core/stats.hpp"
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/state_clock.hpp"
#include "core/trace.hpp"
#include "core/time.hpp"
#include "core/rng.hpp"
#include "guest/cputime.hpp"
#include "guest/cpuidle.hpp"
#include "guest/hrtimer.hpp"
#include "guest/timer_wheel.hpp"
#include "guest/packing.hpp"
#include "guest/params.hpp"
#include "guest/sched.hpp"
#include "guest/task.hpp"
#include "guest/tick_policy.hpp"
#include "guest/tick_sched.hpp"
#include "platform/vhw.hpp"

namespace vtick {

class GuestKernel;
struct LbEnv;      // guest/fair_balance.cpp: sched_balance_rq()'s struct lb_env
struct SdLbStats;  // struct sd_lb_stats
struct SgStats;    // struct sg_lb_stats

// se->avg.load_avg scaled by the task's weight: its contribution to its cfs_rq's load
// (task_h_load() without groups), `running` if it accrued since the last update.
double weighted_load(const Task& t, sim_ns now, bool running);

// Where a guest CPU's time goes, as the guest sees it.
enum class GuestCpuState { User, Sys, Irq, Idle, Halted, Count };
const char* guest_cpu_state_name(GuestCpuState s);

#define VTICK_IDLE_STATS(C)                                                                                          \
  C(std::uint64_t, episodes, "idle.episodes", "count", Counter, "do_idle() calls")                                 \
  C(std::uint64_t, halts, "idle.halts", "count", Counter, "arch_cpu_idle(): HLT / WFI executed")                   \
  C(std::uint64_t, halt_skipped, "idle.halt_skipped", "count", Counter,                                            \
    "default_idle_call() found need_resched after clearing the polling flag")                                      \
  C(std::uint64_t, retained_halts, "idle.retained_halts", "count", Counter, "HLT/WFI entered with the tick still running") \
  C(std::uint64_t, tick_woken_halts, "idle.tick_woken_halts", "count", Counter, "halts ended by the tick handler (got_idle_tick)") \
  C(std::uint64_t, nohz_kicks, "tick.nohz_kicks", "count", Counter, "tick_nohz_full_kick_cpu() on this CPU")        \
  C(std::uint64_t, background_timers, "timers.background", "count", Counter, "housekeeping timer-wheel timers that ran")
struct IdleStats {
  VTICK_STATS(VTICK_IDLE_STATS)
};

// Per-CPU kernel state: what lives in per-cpu variables and struct rq in the kernel.
class GuestCpu final : public GuestIrqSink {
 public:
  GuestCpu(GuestKernel& k, int id);

  GuestKernel& kernel() { return k_; }
  void rq_changed();  // after a change of rq, curr, switching_to, wake_list or online_ (GuestKernel::pack_touch())
  int id() const { return id_; }
  VirtualCpu& hw() { return *hw_; }
  void attach(VirtualCpu* hw) { hw_ = hw; }
  sim_ns now() const { return hw_->clock(); }

  // The idle task of this CPU running cpu_startup_entry(): never returns.
  void cpu_startup_entry();
  void handle_irq(IrqVector v) override;

  // Executes guest kernel work to completion; interrupts are taken (and return) inside.
  void kernel_work(sim_ns ns);
  // a path's cost: `mean`, or a lognormal draw around it (guest.costs.sigma)
  sim_ns kernel_cost(sim_ns mean);
  // `ns` of a spin loop (smp_cond_load_acquire()): run as is, no cost drawn
  void kernel_spin(sim_ns ns);
  // IPIs to another CPU (guest/smp.cpp): RES, or CAL unless the target polls
  void smp_send_reschedule(GuestCpu& target);
  bool send_call_function_single_ipi(GuestCpu& target, const char* callsite);
  void trace_icr_write(const GuestCpu& target, int vector);  // x86: the ICR write's write_msr
  // account the running task's time (vruntime, runtime); eevdf: true when its deadline
  // was reached and renewed (update_deadline())
  bool update_curr();
  // EEVDF's queue arithmetic (guest/fair_eevdf.cpp)
  sim_ns avg_vruntime() const;
  bool entity_eligible(const Task& se) const;
  void update_entity_lag(Task& se);
  void place_entity(Task& se, bool initial);
  bool update_deadline();
  Task* pick_eevdf(Task* running) const;
  // DELAY_DEQUEUE (guest/fair_delay_dequeue.cpp)
  bool dequeue_delayed(const Task& se) const;
  void finish_delayed_dequeue_entity(Task& se);
  void requeue_delayed_entity(Task& se);
  template <class F>
  void for_each_entity(F&& f) const;
  std::pair<__int128, long long> weighted_keys() const;
  void enter_state(GuestCpuState s) {
    sim_ns t = now();
    if (vtime_cpu()) vtime_account_state(state(), t);
    time_.enter(s, t);
    trace::guest_cpu_state(t, id_, s);
  }
  GuestCpuState state() const { return time_.current(); }

  HrtimerBase& hrtimers() { return hrtimers_; }
  ClockEventDevice& clockevent() { return ce_; }
  TickSched& tick() { return tick_; }
  TimerWheel& wheel() { return wheel_; }
  CpuTimeAccount& cputime() { return cputime_; }
  void charge_cputime_updates();
  // The model's own truth, not a /proc/stat field: time in the idle task outside
  // interrupts (its idle loop and halts) up to `t`.
  sim_ns idle_task_ns(sim_ns t) const {
    auto tot = time_.totals(t);
    return tot[static_cast<std::size_t>(GuestCpuState::Idle)] + tot[static_cast<std::size_t>(GuestCpuState::Halted)];
  }
  CpuidleDevice& cpuidle() { return cpuidle_dev_; }
  Rng& rng() { return rng_; }
  GuestCpuState irq_from() const { return irq_from_; }  // what the current interrupt interrupted
  bool in_poll() const { return in_poll_; }
  bool online() const { return online_; }
  bool offline_pending = false;  // cpu_down() asked this CPU to go
  Kcpustat proc_stat(sim_ns now);                         // the configured scheme

  // kernel/time/timer.c update_process_times(): cputime, the timer wheel, sched_tick()
  void update_process_times(sim_ns now);
  void run_local_timers();
  void account_process_tick(sim_ns now);
  // The system calls task programs make (guest/syscalls.cpp, called by the user-space
  // interpreter of guest/task_program.cpp) and the way back to user space.
  void syscall_enter();
  void syscall_exit(Task& t);
  sim_ns syscall_exit_ns() const;  // guest.costs.syscall_exit_share of syscall_ns
  void exit_to_user_mode();
  void do_nanosleep(Task& t, sim_ns length);
  void futex_wait(Task& t, WaitEvent& ev);
  void futex_wake(WaitEvent& ev);
  void wake_up_all(WaitEvent& ev);  // a non-exclusive wait queue's __wake_up(): every waiter
  void futex_wait_setup();
  bool futex_wait_lock(Task& t, Mutex& m);  // false: the lock word changed (EAGAIN)
  void futex_wake_lock(Mutex& m);
  void sched_yield(Task& t);
  void submit_bio(Task& t);
  void sendmsg(Task& t);
  void do_exit(Task& t, sim_ns work, WaitEvent* parent_wait);
  // add_timer() on this CPU for `delay` from now (timer wheel; jiffies granularity).
  void add_timer(sim_ns delay, std::function<void(GuestCpu&, const WheelTimer&)> fn);

  // thread_info flags of the current task (TIF_NEED_RESCHED, TIF_POLLING_NRFLAG).
  bool need_resched = false;
  bool polling = false;

  // struct rq (fair class only)
  std::vector<Task*> rq;             // runnable tasks not running
  std::vector<Task*> delayed;        // sleepers still on the queue (eevdf DELAY_DEQUEUE): in its sums and picks only
  Task* curr = nullptr;              // nullptr: the idle task
  sim_ns min_vruntime = 0;
  sim_ns slice_start = 0;            // when curr was picked (sched slice)
  int loaded_mm = 0;                 // cpu_tlbstate.loaded_mm: the last process (Task::mm) switched to
  Task* switching_to = nullptr;      // picked, being switched to: still on the run queue
  int nr_running() const { return static_cast<int>(rq.size()) + (curr || switching_to ? 1 : 0); }
  // idle_cpu(): nothing running, queued or on its way (rq->ttwu_pending)
  bool idle_cpu() const { return !curr && !switching_to && rq.empty() && delayed.empty() && wake_list.empty(); }
  std::vector<Task*> wake_list;      // rq->wake_list: remote wake-ups its IPI activates here
  std::vector<std::pair<Task*, sim_ns>> boot_sleepers;  // tasks that start after a delay
  // load balancing (struct rq's fields of the same names)
  std::vector<SchedDomain> sd;       // rq->sd: this CPU's domains, lowest first
  sim_ns next_balance = 0;
  sim_ns idle_stamp = 0;             // when it went idle (0: not idle)
  sim_ns avg_idle = 0;               // rq->avg_idle
  sim_ns max_idle_balance_cost = 0;  // rq->max_idle_balance_cost
  bool idle_balance = false;         // rq->idle_balance: idle at its last tick
  bool nohz_tick_stopped = false;    // rq->nohz_tick_stopped: in nohz.idle_cpus_mask
  bool has_blocked_load = false;     // rq->has_blocked_load
  unsigned nohz_flags = 0;           // NOHZ_*_KICK bits a kick_ilb() left for this CPU
  bool active_balance = false;       // rq->active_balance: the stopper will push a task
  int push_cpu = -1;
  unsigned nohz_flags_pending = 0;   // rq->nohz_idle_balance: the kick's flags for SCHED_SOFTIRQ
  bool retrigger_pending = false;    // a dying CPU moved its hrtimers here: reprogram (hrtimers_cpu_dying)
  LbCause lb_cause = LbCause::Other; // the balancing path this CPU is in (migration causes)


  void arm_background_timer();

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
  void cpu_idle_poll();
  void go_offline();  // takedown: hand over duties, stop the tick, play dead
  // CONFIG_VIRT_CPU_ACCOUNTING_GEN (selected by NO_HZ_FULL) on a nohz_full CPU: user and
  // system time by context tracking instead of tick samples (vtime_user_enter/exit ->
  // vtime_account_system/user, get_vtime_delta() minus steal).
  bool vtime_cpu() const;
  void vtime_account_state(GuestCpuState leaving, sim_ns now);
  sim_ns vtime_start_ = 0;
  int call_cpuidle(int state);
  int poll_idle();
  // kernel/sched: task execution (guest/sched.cpp, guest/schedule.cpp)
  void schedule();
  void schedule_block();  // __schedule() of a blocking task before its switch
  void context_switch_to_idle(Task& prev, const char* prev_state);
  void finish_task_switch(Task& prev);
  Task* pick_next_task(Task* running);  // running: prev, put back by __schedule()
  void flush_smp_call_function_queue();

  GuestKernel& k_;
  int id_;
  VirtualCpu* hw_ = nullptr;
  ClockEventDevice ce_;
  HrtimerBase hrtimers_;
  TickSched tick_;
  std::array<sim_ns, 4> idle_hist_{};  // tglx_avg: last four idle durations
  std::size_t idle_hist_pos_ = 0;
  TimerWheel wheel_;
  CpuTimeAccount cputime_;
  CpuidleDevice cpuidle_dev_;
  Rng rng_;
  Rng cost_rng_;  // kernel_cost()'s stream
  GuestCpuState irq_from_ = GuestCpuState::Idle;
  bool in_poll_ = false;
  bool online_ = true;
};

class GuestKernel {
 public:
  GuestKernel(GuestParams p, int nr_cpus, std::uint64_t seed = 1);
  const GuestParams& params() const { return p_; }
  std::uint64_t seed() const { return seed_; }
  const TickPolicy& policy() const { return *policy_; }
  sim_ns tick_nsec() const { return tick_nsec_; }
  sim_ns sched_slice() const;  // sysctl_sched_base_slice after sched_tunable_scaling
  int nr_cpus() const { return static_cast<int>(cpus_.size()); }
  GuestCpu& cpu(int i) { return *cpus_[static_cast<size_t>(i)]; }

  bool tick_nohz_full_cpu(int cpu) const { return p_.nohz && ((p_.nohz_full >> cpu) & 1ULL); }

  // kernel/time/tick-sched.c globals
  static constexpr int TICK_DO_TIMER_NONE = -1;
  int tick_do_timer_cpu = 0;
  std::uint64_t jiffies = 0;
  sim_ns last_jiffies_update = 0;
  sim_ns tick_next_period = 0;
  void tick_do_update_jiffies64(sim_ns now);

  // tasks and the scheduler (kernel/sched/core.c, fair.c parts)
  // start false: TASK_NEW, woken by a parent's Fork phase (wake_up_new_task()) on the CPU it picks
  Task& add_task(std::string comm, std::vector<Phase> program, int cpu, std::uint64_t allowed, bool start = true);
  // The task first sleeps `delay` from boot (a random start phase).
  void delay_start(Task& t, sim_ns delay);
  int add_event() { events_.emplace_back(); return static_cast<int>(events_.size()) - 1; }
  WaitEvent& event(int i) { return events_[static_cast<size_t>(i)]; }
  int add_mutex() { mutexes_.emplace_back(); return static_cast<int>(mutexes_.size()) - 1; }
  Mutex& mutex(int i) { return mutexes_[static_cast<size_t>(i)]; }
  // The virtio drivers' requests in flight (a virtqueue's descriptor ids): the device's
  // completion interrupt hands each id back, and its completion runs once.
  std::uint64_t add_request(std::function<void(GuestCpu&)> complete);
  void complete_request(std::uint64_t id, GuestCpu& c);
  std::deque<std::unique_ptr<Task>>& tasks() { return tasks_; }
  const std::deque<std::unique_ptr<Task>>& tasks() const { return tasks_; }
  const SchedParams& sched() const { return p_.sched; }

  // CPU hotplug (kernel/cpu.c), driven by the scenario's guest.hotplug events.
  void cpu_down(int cpu);  // the caller also interrupts the CPU so it notices
  // select_fallback_rq(): an online CPU task p may run on (one node: the first such);
  // none in its affinity: the affinity widens to every CPU (cpuset fallback) first.
  int select_fallback_rq(Task& p);
  int first_online_cpu() const;

  void try_to_wake_up(Task& p, GuestCpu& waker);
  // fork's placement and first enqueue (guest/fair_fork.cpp)
  void wake_up_new_task(Task& p, GuestCpu& parent);
  int sched_balance_find_dst_cpu(Task& p, int this_cpu);
  std::uint64_t sched_balance_find_dst_group(const SchedDomain& sd, const Task& p, int this_cpu, sim_ns now);
  int sched_balance_find_dst_group_cpu(std::uint64_t group, const Task& p, int this_cpu, sim_ns now);
  bool ttwu_runnable(Task& p, GuestCpu& waker);  // p still on its queue (DELAY_DEQUEUE)
  void wait_task_off_cpu(Task& p, GuestCpu& waker);
  bool ttwu_queue_cond(const Task& p, const GuestCpu& target, const GuestCpu& waker) const;
  bool ttwu_queue_wakelist(Task& p, GuestCpu& target, GuestCpu& waker);
  void ttwu_woken(Task& p, GuestCpu& target, GuestCpu& waker);
  void ttwu_do_activate(GuestCpu& target, Task& p, GuestCpu& self);
  void sched_ttwu_pending(GuestCpu& c);  // the wakelist's activations, on its CPU
  // kernel/sched/fair.c wake-up placement (guest/fair_wakeup.cpp)
  int select_task_rq_fair(Task& p, GuestCpu& waker, bool sync);
  int wake_affine(Task& p, int this_cpu, int prev_cpu, bool sync);
  int wake_affine_idle(int this_cpu, int prev_cpu, bool sync);
  int wake_affine_weight(Task& p, int this_cpu, int prev_cpu, bool sync);
  bool wake_wide(const Task& p, const Task* waker_task) const;
  int select_idle_sibling(Task& p, int prev, int target);
  int select_idle_cpu(Task& p, int target, bool has_idle_core);
  bool core_idle(int cpu) const;
  double cpu_load(int cpu, sim_ns now) const;      // cfs_rq->avg.load_avg (with blocked load)
  void cpu_loads(sim_ns now, std::vector<double>& out) const;  // cpu_load() of every CPU
  double blocked_load(int cpu, sim_ns now) const;  // the part of sleeping tasks last on it
  bool vcpu_is_preempted(int cpu) const;
  bool cpus_share_cache(int a, int b) const { return a >= 0 && b >= 0; }  // one LLC
  void enqueue_task(GuestCpu& c, Task& p, bool wakeup, bool initial = false);  // initial: a new task (ENQUEUE_INITIAL)
  void wakeup_preempt(GuestCpu& target, Task& p, GuestCpu& self);
  void resched_curr(GuestCpu& target, GuestCpu& self);
  bool available_idle_cpu(int cpu) const;
  sim_ns wakeup_granularity() const;
  // load balancing (guest/fair_balance.cpp)
  enum class CpuIdleType { Idle, NotIdle, NewlyIdle };  // enum cpu_idle_type
  void sched_tick(GuestCpu& c);  // kernel/sched/core.c, from update_process_times()
  void sched_balance_trigger(GuestCpu& c);
  void sched_balance_softirq(GuestCpu& c);
  // `self` is the CPU doing the work (the ILB for a nohz CPU), `dst` the one pulled to
  void sched_balance_domains(GuestCpu& self, GuestCpu& c, CpuIdleType idle);
  int sched_balance_rq(GuestCpu& self, GuestCpu& dst, SchedDomain& sd, CpuIdleType idle, bool* continue_balancing);
  bool should_we_balance(const GuestCpu& dst, const SchedDomain& sd, CpuIdleType idle) const;
  bool can_migrate_task(GuestCpu& self, const Task& p, const GuestCpu& src, const GuestCpu& dst, const SchedDomain& sd);
  void detach_task(GuestCpu& self, Task& p, GuestCpu& src, GuestCpu& dst);
  void attach_task(GuestCpu& self, Task& p, GuestCpu& dst);
  // sched_balance_rq()'s outline, as fair.c's (LbEnv: struct lb_env; SdLbStats: sd_lb_stats)
  void update_sd_lb_stats(LbEnv& env, SdLbStats& sds);
  bool sched_balance_find_src_group(LbEnv& env, SdLbStats& sds);
  void calculate_imbalance(LbEnv& env, SdLbStats& sds);
  GuestCpu* sched_balance_find_src_rq(const SgStats& busiest);
  int detach_tasks(LbEnv& env, bool& all_pinned);
  double sg_avg_load(LbEnv& env, SgStats& s);
  double sds_avg_load(LbEnv& env, const SdLbStats& sds);
  void active_load_balance_cpu_stop(GuestCpu& busiest);
  int sched_balance_newidle(GuestCpu& c);
  sim_ns get_sd_balance_interval(const SchedDomain& sd, bool busy) const;
  // update_max_interval(): max_load_balance_interval, HZ * online CPUs / 10 jiffies, kept
  // as the kernel keeps it: computed again when a CPU comes or goes, not per balance
  void update_max_interval();
  bool update_newidle_cost(SchedDomain& sd, sim_ns cost, sim_ns now);
  std::uint64_t jiffies_at(sim_ns t) const { return static_cast<std::uint64_t>(t / tick_nsec_); }
  sim_ns msecs_to_jiffies_ns(sim_ns ns) const;  // an interval rounded up to whole jiffies
  bool rd_overloaded() const;                   // rd->overloaded: a CPU has >= 2 runnable
  // nohz idle balancing (guest/fair_nohz.cpp)
  static constexpr unsigned NOHZ_BALANCE_KICK = 1, NOHZ_STATS_KICK = 2, NOHZ_NEXT_KICK = 4;
  static constexpr unsigned NOHZ_KICK_MASK = NOHZ_BALANCE_KICK | NOHZ_STATS_KICK | NOHZ_NEXT_KICK;
  void nohz_balance_enter_idle(GuestCpu& c);
  void nohz_balance_exit_idle(GuestCpu& c);
  void nohz_balancer_kick(GuestCpu& c);
  int find_new_ilb(const GuestCpu& self) const;
  void kick_ilb(GuestCpu& self, unsigned flags);
  void nohz_csd_func(GuestCpu& ilb);
  void _nohz_idle_balance(GuestCpu& ilb, unsigned flags);
  bool update_nohz_stats(GuestCpu& c, sim_ns now);
  struct Nohz {                  // the `nohz` global of fair.c
    int nr_cpus = 0;             // CPUs in idle_cpus_mask (their nohz_tick_stopped)
    bool has_blocked = false;
    sim_ns next_blocked = 0;
    sim_ns next_balance = 0;
    bool needs_update = false;
  } nohz;
  int nr_busy_cpus = 0;          // sd_llc_shared->nr_busy_cpus

  void packing_update(sim_ns now, LbCause why);
  // A CPU's run queue, current task, wake list or online state changed: packing_update()
  // and rd_overloaded() read it again (they keep every other CPU's last reading).
  void pack_touch(int cpu) {
    auto i = static_cast<std::size_t>(cpu);
    if (!pack_[i].dirty) pack_dirty_.push_back(cpu);
    pack_[i].dirty = true;
  }
  void packing_flush(sim_ns now) { packing_->flush(now); }
  const Packing& packing() const { return *packing_; }

  SchedStats sched_stats;
  LogHistogram wake_latency;  // ns from try_to_wake_up to running, per wake-up (bounded)

 private:
  GuestParams p_;
  std::uint64_t seed_;
  const TickPolicy* policy_;
  sim_ns tick_nsec_;
  sim_ns max_load_balance_interval_ = 0;  // update_max_interval()
  std::vector<std::unique_ptr<GuestCpu>> cpus_;
  std::deque<std::unique_ptr<Task>> tasks_;
  std::vector<double> lb_loads_;  // sched_balance_rq()'s cpu_loads(), kept to avoid an allocation
  std::unique_ptr<Packing> packing_;
  // packing_update()'s reading of each CPU, kept up to date from pack_touch()
  struct PackCpu {
    bool dirty = true, busy = false, idle = false, own2 = false;  // own2: >= 2 of the workload's tasks
  };
  void pack_refresh() const;  // reads the touched CPUs again
  Packing::Queues pack_scan() const;  // every CPU read afresh (the check of the kept reading)
  mutable std::vector<PackCpu> pack_;
  mutable std::vector<int> pack_dirty_;
  mutable Packing::Queues pack_queues_;  // busy (in CPU order), idle_cpus, colocated as own2 count > 0
  mutable int pack_own2_ = 0;
  std::uint64_t pack_calls_ = 0;
  static constexpr std::uint64_t kPackCheckEvery = 256;  // packing_update()'s check of pack_touch(), amortised
  std::deque<WaitEvent> events_;
  std::deque<Mutex> mutexes_;
  std::map<std::uint64_t, std::function<void(GuestCpu&)>> requests_;
  std::uint64_t next_request_ = 1;
};

}  // namespace vtick
