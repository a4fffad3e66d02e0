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
      {"io_complete_ns", {&GuestCosts::io_complete_ns}}, {"net_xmit_ns", {&GuestCosts::net_xmit_ns}},
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
      {"io_complete_ns", 1500, 500, 10000, "ns", "[EST] virtio-blk interrupt handler + bio completion (also the virtio-net RX interrupt)"},
      {"net_xmit_ns", 3000, 500, 20000, "ns", "[EST] sendmsg: TCP/IP stack + virtio-net TX descriptor before the kick"},
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

bool parse_cpulist(const std::string& s, int nr_cpus, std::uint64_t& mask) {
  mask = 0;
  std::istringstream in(s);
  std::string part;
  while (std::getline(in, part, ',')) {
    auto dash = part.find('-');
    std::string a = part.substr(0, dash), b = dash == std::string::npos ? a : part.substr(dash + 1);
    if (a.empty() || b.empty() || a.find_first_not_of("0123456789") != std::string::npos ||
        b.find_first_not_of("0123456789") != std::string::npos)
      return false;
    int lo = std::stoi(a), hi = std::stoi(b);
    if (lo > hi || hi >= nr_cpus || hi >= 64) return false;
    for (int c = lo; c <= hi; ++c) mask |= 1ULL << c;
  }
  return mask != 0;
}

const std::vector<std::string>& nohz_poll_series_names() {
  static const std::vector<std::string> v = {"none", "p1p2", "p2_without_kick", "p2_without_stopped_tick_fix"};
  return v;
}

bool nohz_poll_series(const std::string& name, NohzPollSeries& s) {
  s = NohzPollSeries{};
  if (name == "none") return true;
  s.p2 = true;
  s.p1_user_entry = true;
  s.p1_kick = name != "p2_without_kick";
  s.p1_stopped_tick_fix = name != "p2_without_stopped_tick_fix";
  return name == "p1p2" || name == "p2_without_kick" || name == "p2_without_stopped_tick_fix";
}

static bool parse_uint(const std::string& v, std::uint64_t& out) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 12) return false;
  out = std::stoull(v);
  return true;
}

std::string parse_cmdline(const std::string& cmdline, GuestParams& p, int nr_cpus) {
  static const char* kAllowed =
      "nohz=on|off, nohz_full=<cpulist>, idle=poll, nohlt, cpuidle.off=1, cpuidle_haltpoll.force=1, "
      "haltpoll.guest_halt_poll_ns=N, haltpoll.guest_halt_poll_grow=N, haltpoll.guest_halt_poll_grow_start=N, "
      "haltpoll.guest_halt_poll_shrink=N, haltpoll.guest_halt_poll_allow_shrink=Y|N";
  std::istringstream in(cmdline);
  std::string tok;
  HaltpollParams& hp = p.cpuidle.haltpoll;
  bool cpuidle_off = false;
  while (in >> tok) {
    auto eq = tok.find('=');
    std::string key = tok.substr(0, eq);
    std::string val = eq == std::string::npos ? "" : tok.substr(eq + 1);
    std::uint64_t n = 0;
    auto number = [&](const char* what) -> std::string {
      if (!parse_uint(val, n)) return tok + ": " + what + " must be a non-negative integer";
      return "";
    };
    std::string err;
    if (key == "nohz") {
      if (val == "off") p.nohz = false;
      else if (val == "on") p.nohz = true;
      else return tok + ": allowed nohz=on or nohz=off";
    } else if (key == "nohz_full") {
      if (!parse_cpulist(val, nr_cpus, p.nohz_full))
        return tok + ": a cpulist like 2-3 or 1,3 of CPUs below " + std::to_string(nr_cpus);
    } else if (key == "idle") {
      if (val != "poll") return tok + ": only idle=poll is modelled";
      p.idle_poll = true;
    } else if (tok == "nohlt") {
      p.idle_poll = true;
    } else if (key == "cpuidle.off") {
      if (val != "1") return tok + ": allowed cpuidle.off=1";
      cpuidle_off = true;  // wherever it stands on the line: no driver registers
    } else if (key == "cpuidle_haltpoll.force") {
      if (val != "1") return tok + ": allowed cpuidle_haltpoll.force=1";
      p.cpuidle.driver = "haltpoll";
    } else if (key == "haltpoll.guest_halt_poll_ns") {
      if (!(err = number("guest_halt_poll_ns")).empty()) return err;
      hp.guest_halt_poll_ns = static_cast<sim_ns>(n);
    } else if (key == "haltpoll.guest_halt_poll_grow") {
      if (!(err = number("guest_halt_poll_grow")).empty()) return err;
      hp.guest_halt_poll_grow = static_cast<unsigned>(n);
    } else if (key == "haltpoll.guest_halt_poll_grow_start") {
      if (!(err = number("guest_halt_poll_grow_start")).empty()) return err;
      hp.guest_halt_poll_grow_start = static_cast<sim_ns>(n);
    } else if (key == "haltpoll.guest_halt_poll_shrink") {
      if (!(err = number("guest_halt_poll_shrink")).empty()) return err;
      hp.guest_halt_poll_shrink = static_cast<unsigned>(n);
    } else if (key == "haltpoll.guest_halt_poll_allow_shrink") {
      if (val != "Y" && val != "N" && val != "1" && val != "0") return tok + ": allowed Y or N";
      hp.guest_halt_poll_allow_shrink = (val == "Y" || val == "1");
    } else {
      return "boot parameter '" + tok + "' is not modelled; allowed: " + kAllowed;
    }
  }
  if (cpuidle_off) p.cpuidle.driver = "none";  // cpuidle_not_available(), whatever else asked for a driver
  return "";
}

}  // namespace vtick
