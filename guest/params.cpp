#include "guest/params.hpp"

#include <map>
#include <sstream>

namespace vtick {

namespace {
struct CostField { sim_ns GuestCosts::*field; };
const std::map<std::string, CostField>& cost_fields() {
  static const std::map<std::string, CostField> f = {
      {"irq_entry_ns", {&GuestCosts::irq_entry_ns}},     {"tick_handler_ns", {&GuestCosts::tick_handler_ns}},
      {"hrtimer_wakeup_ns", {&GuestCosts::hrtimer_wakeup_ns}}, {"resched_ipi_ns", {&GuestCosts::resched_ipi_ns}},
      {"idle_enter_ns", {&GuestCosts::idle_enter_ns}},   {"idle_exit_ns", {&GuestCosts::idle_exit_ns}},
      {"tick_stop_ns", {&GuestCosts::tick_stop_ns}},     {"schedule_ns", {&GuestCosts::schedule_ns}},
      {"ttwu_ns", {&GuestCosts::ttwu_ns}},               {"syscall_ns", {&GuestCosts::syscall_ns}},
      {"load_balance_ns", {&GuestCosts::load_balance_ns}}, {"io_submit_ns", {&GuestCosts::io_submit_ns}},
      {"io_complete_ns", {&GuestCosts::io_complete_ns}},
  };
  return f;
}
}  // namespace

const std::vector<ParamRow>& guest_cost_rows() {
  static const std::vector<ParamRow> rows = {
      {"irq_entry_ns", 300, 100, 2000, "ns", "[EST] irq entry/exit with tick_irq_enter/tick_nohz_irq_exit"},
      {"tick_handler_ns", 1500, 500, 5000, "ns", "[EST] guest tick handler ~1-5 us incl. softirq (kernel-kvm.md s3)"},
      {"hrtimer_wakeup_ns", 400, 100, 2000, "ns", "[EST] hrtimer_wakeup -> wake_up_process"},
      {"resched_ipi_ns", 300, 100, 2000, "ns", "[EST] scheduler_ipi + sched_ttwu_pending"},
      {"idle_enter_ns", 200, 50, 1000, "ns", "[EST] do_idle entry: __current_set_polling, tick_nohz_idle_enter"},
      {"idle_exit_ns", 200, 50, 1000, "ns", "[EST] tick_nohz_idle_exit without restart, flush_smp_call_function_queue"},
      {"tick_stop_ns", 500, 100, 2000, "ns", "[EST] tick_nohz_next_event: timer-wheel scan (get_next_timer_interrupt)"},
      {"schedule_ns", 1000, 300, 5000, "ns", "[EST] __schedule: pick_next_task_fair + context_switch"},
      {"ttwu_ns", 500, 100, 2000, "ns", "[EST] try_to_wake_up: select_task_rq_fair + enqueue_task"},
      {"syscall_ns", 150, 50, 1000, "ns", "[EST] syscall entry/exit with mitigations"},
      {"load_balance_ns", 2000, 500, 10000, "ns", "[EST] one load_balance() pass: find_busiest_group + detach/attach"},
      {"io_submit_ns", 2000, 500, 10000, "ns", "[EST] block layer + virtio-blk request setup before the kick"},
      {"io_complete_ns", 1500, 500, 10000, "ns", "[EST] virtio-blk interrupt handler + bio completion"},
  };
  return rows;
}

bool set_guest_cost(GuestCosts& c, const std::string& key, double value) {
  auto it = cost_fields().find(key);
  if (it == cost_fields().end()) return false;
  c.*(it->second.field) = static_cast<sim_ns>(value);
  return true;
}

const std::vector<int>& allowed_hz() {
  static const std::vector<int> v = {100, 250, 300, 1000};
  return v;
}

std::string parse_cmdline(const std::string& cmdline, GuestParams& p) {
  std::istringstream in(cmdline);
  std::string tok;
  while (in >> tok) {
    auto eq = tok.find('=');
    std::string key = tok.substr(0, eq);
    std::string val = eq == std::string::npos ? "" : tok.substr(eq + 1);
    if (key == "nohz") {
      if (val == "off") p.nohz = false;
      else if (val == "on") p.nohz = true;
      else return "nohz=" + val + ": allowed nohz=on or nohz=off";
    } else if (key == "cpuidle.off") {
      if (val != "1") return "cpuidle.off=" + val + ": allowed cpuidle.off=1";
      p.cpuidle_driver = "none";
    } else {
      return "boot parameter '" + tok + "' is not modelled; allowed: nohz=on|off, cpuidle.off=1";
    }
  }
  return "";
}

}  // namespace vtick
