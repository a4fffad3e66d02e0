// Guest kernel configuration: CONFIG_HZ, boot parameters, policy choice and guest-side costs.
#pragma once
#include <string>
#include <vector>

#include "core/param.hpp"
#include "core/time.hpp"
#include "guest/cpuidle.hpp"
#include "guest/background.hpp"
#include "guest/sched.hpp"
#include "guest/tick_policy.hpp"
#include "platform/arch.hpp"

namespace vtick {

// Guest CPU time for kernel paths the model executes (nominal ns; [guest.costs]).
#define VTICK_GUEST_COSTS(P)                                                                                         \
  P(sim_ns, irq_entry_ns, ".irq_entry_ns", Int, 300, 100, 2000, "ns",                                              \
    "[EST] irq entry/exit with tick_irq_enter/tick_nohz_irq_exit", "irq entry/exit incl. tick_irq_enter / irq_exit") \
  P(sim_ns, tick_handler_ns, ".tick_handler_ns", Int, 1500, 500, 5000, "ns",                                       \
    "[EST] guest tick handler ~1-5 us incl. softirq (kernel-kvm.md s3)",                                              \
    "tick_nohz_handler: update_process_times, sched_tick")                                                           \
  P(sim_ns, hrtimer_wakeup_ns, ".hrtimer_wakeup_ns", Int, 400, 100, 2000, "ns", "[EST] hrtimer_wakeup -> wake_up_process", \
    "hrtimer_wakeup callback of a sleeping task")                                                                    \
  P(sim_ns, resched_ipi_ns, ".resched_ipi_ns", Int, 300, 100, 2000, "ns", "[EST] scheduler_ipi + sched_ttwu_pending", \
    "reschedule IPI handler")                                                                                        \
  P(sim_ns, idle_enter_ns, ".idle_enter_ns", Int, 200, 50, 1000, "ns",                                             \
    "[EST] do_idle entry: __current_set_polling, tick_nohz_idle_enter", "do_idle entry")                             \
  P(sim_ns, idle_exit_ns, ".idle_exit_ns", Int, 200, 50, 1000, "ns",                                               \
    "[EST] tick_nohz_idle_exit without restart, flush_smp_call_function_queue", "idle exit")                         \
  P(sim_ns, cputime_update_ns, ".cputime_update_ns", Int, 0, 0, 500, "ns",                                          \
    "[EST] 20-150 ns: a clock read (kvmclock, about 20-40 ns in a guest) and a seqcount write on per-CPU stats; 0 keeps it inside idle_enter_ns / idle_exit_ns / irq_entry_ns", \
    "one idle cputime update of the configured scheme (and each irqtime stamp), charged where it is made (cputime.*_updates)") \
  P(sim_ns, tick_stop_ns, ".tick_stop_ns", Int, 500, 100, 2000, "ns",                                              \
    "[EST] tick_nohz_next_event: timer-wheel scan (get_next_timer_interrupt)", "tick_nohz_next_event")               \
  P(sim_ns, schedule_ns, ".schedule_ns", Int, 1000, 300, 5000, "ns", "[EST] __schedule: pick_next_task_fair + context_switch; sched_yield() between two threads on a CPU less getppid(): 427-469 on a 2026 Xeon KVM guest, 1556-2207 on a 2026 AMD EPYC (Milan, Safe RET) KVM guest; vtick-probe's exit_cost measures it and calibrate writes it", \
    "__schedule: pick_next_task + context switch")                                                                   \
  P(sim_ns, switch_mm_ns, ".switch_mm_ns", Int, 300, 0, 3000, "ns",                                               \
    "[EST] 100-300 ns: switch_mm_irqs_off()'s CR3 write with PCID, no exit under EPT/NPT; up to several us with IBPB on an mm change (spectre_v2_user=on, or a task that asked for it); schedule_ns (threads of one process) holds none of it", \
    "context_switch() into a task of another process than the CPU's loaded mm: switch_mm_irqs_off(); kernel threads and the threads of one process switch none (enter_lazy_tlb())") \
  P(sim_ns, schedule_noswitch_ns, ".schedule_noswitch_ns", Int, 250, 30, 2000, "ns",                             \
    "[EST] 250; sched_yield() alone on a CPU less getppid(): 104-109 on a 2026 Xeon KVM guest, 348-686 on a 2026 AMD EPYC (Milan, Safe RET) KVM guest; vtick-probe's exit_cost measures it and calibrate writes it", \
    "__schedule() whose pick_next_task() returns the running task: no context_switch() (with do_sched_yield() on a sched_yield())") \
  P(sim_ns, switch_idle_ns, ".switch_idle_ns", Int, 600, 100, 3000, "ns",                                          \
    "[EST] __schedule to the idle task: deactivate_task, pick_next_task_idle, context_switch (lazy mm), finish_task_switch (its part after prev->on_cpu's clear: finish_task_switch_ns, when set)", \
    "__schedule when the CPU has nothing else to run: the blocking task's switch to the idle task") \
  P(sim_ns, finish_task_switch_ns, ".finish_task_switch_ns", Int, 0, 0, 3000, "ns",                               \
    "[EST] 0: inside switch_idle_ns; docs/real-guest/trace-2026-12-06c/waiter-timeline.txt: on a 2026 AMD EPYC (Milan, Safe RET) nested KVM guest 20 % of the waiters are woken after their switch to idle (0.08/0.40/0.75 us p10/p50/p90 after the sched_switch) and nearly each such wake-up still sends an IPI (63.6 k IPIs, 65.9 k wake-ups), so the idle task is not polling yet: at least 0.75 us pass from prev->on_cpu's clear to do_idle()'s __current_set_polling()", \
    "the switch to idle after finish_task() cleared prev->on_cpu: finish_lock_switch() (the runqueue unlock, interrupts on), the rest of finish_task_switch() and the return into do_idle(); a wake-up meanwhile finds prev off its CPU and the idle task not polling: an ordinary remote wake-up with its IPI") \
  P(sim_ns, schedule_block_ns, ".schedule_block_ns", Int, 0, 0, 5000, "ns",                                        \
    "[EST] 0: not charged apart; docs/real-guest/trace-2026-12-06c/futex-window.txt: a FUTEX_WAIT that blocks takes 1.7/2.7/3.7 us p10/p50/p90 from sys_enter_futex to its sched_switch out on a 2026 AMD EPYC (Milan, Safe RET) KVM guest, the syscall's entry included", \
    "__schedule() of a task that blocks, up to its switch: try_to_block_task() (deactivate_task()) and a pick_next_task() that finds nothing; the task is still on its CPU (p->on_cpu), so a wake-up meanwhile takes the WF_ON_CPU wakelist") \
  P(sim_ns, ttwu_ns, ".ttwu_ns", Int, 500, 100, 5000, "ns", "[EST] try_to_wake_up: select_task_rq_fair + enqueue_task; vtick-probe futex_wake.local_ns less getppid(), which calibrate writes: 489 on a 2026 Xeon KVM guest, 2743-3107 on a 2026 AMD EPYC (Milan, Safe RET) KVM guest", \
    "try_to_wake_up: select_task_rq + enqueue")                                                                      \
  P(sim_ns, ttwu_wakelist_ns, ".ttwu_wakelist_ns", Int, 0, 0, 5000, "ns",                                         \
    "[EST] 0: not charged; docs/real-guest/trace-2026-12-06c/waiter-timeline.txt: sched_waking -> ipi_send_cpu 0.85/1.03/1.65 us p10/p50/p90 on a 2026 AMD EPYC (Milan, Safe RET) nested KVM guest, two tracepoints' own cost included", \
    "try_to_wake_up() of a task still switching out (p->on_cpu), up to ttwu_queue_wakelist()'s IPI: p->pi_lock, the state match, the on_rq and on_cpu reads, the llist_add() (WF_ON_CPU)") \
  P(sim_ns, syscall_ns, ".syscall_ns", Int, 150, 20, 1000, "ns", "[EST] syscall entry/exit with mitigations; getppid(): 68-75 on a 2026 Xeon KVM guest, 453-693 on a 2026 AMD EPYC (Milan, Safe RET) KVM guest; vtick-probe's exit_cost measures it and calibrate writes it", \
    "syscall entry + exit")                                                                                          \
  P(double, syscall_exit_share, ".syscall_exit_share", Float, 0.0, 0, 0.9, "fraction",                               \
    "[EST] 0: syscall_ns is charged whole at the entry; getppid() cannot tell entry from exit (vtick-probe measures their sum)", \
    "the share of syscall_ns on the way out (syscall_exit_to_user_mode() and the return path's mitigations), charged when the task goes back to user space, after a block or yield if it had one; the entry (up to the syscall's own work: futex_wait_setup()'s check of the lock word) takes the rest") \
  P(sim_ns, futex_wait_setup_ns, ".futex_wait_setup_ns", Int, 0, 0, 2000, "ns",                                   \
    "[EST] 0: inside syscall_ns; futex(FUTEX_WAIT) returning EAGAIN less getppid(): 165-236 ns p50 on a 2026 AMD EPYC (Milan, Safe RET) KVM guest, an uncontended bucket (docs/real-guest/trace-2026-12-06c/futex-own-cost.txt)", \
    "futex_wait_setup(): get_futex_key(), futex_hash() and the bucket lock, up to the read of the futex word; charged before the word check, so the owner's release within it makes the wait an EAGAIN") \
  P(sim_ns, futex_wake_ns, ".futex_wake_ns", Int, 0, 0, 2000, "ns",                                               \
    "[EST] 0: inside syscall_ns; futex(FUTEX_WAKE) of nobody less getppid(): 68-95 ns p50 on a 2026 AMD EPYC (Milan, Safe RET) KVM guest (docs/real-guest/trace-2026-12-06c/futex-own-cost.txt)", \
    "futex_wake(): get_futex_key(), futex_hash(), the bucket lock and the scan for a waiter, before its try_to_wake_up()") \
  P(sim_ns, load_balance_ns, ".load_balance_ns", Int, 2000, 500, 10000, "ns",                                      \
    "[EST] one load_balance() pass: find_busiest_group + detach/attach", "one load_balance() pass over the domain")  \
  P(sim_ns, io_submit_ns, ".io_submit_ns", Int, 2000, 500, 10000, "ns",                                            \
    "[EST] block layer + virtio-blk request setup before the kick", "block layer + virtio-blk request setup")        \
  P(sim_ns, io_complete_ns, ".io_complete_ns", Int, 1500, 500, 10000, "ns",                                        \
    "[EST] virtio-blk interrupt handler + bio completion (also the virtio-net RX interrupt)",                         \
    "virtio-blk interrupt handler + bio completion")                                                                 \
  P(sim_ns, net_xmit_ns, ".net_xmit_ns", Int, 3000, 500, 20000, "ns",                                              \
    "[EST] sendmsg: TCP/IP stack + virtio-net TX descriptor before the kick", "socket send + TCP/IP + virtio-net TX setup") \
  P(double, sigma, ".sigma", Float, 0.0, 0, 1.5, "",                                                                 \
    "[EST] 0: every path costs its declared figure; docs/real-guest/trace-2026-12-06c/futex-window.txt: a blocking FUTEX_WAIT's 1.72/2.70/3.69 us p10/p50/p90 is a lognormal sigma of 0.30, FUTEX_WAKE's 0.61/1.54/4.25 us one of 0.76 (a 2026 AMD EPYC Milan KVM guest)", \
    "spread of the guest kernel paths' costs: each path charged through kernel_work() (syscalls, __schedule(), try_to_wake_up(), idle entry/exit, tick stop, balancing, I/O) is drawn lognormal around its declared cost with this sigma of the log (the mean kept); 0 draws nothing")

struct GuestCosts {
  VTICK_PARAMS(GuestCosts, VTICK_GUEST_COSTS);
};

// Marco Crivellari's 2026 series "Stop the idle tick on polling idle on nohz_full CPUs".
enum class NohzPollSeriesVariant { None, P1P2, P2WithoutKick, P2WithoutStoppedTickFix };
VTICK_ENUM_NAMES(NohzPollSeriesVariant, "none", "p1p2", "p2_without_kick", "p2_without_stopped_tick_fix");
struct NohzPollSeries {
  bool p1_kick = false;              // P1(a): nohz_full_kick_func() sets TIF_NEED_RESCHED when polling
  bool p1_stopped_tick_fix = false;  // P1(b): a stopped tick expiring in idle sets TIF_NEED_RESCHED
  bool p1_user_entry = false;        // P1(c): stop a still-running tick on return to user space
  bool p2 = false;                   // P2: with idle=poll, nohz_full CPUs stop the tick on idle entry
};
NohzPollSeries nohz_poll_series_switches(NohzPollSeriesVariant v);

// Reasons tick_nohz_next_event() keeps the tick for one more period, as probabilities
// per evaluation ([guest.nohz]).
#define VTICK_NOHZ_REASONS(P)                                                                                        \
  P(double, rcu_needs_cpu, ".rcu_needs_cpu", Float, 0.0, 0, 1, "probability", "[EST] 0: a quiet guest",             \
    "probability that rcu_needs_cpu() keeps the tick")                                                               \
  P(double, irq_work_needs_cpu, ".irq_work_needs_cpu", Float, 0.0, 0, 1, "probability", "[EST] 0: a quiet guest",   \
    "probability that irq_work_needs_cpu() keeps the tick")                                                          \
  P(double, softirq_pending, ".softirq_pending", Float, 0.0, 0, 1, "probability", "[EST] 0: a quiet guest",         \
    "probability that a timer softirq is pending (local_timer_softirq_pending())")
struct NohzReasons {
  VTICK_PARAMS(NohzReasons, VTICK_NOHZ_REASONS);
};

// Idle cputime accounting: the old dual scheme; Weisbecker's 2026 refactor as merged
// (cf6444c3e1bb "tick/sched: Unify idle cputime accounting", v7.2), whose first tick after a
// restart accounts a whole TICK_NSEC again; and with the fix Stian Halseth reported
// (2026-10-04, lore 20261004142724.3896396-1-stian@itx.no): the overlap recorded in
// kcpustat_dyntick_stop() is taken off that first tick.
enum class CputimeScheme { Old, New, NewFixed };
VTICK_ENUM_NAMES(CputimeScheme, "old", "new", "new_fixed");

#define VTICK_GUEST_PARAMS(P)                                                                                        \
  P(int, hz, ".hz", Int, Def(1000).on("arm64", 250).one_of({100, 250, 300, 1000}), kNoMin, kNoMax, "Hz",            \
    "the reported guests (domain/mission.md): HZ=1000 on x86, 250 on arm64; Kconfig HZ_100 .. HZ_1000", "CONFIG_HZ")  \
  P(TickPolicyId, tick_policy, ".tick_policy", Enum, "legacy", kNoMin, kNoMax, "", "guest/tick_policy.cpp",          \
    "idle tick-stop variant (vtick list policies)")                                                                  \
  P(std::string, cmdline, ".cmdline", Text, "", kNoMin, kNoMax, "", "Documentation/admin-guide/kernel-parameters.txt", \
    "guest boot parameters (nohz=, nohz_full=, idle=poll, nohlt, cpuidle.off=1, cpuidle_haltpoll.force=1, haltpoll.*=)") \
  P(sim_ns, timer_slack_ns, ".timer_slack", Duration, 50000, 0, 1e9, "ns", "init_task.timer_slack_ns (50 us)",      \
    "task timer_slack_ns")                                                                                           \
  P(NohzPollSeriesVariant, nohz_poll_series, ".nohz_poll_series", Enum, "none", kNoMin, kNoMax, "",                  \
    "Crivellari 2026 (domain/mission.md story 2)", "2026 nohz_full idle=poll series variant")                       \
  P(CputimeScheme, cputime, ".cputime", Enum, "old", kNoMin, kNoMax, "", "Weisbecker 2026 (domain/mission.md story 3)", \
    "idle cputime accounting: old dual scheme, the 2026 refactor as merged (cf6444c3e1bb), or it with the first-tick overlap fix")                                                 \
  P(bool, irq_time_accounting, ".irq_time_accounting", Bool, false, kNoMin, kNoMax, "",                                \
    "init/Kconfig IRQ_TIME_ACCOUNTING has no default (\"If in doubt, say N\"); off in this machine's 6.18 guest kernel (/proc/config.gz)", \
    "CONFIG_IRQ_TIME_ACCOUNTING: hardirq time measured at each irq entry/exit into the irq column and taken out of the tick's and vtime's share") \
  P(std::string, hotplug, ".hotplug", Text, "", kNoMin, kNoMax, "", "kernel/cpu.c cpu_down() / cpu_up()",            \
    "CPU hotplug events: \"CPU:offline@TIME CPU:online@TIME ...\"")                                                  \
  P(sim_ns, poll_relax_batch_ns, ".poll_relax_batch", Duration, Def(14000).on("arm64", 500), 1, 100000, "ns",        \
    "POLL_IDLE_RELAX_COUNT = 200 relaxes; x86 PAUSE ~140 cycles on Skylake (Intel Optimization Manual) at 2 GHz; arm64 [EST]",        \
    "time of POLL_IDLE_RELAX_COUNT cpu_relax() between clock checks in poll_idle()")                                 \
  P(double, background_timer_hz, ".timers.background_hz", Float, 0.0, 0, 10000, "Hz",                      \
    "[EST] vmstat, writeback and similar wheel timers; each re-arms with an exponential delay rounded up to whole jiffies plus one, so the realised rate is below the nominal one (about 0.7x at 200/s, HZ=1000)",      \
    "per-CPU timer-wheel timers per second (vmstat, writeback, ...)")

struct GuestParams {
  VTICK_PARAMS(GuestParams, VTICK_GUEST_PARAMS);
  CpuidleParams cpuidle;
  NohzReasons reasons;
  GuestCosts costs;
  SchedParams sched;
  BackgroundParams background;

  // Derived at load time from the keys above, not parameters themselves.
  Isa isa = Isa::X86_64;
  bool nohz = true;                // nohz=off clears it
  bool idle_poll = false;          // idle=poll / nohlt: cpu_idle_force_poll
  std::uint64_t nohz_full = 0;     // nohz_full=<cpulist> as a mask
  NohzPollSeries series;           // from nohz_poll_series
  struct HotplugEvent { int cpu; bool online; sim_ns at; };
  std::vector<HotplugEvent> hotplug_events;  // from hotplug, in time order

  sim_ns tick_nsec() const { return (NSEC_PER_SEC + hz / 2) / hz; }  // TICK_NSEC
};

// Parses guest.cmdline into `p`; returns an error text naming the bad parameter, or "".
// `nr_cpus` bounds cpulists.
std::string parse_cmdline(const std::string& cmdline, GuestParams& p, int nr_cpus);

}  // namespace vtick
