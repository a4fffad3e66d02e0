// Scheduler parameters and counters (kernel/sched/core.c + fair.c, the parts the story needs).
#pragma once
#include "core/stats.hpp"
#include <cstdint>

#include "core/param.hpp"
#include "core/time.hpp"
#include "guest/sched_domains.hpp"

namespace vtick {

// The fair class's picking and wake-up preemption: CFS's vruntime order with a wake-up
// granularity (before v6.6), or EEVDF's eligibility and virtual deadlines (v6.6 on).
enum class FairPolicy { Cfs, Eevdf };
VTICK_ENUM_NAMES(FairPolicy, "cfs", "eevdf");

#define VTICK_SCHED_PARAMS(P)                                                                                        \
  P(bool, wake_affine, ".wake_affine", Bool, true, kNoMin, kNoMax, "", "kernel/sched/fair.c select_task_rq_fair()",   \
    "wake-affine / select_idle_sibling placement")                                                                   \
  P(bool, load_balance, ".load_balance", Bool, true, kNoMin, kNoMax, "", "fair.c trigger_load_balance(), newidle, nohz", \
    "tick, newidle and nohz idle load balancing")                                                                    \
  P(sim_ns, balance_interval, ".balance_interval", Duration, 0, 0, 1e9, "ns", "kernel/sched/topology.c sd_init(): min_interval = sd_weight ms", \
    "sd min balance interval (0: sd_weight ms, the kernel's default)")                                              \
  P(int, busy_factor, ".busy_factor", Int, 16, 1, 64, "factor", "topology.c sd_init(): busy_factor = 16",           \
    "a busy CPU balances this much less often")                                                                      \
  P(sim_ns, migration_cost, ".migration_cost", Duration, 500000, 0, 10e6, "ns", "fair.c sysctl_sched_migration_cost (0.5 ms)", \
    "sysctl_sched_migration_cost: task_hot() / newidle threshold")                                                   \
  P(sim_ns, cache_refill_ns, ".cache_refill", Duration, 20000, 0, 1e6, "ns", "[EST] refill of a migrated task's working set (L2 of a few hundred KB at tens of GB/s)", \
    "work a migrated task pays to refill its cache")                                                                 \
  P(GuestTopology, topology, ".topology", Enum, Def("smt").on("arm64", "mc"), kNoMin, kNoMax, "",                   \
    "[VERIFY] OCI x86 shapes give the guest vCPU pairs as the two threads of a core (1 OCPU = 2 vCPUs); Ampere Altra has no SMT; this machine's Firecracker guest shows mc", \
    "the CPU topology the guest sees: smt (vCPU pairs are core siblings: SMT + MC domains) or mc (one MC domain)")   \
  P(FairPolicy, fair, ".fair", Enum, "eevdf", kNoMin, kNoMax, "",                                                   \
    "kernel/sched/fair.c: eevdf by default, as every kernel the stories name is v6.6 or later; cfs as before v6.6 (pick the least vruntime, a wakee preempts when behind by the wake-up granularity, a slice per tick); eevdf as v6.6 (147f3efaa241, 5e963f2bd465; RUN_TO_PARITY 63304558ba5d) with v6.12's DELAY_DEQUEUE (guest.sched.delay_dequeue) and v6.17's yield forfeit (guest.sched.yield_forfeit), both on by default. docs/real-guest/trace-2026-12-06c/futex-pingpong.txt: a 6.18 guest's woken task preempts its waker on the same CPU 0.76 times a round trip, the cfs rule never", \
    "the fair class: cfs (vruntime order, wake-up granularity) or eevdf (lag kept across sleeps, the eligible task with the earliest virtual deadline runs, a wakee preempts when pick_eevdf() picks it)") \
  P(bool, delay_dequeue, ".delay_dequeue", Bool, true, kNoMin, kNoMax, "",                                        \
    "kernel/sched/features.h DELAY_DEQUEUE (v6.12: 152e11f6df29, with DELAY_ZERO 54a58a787791; on by default there and in every kernel the stories name; false gives v6.6-v6.11). docs/real-guest/trace-2026-12-06c/kdamond-sb-n2-l1.txt: a 6.18 guest's kdamond.0, back after 512 ms asleep, preempts a sysbench thread at once, which an eevdf without it, keeping the negative lag of its last run, does not", \
    "under eevdf, a task that sleeps while not eligible stays on its queue, competing, until pick_eevdf() picks it; it then leaves with a positive lag cut to zero (DELAY_ZERO); woken before, it is requeued where it is (ttwu_runnable())") \
  P(bool, yield_forfeit, ".yield_forfeit", Bool, true, kNoMin, kNoMax, "",                                        \
    "kernel/sched/fair.c yield_task_fair(): 79104becf42b (v6.17, in 6.6.y and later stable trees from January 2026, so in every 2026 kernel the stories name); false gives v6.6-v6.16. docs/real-guest/trace-2026-12-06c: a 6.18 guest's two sysbench threads a vCPU switch at every sched_yield() (sb-n4-l8)", \
    "under eevdf, an eligible task that yields forfeits the rest of its slice (vruntime = deadline) before its deadline moves a slice on, so it is not eligible again at once; without it only the deadline moves, and the yielder, alone eligible, can be picked again") \
  P(bool, ttwu_queue, ".ttwu_queue", Bool, true, kNoMin, kNoMax, "", "kernel/sched/features.h TTWU_QUEUE",          \
    "wake-ups of an idle remote CPU go through its wakelist (a CALL_FUNCTION_SINGLE IPI)")                         \
  P(bool, newidle_balance, ".newidle_balance", Bool, true, kNoMin, kNoMax, "", "fair.c sched_balance_newidle()",    \
    "a CPU about to idle pulls work (ablation switch)")                                                             \
  P(bool, periodic_balance, ".periodic_balance", Bool, true, kNoMin, kNoMax, "", "fair.c sched_balance_domains() from SCHED_SOFTIRQ", \
    "a CPU balances itself at its tick when its interval is due (ablation switch)")                                 \
  P(bool, nohz_balance, ".nohz_balance", Bool, true, kNoMin, kNoMax, "", "fair.c nohz_balancer_kick(), _nohz_idle_balance()", \
    "a busy CPU kicks an idle CPU with a stopped tick to balance for all of them (ablation switch)")               \
  P(bool, active_balance, ".active_balance", Bool, true, kNoMin, kNoMax, "", "fair.c need_active_balance(), active_load_balance_cpu_stop()", \
    "after cache_nice_tries + 2 failed balances the stopper pushes the running task (ablation switch)")           \
  P(int, nr_migrate, ".nr_migrate", Int, 32, 1, 1024, "tasks", "kernel/sched/core.c sysctl_sched_nr_migrate",      \
    "tasks one load_balance() pass may move")                                                                       \
  P(sim_ns, active_balance_cost, ".active_balance_cost", Duration, 4000, 500, 50000, "ns",                          \
    "[EST] stop_one_cpu_nowait(): wake the stopper, preempt the running task, detach and attach it", \
    "work on the busiest CPU for an active balance")
struct SchedParams {
  VTICK_PARAMS(SchedParams, VTICK_SCHED_PARAMS);
};

// The guest scheduler's counters (schedstat names where the kernel has one), VM-wide.
#define VTICK_SCHED_STATS(C)                                                                                         \
  C(std::uint64_t, switches, "switches", "count", Counter, "context switches (__schedule picking another task)")    \
  C(std::uint64_t, wakeups_local, "wakeups_local", "count", Counter, "wake-ups queued on the waker's CPU (ttwu_local)") \
  C(std::uint64_t, wakeups_remote, "wakeups_remote", "count", Counter, "wake-ups queued on another CPU")            \
  C(std::uint64_t, forks, "forks", "count", Counter, "wake_up_new_task(): tasks a Fork phase started")             \
  C(std::uint64_t, resched_ipis, "resched_ipis", "count", Counter, "smp_send_reschedule(): reschedule IPIs sent")   \
  C(std::uint64_t, call_function_ipis, "call_function_ipis", "count", Counter,                                     \
    "send_call_function_single_ipi() from a wakelist wake-up: CALL_FUNCTION_SINGLE IPIs sent")                    \
  C(std::uint64_t, ttwu_queued, "ttwu_queued", "count", Counter, "wake-ups put on a remote idle CPU's wakelist (TTWU_QUEUE)") \
  C(std::uint64_t, ttwu_on_cpu, "ttwu_on_cpu", "count", Counter, "wake-ups of a task still switching out (p->on_cpu): queued on its own CPU's wakelist") \
  C(std::uint64_t, ttwu_on_cpu_spins, "ttwu_on_cpu_spins", "count", Counter, "wake-ups that waited for the task to finish switching out (smp_cond_load_acquire on p->on_cpu)") \
  C(std::uint64_t, wake_idle_without_ipi, "wake_idle_without_ipi", "count", Counter,                               \
    "wake-ups of a polling idle CPU: the flag only, no IPI (sched_wake_idle_without_ipi)")                         \
  C(std::uint64_t, preemptions, "preemptions", "count", Counter, "a running task put back (tick slice or wake-up)") \
  C(std::uint64_t, wakeup_preemptions, "wakeup_preemptions", "count", Counter, "preemptions by a woken task (check_preempt_wakeup)") \
  C(std::uint64_t, wake_to_prev, "wake_to_prev", "count", Counter, "placement: the CPU the task last ran on")       \
  C(std::uint64_t, wake_to_waker, "wake_to_waker", "count", Counter, "placement: the waker's CPU (wake_affine)")    \
  C(std::uint64_t, wake_to_idle, "wake_to_idle", "count", Counter, "placement: another idle CPU (select_idle_sibling scan)") \
  C(std::uint64_t, yields, "yields", "count", Counter, "sched_yield() calls (yld_count)")                           \
  C(std::uint64_t, yield_switches, "yield_switches", "count", Counter, "sched_yield() calls that switched to another task") \
  C(std::uint64_t, switch_mm, "switch_mm", "count", Counter, "context switches into another process's mm (switch_mm_irqs_off(); each charged guest.costs.switch_mm_ns)") \
  C(std::uint64_t, migrations, "migrations", "count", Counter, "a task ran on another CPU than last time (nr_migrations)") \
  C(std::uint64_t, migrate_wakeup, "migrate.wakeup", "count", Counter, "set_task_cpu() by wake-up placement (select_task_rq_fair)") \
  C(std::uint64_t, migrate_newidle, "migrate.newidle", "count", Counter, "tasks pulled by sched_balance_newidle()")  \
  C(std::uint64_t, migrate_periodic, "migrate.periodic", "count", Counter, "tasks pulled by a CPU's own balance at its tick (sched_balance_domains)") \
  C(std::uint64_t, migrate_nohz, "migrate.nohz", "count", Counter, "tasks pulled by an idle balance on behalf of nohz CPUs (_nohz_idle_balance)") \
  C(std::uint64_t, migrate_active, "migrate.active", "count", Counter, "running tasks pushed by the stopper (active_load_balance_cpu_stop)") \
  C(std::uint64_t, migrate_hotplug, "migrate.hotplug", "count", Counter, "tasks moved off a CPU going offline (sched_cpu_dying / __balance_push_cpu_stop)") \
  C(std::uint64_t, affinity_broken, "affinity_broken", "count", Counter, "tasks whose affinity had no online CPU left: widened to every CPU (select_fallback_rq)") \
  C(std::uint64_t, migrate_forced_hot, "migrate.forced_hot", "count", Counter, "cache-hot tasks moved because nr_balance_failed > cache_nice_tries (nr_forced_migrations)") \
  C(std::uint64_t, lb_failed, "lb_failed", "count", Counter, "load_balance() runs that found an imbalance and moved nothing (lb_failed)") \
  C(std::uint64_t, lb_hot_skipped, "lb_hot_skipped", "count", Counter, "tasks left alone as cache hot (lb_hot_gained's counterpart)") \
  C(std::uint64_t, active_balances, "active_balances", "count", Counter, "stop_one_cpu_nowait() of active_load_balance_cpu_stop") \
  C(std::uint64_t, periodic_balances, "periodic_balances", "count", Counter, "sched_balance_domains() runs from SCHED_SOFTIRQ") \
  C(std::uint64_t, ilb_kicks_stats, "ilb_kicks.stats", "count", Counter, "kick_ilb() with NOHZ_STATS_KICK only (blocked load update)") \
  C(std::uint64_t, ilb_kicks_balance, "ilb_kicks.balance", "count", Counter, "kick_ilb() with NOHZ_BALANCE_KICK")     \
  C(std::uint64_t, ilb_kicks_next, "ilb_kicks.next", "count", Counter, "kick_ilb() with NOHZ_NEXT_KICK only (nohz.next_balance update)") \
  C(std::uint64_t, ilb_no_cpu, "ilb_no_cpu", "count", Counter, "kick_ilb() that found no idle CPU in nohz.idle_cpus_mask (find_new_ilb)") \
  C(std::uint64_t, nohz_idle_enter, "nohz_idle_enter", "count", Counter, "nohz_balance_enter_idle(): a CPU joins nohz.idle_cpus_mask (its tick stopped)") \
  C(std::uint64_t, nohz_idle_exit, "nohz_idle_exit", "count", Counter, "nohz_balance_exit_idle(): a CPU leaves the mask at its first busy tick") \
  C(std::uint64_t, wake_preempted_skipped, "wake_preempted_skipped", "count", Counter, "placement passed over an idle vCPU the host preempted (vcpu_is_preempted)") \
  C(std::uint64_t, futex_waits, "futex_waits", "count", Counter, "FUTEX_WAIT calls that slept (a held pthread mutex)") \
  C(std::uint64_t, futex_eagain, "futex_eagain", "count", Counter, "FUTEX_WAIT calls that returned EAGAIN: the lock word changed on the way in") \
  C(std::uint64_t, futex_wakes, "futex_wakes", "count", Counter, "FUTEX_WAKE calls of a mutex unlock (the lock word was 2: contended)") \
  C(std::uint64_t, lb_calls, "lb_calls", "count", Counter, "load_balance() runs")                                   \
  C(std::uint64_t, lb_pulled, "lb_pulled", "count", Counter, "tasks moved by load_balance() (lb_gained)")          \
  C(std::uint64_t, newidle_balances, "newidle_balances", "count", Counter, "sched_balance_newidle() runs that balanced")  \
  C(std::uint64_t, nohz_kicks, "nohz_kicks", "count", Counter, "kick_ilb() that sent the kick: an idle CPU balances for the others")  \
  C(std::uint64_t, mutex_contended, "mutex_contended", "count", Counter, "pthread_mutex_lock() whose compare-and-swap found it held (a lock collision)") \
  C(std::uint64_t, io_requests, "io_requests", "count", Counter, "block requests submitted (virtio-blk)")           \
  C(std::uint64_t, net_requests, "net_requests", "count", Counter, "network requests sent (virtio-net)")
struct SchedStats {
  VTICK_STATS(VTICK_SCHED_STATS)
};

}  // namespace vtick
