// Reading a vtick-probe profile (probe/profile.schema.json) and repeating its experiments
// as vtick scenarios: the same two tasks on vCPUs 0 and 1, the same gaps, sleeps, slack.
#include "core/parse_num.hpp"
#include "sim/probe_profile.hpp"
#include "sim/toml_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/scenario.hpp"

namespace vtick {

using json = nlohmann::json;

namespace {
std::string ns_text(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f ns", v);
  return b;
}


const sim_ns kGaps[] = {10'000, 30'000, 100'000, 300'000, 1'000'000, 3'000'000, 10'000'000, 20'000'000};
const sim_ns kLengths[] = {10'000, 30'000, 100'000, 300'000, 1'000'000, 3'000'000, 10'000'000};

[[noreturn]] void bad(const Profile& p, const std::string& key, const std::string& what) {
  throw InputError(p.path + ": " + key + ": " + what);
}

const json& at(const Profile& p, const json& j, const std::string& path, const char* k) {
  if (!j.is_object() || !j.contains(k)) bad(p, path + k, "missing (schema vtick-probe/1, docs/probe.md)");
  return j[k];
}

// j[k], or null where j has no k (nlohmann's const operator[] on a missing key is undefined:
// the fuzzer read freed memory through it)
const json& child(const json& j, const char* k) {
  static const json null;
  if (!j.is_object()) return null;
  auto it = j.find(k);
  return it == j.end() ? null : *it;
}

// j[k] as an integer, `dflt` where j has no k; a number that is not an integer is refused
// (nlohmann converts a double such as 1e87 to long long without a check: undefined)
long long int_or(const Profile& p, const json& j, const std::string& path, const char* k, long long dflt) {
  const json& v = child(j, k);
  if (v.is_null()) return dflt;
  if (!v.is_number_integer()) bad(p, path + k, v.dump() + ": must be an integer");
  return v.get<long long>();
}

int int_at(const Profile& p, const json& j, const std::string& path, const char* k) {
  const json& v = at(p, j, path, k);
  if (!v.is_number_integer() || v.get<long long>() < -1 || v.get<long long>() > 4096)
    bad(p, path + k, v.dump() + ": an integer of -1 .. 4096");
  return v.get<int>();
}

// The p50 of a statistics block, with its relative uncertainty (standard error of the
// median from the p10..p90 spread, 1.2533 sigma / sqrt(n), sigma ~ (p90 - p10) / 2.563;
// a 5 % floor for what one run of a real machine does not show).
void read_stats(const Profile& p, const json& s, const std::string& key, double& p50, double& rel, int& n) {
  for (const char* k : {"n", "p10", "p50", "p90"})
    if (!s.is_object() || !s.contains(k) || !s[k].is_number()) bad(p, key + "." + k, "must be a number");
  if (!s["n"].is_number_integer() || s["n"].get<long long>() < 0 || s["n"].get<long long>() > 1000000000)
    bad(p, key + ".n", s["n"].dump() + ": an integer of 0 .. 1000000000");
  n = s["n"].get<int>();
  p50 = s["p50"].get<double>();
  double p10 = s["p10"].get<double>(), p90 = s["p90"].get<double>();
  double spread = p90 - p10;
  if (n < 1 || !std::isfinite(p50)) bad(p, key, "no samples");
  if (!std::isfinite(p10) || !std::isfinite(p90) || p10 < 0 || !(p10 <= p50 && p50 <= p90))
    bad(p, key, "p10 " + s["p10"].dump() + ", p50 " + s["p50"].dump() + ", p90 " + s["p90"].dump() +
                    ": quantiles of a duration are finite with 0 <= p10 <= p50 <= p90");
  double se = p50 > 0 ? 1.2533 * (spread / 2.563) / std::sqrt(static_cast<double>(n)) / p50 : 1.0;
  rel = std::sqrt(se * se + 0.05 * 0.05);
}

std::string dur(sim_ns t) { return format_duration(t); }

std::string topology_of(const Profile& p, const json& cpus, int cpu_a, int& threads) {
  threads = 1;
  for (const auto& c : cpus) {
    if (!c.is_object() || c.value("cpu", -1) != cpu_a) continue;
    const json& sib = c.contains("thread_siblings") ? c["thread_siblings"] : json();
    if (!sib.is_string()) return "thread siblings not readable: one thread per core assumed";
    // "0-1", "0,2" or "3": count the CPUs of the list
    int count = 0;
    std::stringstream in(sib.get<std::string>());
    std::string part;
    auto cpu = [&](const std::string& t) {
      long long n = 0;
      if (t.empty() || t[0] == '-' || !parse_int(t, 0, 9999, n))
        bad(p, "environment.cpus[].thread_siblings", "'" + sib.get<std::string>() + "': a cpulist such as 0-1 or 0,2");
      return static_cast<int>(n);
    };
    while (std::getline(in, part, ',')) {
      auto dash = part.find('-');
      int n = 1;
      if (dash == std::string::npos) cpu(part);
      else n = cpu(part.substr(dash + 1)) - cpu(part.substr(0, dash)) + 1;
      if (n < 1) bad(p, "environment.cpus[].thread_siblings", "'" + sib.get<std::string>() + "': a range runs upwards");
      count += n;
    }
    threads = std::max(1, count);
    return "";
  }
  bad(p, "environment.cpus", "no entry for cpu_a");
}

ProbeFigure figure(std::string id, ProbeExperiment exp, sim_ns arg = 0, sim_ns slack = 0) {
  ProbeFigure f;
  f.id = std::move(id);
  f.exp = exp;
  f.arg = arg;
  f.slack = slack;
  return f;
}

// irq_rates' windows as the profile names them, by IrqWindow
const char* const kIrqWindows[] = {"idle", "busy", "idle_beside_busy"};

}  // namespace

IrqRatePath irq_rate_path(const ProbeFigure& f) {
  return {kIrqWindows[static_cast<int>(f.window)], f.id.substr(f.id.rfind('.') + 1) + "_per_s"};
}

std::vector<ProbeFigure> probe_figure_catalogue() {
  std::vector<ProbeFigure> v;
  v.push_back(figure("exit", ProbeExperiment::ExitCost));
  v.push_back(figure("pingpong", ProbeExperiment::Pingpong));
  v.push_back(figure("futex_wake.remote", ProbeExperiment::FutexWake, 200'000));
  for (sim_ns g : kGaps) v.push_back(figure("wake_spin." + dur(g), ProbeExperiment::WakeSpin, g));
  for (sim_ns g : kGaps) v.push_back(figure("wake_sleep." + dur(g), ProbeExperiment::WakeSleep, g, 1));
  for (int busy = 0; busy < 2; ++busy)
    for (int def = 0; def < 2; ++def)
      for (sim_ns l : kLengths)
        v.push_back(figure(std::string(busy ? "timer_busy." : "timer_idle.") + (def ? "default." : "slack1.") + dur(l),
                           busy ? ProbeExperiment::TimerBusy : ProbeExperiment::TimerIdle, l, def ? -1 : 1));
  // irq_rates: LOC, RES, CAL and halts in each window (TLB: vtick has no shootdowns)
  const std::pair<const char*, const char*> counters[] = {
      {"loc", "irqs.local_timer"}, {"res", "irqs.reschedule"}, {"cal", "irqs.call_function"}, {"halts", "idle.halts"}};
  for (int w = 0; w < 3; ++w)
    for (const auto& [name, counter] : counters) {
      ProbeFigure f = figure(std::string("irq.") + kIrqWindows[w] + "." + name, ProbeExperiment::IrqRate);
      f.window = static_cast<IrqWindow>(w);
      f.counter = counter;
      f.unit = "/s";
      f.compared = true;
      f.fit = false;
      v.push_back(f);
    }
  // --check fits the exit, the ping-pong, the remote futex wake, the spin round trips and
  // the 1 ns-slack idle timers; it predicts the sleep round trips, the busy timers and the
  // default slack.
  for (auto& f : v)
    if (!f.compared) f.fit = f.exp == ProbeExperiment::ExitCost || f.exp == ProbeExperiment::Pingpong || f.exp == ProbeExperiment::FutexWake ||
            f.exp == ProbeExperiment::WakeSpin ||
            (f.exp == ProbeExperiment::TimerIdle && f.slack == 1);
  return v;
}

Profile load_profile_checked(const std::string& path);

// A value of the wrong JSON type ends in nlohmann's type_error: exit 2 naming the file.
Profile load_profile(const std::string& path) {
  try {
    return load_profile_checked(path);
  } catch (const json::exception& e) {
    throw InputError(path + ": " + std::string(e.what()) + " (schema vtick-probe/1, docs/probe.md)");
  }
}

Profile load_profile_checked(const std::string& path) {
  Profile p;
  p.path = path;
  check_input_file(path, "a vtick-probe profile (JSON)");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw InputError(path + ": cannot read the profile");
  // vtick-probe writes 20-30 kB; a file far past that is not one (and JSON parsing keeps it
  // all in memory, several times over)
  constexpr std::streamoff kMaxProfileBytes = 16 << 20;
  if (in.tellg() > kMaxProfileBytes)
    throw InputError(path + ": " + std::to_string(static_cast<long long>(in.tellg())) + " bytes: a vtick-probe profile is tens of kB; at most " +
                     std::to_string(kMaxProfileBytes) + " are read");
  in.seekg(0);
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw InputError(path + ": not a JSON object (a vtick-probe profile is)");
  if (!j.contains("schema") || j["schema"] != "vtick-probe/1")
    bad(p, "schema", "must be \"vtick-probe/1\" (this vtick reads that schema; docs/probe.md)");
  p.started = j.value("started", "");
  const json& env = at(p, j, "", "environment");
  const json& arch = at(p, env, "environment.", "arch");
  const json& model = at(p, env, "environment.", "cpu_model");
  p.vendor = model.value("vendor", std::string());
  p.cpu_name = model.contains("name") && model["name"].is_string() ? model["name"].get<std::string>() : "";
  p.kernel = env.value("kernel", std::string());
  if (arch == "x86_64") {
    p.isa = "x86_64";
    if (p.vendor == "GenuineIntel") p.arch = "skylake-sp";
    else if (p.vendor == "AuthenticAMD") p.arch = "milan";
    else bad(p, "environment.cpu_model.vendor", "'" + p.vendor + "': vtick has host models for GenuineIntel (skylake-sp) and AuthenticAMD (milan)");
    if (p.cpu_name.find("Skylake") == std::string::npos && p.vendor == "GenuineIntel")
      p.notes.push_back("host CPU '" + p.cpu_name + "': modelled as vtick's Intel model (skylake-sp), its costs fitted");
  } else if (arch == "aarch64" || arch == "arm64") {
    p.isa = "arm64";
    p.arch = "altra";
    p.notes.push_back("arm64 host: modelled as vtick's arm64 model (altra), its costs fitted");
  } else {
    bad(p, "environment.arch", "'" + arch.dump() + "': x86_64 or aarch64");
  }
  int cpu_a = int_at(p, env, "environment.", "cpu_a");
  int cpu_b = int_at(p, env, "environment.", "cpu_b");
  if (cpu_b < 0) bad(p, "environment.cpu_b", "the profile was taken with one CPU: vtick's experiments need two");
  if (cpu_b == cpu_a) bad(p, "environment.cpu_b", std::to_string(cpu_b) + ": the same CPU as cpu_a; the experiments run on two");
  int online = int_at(p, env, "environment.", "online_cpus");
  if (online < 2 || online > 256) bad(p, "environment.online_cpus", std::to_string(online) + ": 2 .. 256");
  std::string why = topology_of(p, at(p, env, "environment.", "cpus"), cpu_a, p.threads_per_core);
  if (!why.empty()) p.notes.push_back(why);
  if (online % p.threads_per_core) p.threads_per_core = 1;
  p.cores = online / p.threads_per_core;

  const json& cfg = at(p, env, "environment.", "config");
  const json& hz = cfg.contains("CONFIG_HZ") ? cfg["CONFIG_HZ"] : json();
  std::string tokens;
  if (hz.is_string()) {
    long long n = 0;
    p.hz = parse_int(hz.get<std::string>(), 1, 100000, n) ? static_cast<int>(n) : 0;  // 0: refused below
    p.hz_from = "CONFIG_HZ";
  }
  if (cfg.value("CONFIG_HZ_PERIODIC", json()).is_string() && cfg["CONFIG_HZ_PERIODIC"] == "y") tokens += " nohz=off";
  if (env.contains("nohz_full") && env["nohz_full"].is_string() && !env["nohz_full"].get<std::string>().empty() &&
      env["nohz_full"] != "(null)")
  {
    const std::string x = env["nohz_full"].get<std::string>();
    if (x.size() > 200 || x.find_first_not_of("0123456789,-") != std::string::npos)
      bad(p, "environment.nohz_full", env["nohz_full"].dump().substr(0, 60) + ": a CPU list as the kernel prints it (0-3,5)");
    tokens += " nohz_full=" + x;
  }

  const json& idle = at(p, env, "environment.", "cpuidle");
  if (!idle.is_object() && !idle.is_null()) bad(p, "environment.cpuidle", idle.dump() + ": an object (driver, governor, states) or null");
  const json& drv = idle.contains("driver") ? idle["driver"] : json();
  if (drv.is_null() || drv == "none") p.cpuidle_driver = "none";
  else if (drv == "haltpoll") p.cpuidle_driver = "haltpoll";
  else bad(p, "environment.cpuidle.driver", drv.dump() + ": vtick models none (no driver) and haltpoll");
  if (p.cpuidle_driver == "haltpoll" && idle.contains("haltpoll") && idle["haltpoll"].is_object())
    for (auto& [k, v] : idle["haltpoll"].items()) {
      if (!v.is_string() || k == "guest_halt_poll_allow_shrink") continue;
      const std::string x = v.get<std::string>();
      if (x.empty() || x.size() > 12 || x.find_first_not_of("0123456789") != std::string::npos)
        bad(p, "environment.cpuidle.haltpoll." + k, v.dump().substr(0, 60) + ": the module parameter's value, a whole number");
      tokens += " haltpoll." + k + "=" + x;
    }
  p.cmdline_tokens = tokens.empty() ? "" : tokens.substr(1);
  if (env.contains("vulnerabilities") && env["vulnerabilities"].is_object()) {
    auto not_affected = [&](const char* k) {
      const json& v = env["vulnerabilities"].contains(k) ? env["vulnerabilities"][k] : json();
      return v.is_string() && v.get<std::string>().rfind("Not affected", 0) == 0;
    };
    p.mds_affected = !not_affected("mds");
    p.l1tf_affected = !not_affected("l1tf");
  }
  std::string ce = env.value("clockevent", json()).is_string() ? env["clockevent"].get<std::string>() : "";
  if (p.isa == "x86_64" && ce != "lapic-deadline")
    p.notes.push_back("clockevent '" + ce + "': vtick models the TSC-deadline timer (lapic-deadline)");

  // the figures
  const json& fig = at(p, j, "", "figures");
  std::vector<ProbeFigure> cat = probe_figure_catalogue();
  if (!fig.is_object()) bad(p, "figures", fig.dump().substr(0, 40) + ": an object of the figures");
  for (const char* k : {"exit_cost", "pingpong", "futex_wake", "wake_after_idle", "timer_overshoot", "irq_rates"})
    if (fig.contains(k) && !fig[k].is_object())
      bad(p, std::string("figures.") + k, fig[k].dump().substr(0, 40) + ": an object (docs/probe.md)");
  long long default_slack = -1;
  if (fig.contains("timer_overshoot") && fig["timer_overshoot"].is_object())
    default_slack = int_or(p, fig["timer_overshoot"], "figures.timer_overshoot.", "default_slack_ns", -1);
  auto take = [&](const std::string& id, const json& stats, const std::string& key, double minus = 0, sim_ns arg = 0) {
    for (auto& f : cat)
      if (f.id == id) {
        read_stats(p, stats, key, f.value, f.rel_sigma, f.n);
        f.value -= minus;
        if (arg > 0) f.arg = arg;
        if (f.slack == -1) f.slack = default_slack;
        p.figures.push_back(f);
      }
  };
  // A figure of the guest's own speed (absent in older profiles; null where the probe says
  // it could not measure it, `null_ok`): a syscall and more, so above getppid()'s (at
  // least as much with `may_equal`, where the more may be below the clock's resolution).
  auto guest_speed = [&](const json& section, const char* sec, const char* name, double& out, const char* why,
                         bool null_ok = false, bool may_equal = false) {
    if (!section.contains(name) || (null_ok && section[name].is_null())) return;
    double rel = 0;
    int n = 0;
    std::string key = std::string("figures.") + sec + "." + name;
    read_stats(p, section[name], key, out, rel, n);
    if (may_equal ? out < p.syscall_ns : out > 0 && out <= p.syscall_ns)
      bad(p, key, "p50 " + ns_text(out) + (may_equal ? " is below" : " is not above") +
                      " getppid()'s (figures.exit_cost.syscall_ns p50 " + ns_text(p.syscall_ns) + "): " + why);
  };
  if (fig.contains("exit_cost")) {  // the guest's own speed: a syscall, a sched_yield() that keeps its task
    double rel = 0;
    int n = 0;
    read_stats(p, child(fig["exit_cost"], "syscall_ns"), "figures.exit_cost.syscall_ns", p.syscall_ns, rel, n);
    guest_speed(fig["exit_cost"], "exit_cost", "sched_yield_ns", p.sched_yield_ns, "sched_yield() is a syscall and more");
    guest_speed(fig["exit_cost"], "exit_cost", "sched_yield_switch_ns", p.sched_yield_switch_ns, "sched_yield() is a syscall and more",
                true);
  }
  if (fig.contains("exit_cost") && fig["exit_cost"].contains("cpuid_ns") && fig["exit_cost"]["cpuid_ns"].is_object())
    take("exit", fig["exit_cost"]["cpuid_ns"], "figures.exit_cost.cpuid_ns", p.syscall_ns);  // read above
  if (fig.contains("pingpong") && fig["pingpong"].contains("round_trip_ns"))
    take("pingpong", fig["pingpong"]["round_trip_ns"], "figures.pingpong.round_trip_ns");
  if (fig.contains("futex_wake") && fig["futex_wake"].is_object() && fig["futex_wake"].contains("remote_ns")) {
    const json& gap = fig["futex_wake"].contains("gap_ns") ? fig["futex_wake"]["gap_ns"] : json();
    if (!gap.is_number_integer() || gap.get<long long>() < 1000 || gap.get<long long>() > 100'000'000)
      bad(p, "figures.futex_wake.gap_ns", "must be an integer of 1000 .. 100000000 (ns)");
    take("futex_wake.remote", fig["futex_wake"]["remote_ns"], "figures.futex_wake.remote_ns", 0, gap.get<sim_ns>());
    guest_speed(fig["futex_wake"], "futex_wake", "local_ns", p.futex_wake_local_ns, "FUTEX_WAKE is a syscall and a wake-up");
    guest_speed(fig["futex_wake"], "futex_wake", "local_hot_ns", p.futex_wake_hot_ns, "FUTEX_WAKE is a syscall and a wake-up");
    guest_speed(fig["futex_wake"], "futex_wake", "local_nobody_ns", p.futex_wake_nobody_ns, "FUTEX_WAKE is a syscall", false,
                true);
    if (p.futex_wake_hot_ns > 0 && p.futex_wake_nobody_ns > 0 && p.futex_wake_hot_ns <= p.futex_wake_nobody_ns)
      bad(p, "figures.futex_wake.local_hot_ns", "p50 " + ns_text(p.futex_wake_hot_ns) + " is not above local_nobody_ns's p50 " +
                                                    ns_text(p.futex_wake_nobody_ns) + ": a wake-up is a FUTEX_WAKE that wakes one");
  }
  if (fig.contains("wake_after_idle") && fig["wake_after_idle"].contains("points")) {
    int i = 0;
    for (const auto& pt : fig["wake_after_idle"]["points"]) {
      std::string key = "figures.wake_after_idle.points[" + std::to_string(i++) + "]";
      std::string id = "wake_" + pt.value("mode", std::string("?")) + "." + dur(int_or(p, pt, key + ".", "gap_ns", 0));
      take(id, at(p, pt, key + ".", "round_trip_ns"), key + ".round_trip_ns");
    }
  }
  if (fig.contains("timer_overshoot") && fig["timer_overshoot"].contains("points")) {
    int i = 0;
    for (const auto& pt : fig["timer_overshoot"]["points"]) {
      std::string key = "figures.timer_overshoot.points[" + std::to_string(i++) + "]";
      long long slack = int_or(p, pt, key + ".", "slack_ns", -2);
      std::string id = std::string(pt.value("busy", false) ? "timer_busy." : "timer_idle.") +
                       (slack == 1 ? "slack1." : slack == default_slack ? "default." : "other.") + dur(int_or(p, pt, key + ".", "length_ns", 0));
      take(id, at(p, pt, key + ".", "overshoot_ns"), key + ".overshoot_ns");
    }
  }
  if (fig.contains("irq_rates") && fig["irq_rates"].is_object())
    for (auto& f : cat) {
      if (f.exp != ProbeExperiment::IrqRate) continue;
      auto [w, k] = irq_rate_path(f);
      const json& win = fig["irq_rates"].contains(w) ? fig["irq_rates"][w] : json();
      const json& v = win.is_object() && win.contains(k) ? win[k] : json();
      if (v.is_null()) continue;  // a window not taken; halts without a cpuidle driver
      if (!v.is_number() || v.get<double>() < 0) bad(p, "figures.irq_rates." + w + "." + k, v.dump() + ": a rate >= 0");
      f.value = v.get<double>();
      f.rel_sigma = 0.05;
      f.n = 1;
      p.figures.push_back(f);
    }
  // HZ not readable from the config: the busy CPU's local timer rate is the tick
  if (!p.hz && fig.contains("irq_rates") && fig["irq_rates"].contains("busy") && fig["irq_rates"]["busy"].is_object()) {
    double loc = fig["irq_rates"]["busy"].value("loc_per_s", 0.0);
    int best = 0;
    for (int h : {100, 250, 300, 1000})
      if (!best || std::fabs(loc - h) < std::fabs(loc - best)) best = h;
    if (loc > 50) {
      p.hz = best;
      p.hz_from = "the busy CPU's LOC rate (" + std::to_string(static_cast<int>(loc)) + "/s)";
    }
  }
  if (!p.hz) bad(p, "environment.config.CONFIG_HZ", "not in the profile and no busy-CPU LOC rate to infer it from: give --set guest.hz=N");
  if (p.figures.size() < 3) bad(p, "figures", "fewer than 3 figures vtick can compute (exit_cost, pingpong, wake_after_idle, timer_overshoot)");
  return p;
}

namespace {
// One measured [guest.costs] key, rounded to whole ns and held to its declared range.
std::string guest_cost_line(const Profile& p, const std::string& name, double ns, const std::string& what) {
  const std::string key = "guest.costs." + name;
  PCtx ctx{p.isa, p.arch};
  for (const auto& par : scenario_params()) {
    if (par.key != key) continue;
    auto [lo, hi] = par.range_for(ctx);
    double v = std::clamp(std::round(ns), lo, hi);
    std::ostringstream o;
    o << name << " = " << static_cast<long long>(v) << "  # " << toml_comment_text(what);
    if (v != std::round(ns)) o << " (" << ns_text(ns) << ", held to its range " << ns_text(lo) << " .. " << ns_text(hi) << ")";
    return o.str() + "\n";
  }
  throw std::logic_error("guest_cost_line: no parameter " + key);
}
}  // namespace

std::string profile_base_toml(const Profile& p) {
  std::ostringstream o;
  o << "# The VM of the vtick-probe profile " << toml_comment_text(p.path) << " (" << toml_comment_text(p.started)
    << "): " << toml_comment_text(p.cpu_name) << ", kernel " << toml_comment_text(p.kernel)
    << ". Written by vtick calibrate (the keys it fitted, if any, are marked so below).\n";
  for (const auto& n : p.notes) o << "# assumed: " << toml_comment_text(n) << "\n";
  o << "[platform]\nshape = \"generic\"\narch = \"" << p.arch << "\"\ncores = " << p.cores
    << "\nthreads_per_core = " << p.threads_per_core << "\n\n";
  if (p.isa == "x86_64")
    o << "[host.mitigations]  # from the guest's /sys/devices/system/cpu/vulnerabilities\nl1d_flush = \""
      << (p.l1tf_affected ? "cond" : "never") << "\"\nmds_clear = " << (p.mds_affected ? "true" : "false") << "\n\n";
  o << "[guest]\nhz = " << p.hz << "  # " << toml_comment_text(p.hz_from) << "\ncpuidle_driver = "
    << toml_basic_string(p.cpuidle_driver) << "\n";
  if (!p.cmdline_tokens.empty()) o << "cmdline = " << toml_basic_string(p.cmdline_tokens) << "\n";
  o << "tick_policy = \"legacy\"  # the kernels before f4c31b07b136; vtick compare --policies tries the others\n\n"
    << "[guest.sched]\ntopology = \"" << (p.threads_per_core > 1 ? "smt" : "mc") << "\"\n\n"
    << "[guest.background]\npreset = \"measured\"  # a real guest is never empty\n";
  if (p.syscall_ns > 0) {
    o << "\n[guest.costs]  # the guest's own speed, measured by vtick-probe (figures.exit_cost p50), not fitted\n"
      << guest_cost_line(p, "syscall_ns", p.syscall_ns, "getppid()");
    if (p.sched_yield_ns > 0)
      o << guest_cost_line(p, "schedule_noswitch_ns", p.sched_yield_ns - p.syscall_ns,
                           "sched_yield() " + ns_text(p.sched_yield_ns) + " less getppid()");
    // try_to_wake_up() in place: the ping-pong's FUTEX_WAKE that woke less one that woke
    // nobody; profiles without them: the long sleeper's (local_ns) less getppid(), which
    // also holds its cold caches (docs/real-guest/trace-2026-12-06c/futex-pingpong.txt)
    if (p.futex_wake_hot_ns > 0 && p.futex_wake_nobody_ns > 0)
      o << guest_cost_line(p, "ttwu_ns", p.futex_wake_hot_ns - p.futex_wake_nobody_ns,
                           "FUTEX_WAKE that woke a task on the waker's CPU in a ping-pong " + ns_text(p.futex_wake_hot_ns) +
                               " less one that woke nobody " + ns_text(p.futex_wake_nobody_ns));
    else if (p.futex_wake_local_ns > 0)
      o << guest_cost_line(p, "ttwu_ns", p.futex_wake_local_ns - p.syscall_ns,
                           "FUTEX_WAKE of a task on the waker's CPU " + ns_text(p.futex_wake_local_ns) + " less getppid()");
    if (p.sched_yield_switch_ns > 0)
      o << guest_cost_line(p, "schedule_ns", p.sched_yield_switch_ns - p.syscall_ns,
                           "sched_yield() to another task " + ns_text(p.sched_yield_switch_ns) + " less getppid()");
  }
  return o.str();
}

ProbeRun figure_run(const std::string& base, const ProbeFigure& f) {
  std::ostringstream o;
  o << base << "\n[workload]\nkind = \"script\"\n\n";
  sim_ns per_op = 50'000;
  auto pair = [&](const std::string& before) {
    o << "[[workload.task]]\nname = \"client\"\ncpus = \"0\"\nprogram = [" << before
      << "\"mark\", \"wake req\", \"wait resp\"]\n\n[[workload.task]]\nname = \"server\"\ncpus = \"1\"\nprogram = "
         "[\"wait req\", \"wake resp\"]\n";
  };
  switch (f.exp) {
    case ProbeExperiment::ExitCost:  // not a run: calibrate computes one exit from the costs
    case ProbeExperiment::Pingpong: pair(""); break;
    case ProbeExperiment::FutexWake:  // the probe's waker sleeps the gap, then a quarter more (the waiter is back in FUTEX_WAIT)
      o << "[[workload.task]]\nname = \"waker\"\ncpus = \"0\"\nprogram = [\"sleep " << dur(f.arg) << "\", \"sleep "
        << dur(f.arg / 4 + 1000) << "\", \"mark\", \"wake req\"]\n\n[[workload.task]]\nname = \"waiter\"\ncpus = \"1\"\nprogram = "
           "[\"wait req\"]\n";
      per_op += f.arg + f.arg / 4;
      break;
    case ProbeExperiment::WakeSpin: pair("\"run " + dur(f.arg) + "\", "); per_op += f.arg; break;
    case ProbeExperiment::WakeSleep: pair("\"sleep " + dur(f.arg) + "\", "); per_op += f.arg; break;
    case ProbeExperiment::IrqRate:  // the probe's windows: all idle, or vCPU 1 spinning
      if (f.window == IrqWindow::Idle) {
        o.str("");
        o << base << "\n[workload]\nkind = \"idle\"\n";
      } else {
        o << "[[workload.task]]\nname = \"spinner\"\ncpus = \"1\"\nprogram = [\"run 10ms\"]\n";
      }
      per_op = 5'000'000;  // a one-second window
      break;
    case ProbeExperiment::TimerIdle:
    case ProbeExperiment::TimerBusy:
      o << "[[workload.task]]\nname = \"sleeper\"\ncpus = \"1\"\nprogram = [\"mark\", \"sleep " << dur(f.arg) << "\"]\n";
      if (f.exp == ProbeExperiment::TimerBusy) o << "\n[[workload.task]]\nname = \"spinner\"\ncpus = \"1\"\nprogram = [\"run 10ms\"]\n";
      per_op += f.arg;
      break;
  }
  // about 200 ops per run (the probe's quick run takes 10 .. 2000), at least 50 ms
  sim_ns d = std::max<sim_ns>(50'000'000, 200 * per_op);
  o << "\n[run]\nduration = \"" << dur(d) << "\"\nwarmup = \"10ms\"\nseed = 1\n";
  return {o.str(), figure_sets(f)};
}

std::vector<std::string> figure_sets(const ProbeFigure& f) {
  if (f.exp == ProbeExperiment::WakeSleep || f.exp == ProbeExperiment::TimerIdle || f.exp == ProbeExperiment::TimerBusy)
    return {"guest.timer_slack=" + std::to_string(f.slack > 0 ? f.slack : 1) + "ns"};
  return {};
}

double figure_value(const ProbeFigure& f, const RunResult& r) {
  if (f.exp == ProbeExperiment::IrqRate) {
    std::string k = std::string("vcpu") + (f.window == IrqWindow::Busy ? "1." : "0.") + f.counter;
    if (!r.metrics.has(k) || r.measured_ns <= 0) return NAN;
    return r.metrics.get(k) / (static_cast<double>(r.measured_ns) / 1e9);
  }
  if (!r.metrics.has("workload.op_latency_p50_ns")) return NAN;
  double v = r.metrics.get("workload.op_latency_p50_ns");
  if (f.exp == ProbeExperiment::TimerIdle || f.exp == ProbeExperiment::TimerBusy) v -= static_cast<double>(f.arg);
  return v;
}

}  // namespace vtick
