// Guest kernel configuration: CONFIG_HZ, boot parameters, policy choice and guest-side costs.
#pragma once
#include <string>
#include <vector>

#include "core/param_row.hpp"
#include "core/time.hpp"
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
  sim_ns io_complete_ns = 1500;    // virtio-blk interrupt handler + bio completion
};

struct GuestParams {
  Isa isa = Isa::X86_64;
  int hz = 1000;                   // CONFIG_HZ
  std::string tick_policy = "legacy";
  std::string cpuidle_driver = "none";
  std::string cmdline;             // boot parameters as given
  bool nohz = true;                // nohz=off clears it
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
std::string parse_cmdline(const std::string& cmdline, GuestParams& p);

}  // namespace vtick
