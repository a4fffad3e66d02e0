// Guest kernel configuration: CONFIG_HZ, boot parameters, policy choice and guest-side costs.
#pragma once
#include <string>
#include <vector>

#include "core/param_row.hpp"
#include "core/time.hpp"
#include "guest/cpuidle.hpp"
#include "guest/sched.hpp"
#include "platform/arch.hpp"

namespace vtick {

// Guest CPU time for kernel paths the model executes (nominal ns; all [EST], see
// guest_cost_rows() for ranges and reasoning).
struct GuestCosts {
  sim_ns irq_entry_ns = 300;       // irq entry/exit incl. tick_irq_enter / irq_exit
  sim_ns tick_handler_ns = 1500;   // tick_nohz_handler: update_process_times, scheduler_tick
  sim_ns hrtimer_wakeup_ns = 400;  // hrtimer_wakeup callback of a sleeping task
  sim_ns resched_ipi_ns = 300;     // scheduler_ipi
  sim_ns idle_enter_ns = 200;      // do_idle entry: polling flag, tick_nohz_idle_enter
  sim_ns idle_exit_ns = 200;       // tick_nohz_idle_exit, flush_smp_call_function_queue
  sim_ns tick_stop_ns = 500;       // tick_nohz_next_event: get_next_timer_interrupt
  sim_ns schedule_ns = 1000;       // __schedule: pick_next_task + context switch
  sim_ns ttwu_ns = 500;            // try_to_wake_up: select_task_rq + enqueue
  sim_ns syscall_ns = 150;         // syscall entry + exit
  sim_ns load_balance_ns = 2000;   // one load_balance() pass over the domain
  sim_ns io_submit_ns = 2000;      // block layer + virtio-blk request setup
  sim_ns net_xmit_ns = 3000;       // socket send + TCP/IP + virtio-net TX setup
  sim_ns io_complete_ns = 1500;    // virtio-blk interrupt handler + bio completion
};

// Marco Crivellari's 2026 series "Stop the idle tick on polling idle on nohz_full CPUs".
struct NohzPollSeries {
  bool p1_kick = false;              // P1(a): nohz_full_kick_func() sets TIF_NEED_RESCHED when polling
  bool p1_stopped_tick_fix = false;  // P1(b): a stopped tick expiring in idle sets TIF_NEED_RESCHED
  bool p1_user_entry = false;        // P1(c): stop a still-running tick on return to user space
  bool p2 = false;                   // P2: with idle=poll, nohz_full CPUs stop the tick on idle entry
};
const std::vector<std::string>& nohz_poll_series_names();
bool nohz_poll_series(const std::string& name, NohzPollSeries& out);

// Reasons tick_nohz_next_event() keeps the tick for one more period, as probabilities
// per evaluation (rcu_needs_cpu(), irq_work_needs_cpu(), local_timer_softirq_pending()).
struct NohzReasons {
  double rcu_needs_cpu = 0;
  double irq_work_needs_cpu = 0;
  double softirq_pending = 0;
};

struct GuestParams {
  Isa isa = Isa::X86_64;
  int hz = 1000;                   // CONFIG_HZ
  std::string tick_policy = "legacy";
  CpuidleParams cpuidle;
  std::string cmdline;             // boot parameters as given
  bool nohz = true;                // nohz=off clears it
  bool idle_poll = false;          // idle=poll / nohlt: cpu_idle_force_poll
  std::uint64_t nohz_full = 0;     // nohz_full=<cpulist> as a mask
  std::string nohz_poll_series_name = "none";
  NohzPollSeries series;
  NohzReasons reasons;
  double background_timer_hz = 0;  // per-CPU timer-wheel timers per second (vmstat, writeback, ...)
  sim_ns poll_relax_batch_ns = 14000;  // POLL_IDLE_RELAX_COUNT (200) cpu_relax() between clock checks
  std::string cputime = "old";     // old (dual scheme) | new (Weisbecker 2026 refactor)
  struct HotplugEvent { int cpu; bool online; sim_ns at; };
  std::vector<HotplugEvent> hotplug;  // CPU offline/online events, in time order
  sim_ns timer_slack_ns = 50000;   // task timer_slack_ns default (init_task: 50 us)
  sim_ns timekeeping_max_deferment = 0;  // set from the clocksource in the kernel; see model.md
  GuestCosts costs;
  SchedParams sched;

  sim_ns tick_nsec() const { return (NSEC_PER_SEC + hz / 2) / hz; }  // TICK_NSEC
};

const std::vector<ParamRow>& guest_cost_rows();
bool set_guest_cost(GuestCosts& c, const std::string& key, double value);

// CONFIG_HZ values the kernel's Kconfig offers.
const std::vector<int>& allowed_hz();

// Parses guest.cmdline into `p`; returns an error text naming the bad parameter, or "".
// `nr_cpus` bounds cpulists.
std::string parse_cmdline(const std::string& cmdline, GuestParams& p, int nr_cpus);
// "2-3,5" -> mask; false on a malformed list or a CPU >= nr_cpus.
bool parse_cpulist(const std::string& s, int nr_cpus, std::uint64_t& mask);

}  // namespace vtick
