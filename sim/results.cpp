#include "sim/results.hpp"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <xbt/base.h>
#include <simgrid/version.h>

#include "sim/manifest.hpp"
#include "sim/stats.hpp"
#include "vtick_version.hpp"

namespace vtick {

using json = nlohmann::ordered_json;

std::string version_line() {
  return std::string("vtick ") + VTICK_VERSION + " (git " + VTICK_GIT_REV + ", " + SIMGRID_VERSION_STRING + ")";
}

namespace {

double sum_over_vcpus(const Scenario& sc, const Metrics& m, const std::string& suffix) {
  double s = 0;
  for (int i = 0; i < sc.vcpus; ++i) s += m.get("vcpu" + std::to_string(i) + "." + suffix);
  return s;
}

constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

void set_number(json& j, const std::string& key, double v) {
  if (!std::isfinite(v)) j[key] = nullptr;  // undefined (no sample, nothing to divide by)
  else if (std::fabs(v) < 9.0e15 && v == std::floor(v)) j[key] = static_cast<long long>(v);
  else j[key] = v;
}

// "a.b.c" -> j["a"]["b"]["c"]
json& at_path(json& root, const std::string& dotted, std::string& leaf) {
  json* cur = &root;
  std::size_t start = 0, dot;
  while ((dot = dotted.find('.', start)) != std::string::npos) {
    cur = &(*cur)[dotted.substr(start, dot - start)];
    start = dot + 1;
  }
  leaf = dotted.substr(start);
  return *cur;
}

}  // namespace

std::vector<Headline> headlines(const Scenario& sc, const RunResult& r) {
  const Metrics& m = r.metrics;
  double secs = static_cast<double>(r.measured_ns) * 1e-9;
  double vcpu_ns = static_cast<double>(r.measured_ns) * sc.vcpus;
  // undefined (NaN, n/a in tables, null in JSON) where there is nothing to divide by
  auto per_s = [&](double x) { return secs > 0 ? x / secs : kUndefined; };
  auto pct = [&](double x, double of) { return of > 0 ? 100.0 * x / of : kUndefined; };
  auto pctile = [&](double p) { return r.wake_latency.empty() ? kUndefined : static_cast<double>(r.wake_latency.value_at_percentile(p)) / 1e3; };
  double attempted = sum_over_vcpus(sc, m, "kvm.halt_attempted_poll");
  double success = sum_over_vcpus(sc, m, "kvm.halt_successful_poll");
  double poll_ns = sum_over_vcpus(sc, m, "kvm.halt_poll_success_ns") + sum_over_vcpus(sc, m, "kvm.halt_poll_fail_ns");
  double co_busy = 0, cores_ns = 0;
  for (int t = 0; t < sc.shape.cores * sc.shape.threads_per_core; ++t) {
    std::string k = "pcpu" + std::to_string(t) + ".smt_co_busy_ns";
    if (m.has(k) && t < sc.shape.cores) { co_busy += m.get(k); cores_ns += static_cast<double>(r.measured_ns); }
  }
  std::vector<Headline> h = {
      {"ops_per_s", r.ops_name + "/s", "1/s", per_s(m.get("workload.ops"))},
      {"wake_latency_p50_us", "wake-up latency p50", "us", pctile(50)},
      {"wake_latency_p99_us", "wake-up latency p99", "us", pctile(99)},
      {"tick_wakeups_per_s", "tick wake-ups of halted vCPUs/s", "1/s", per_s(sum_over_vcpus(sc, m, "idle.tick_woken_halts"))},
      {"ticks_idle_per_s", "ticks taken in idle/s", "1/s", per_s(sum_over_vcpus(sc, m, "tick.ticks_idle"))},
      {"ticks_busy_per_s", "ticks taken busy/s", "1/s", per_s(sum_over_vcpus(sc, m, "tick.ticks_busy"))},
      {"tick_stops_per_s", "tick stops/s", "1/s", per_s(sum_over_vcpus(sc, m, "tick.stops"))},
      {"halt_exits_per_s", "HLT/WFI exits/s", "1/s", per_s(sum_over_vcpus(sc, m, "kvm.halt_exits"))},
      {"timer_exits_per_s", "timer-write exits/s", "1/s",
       per_s(sum_over_vcpus(sc, m, "exits.msr_tsc_deadline") + sum_over_vcpus(sc, m, "exits.apic_lvtt"))},
      {"ipi_exits_per_s", "IPI exits/s", "1/s", per_s(sum_over_vcpus(sc, m, "exits.ipi"))},
      {"exits_per_s", "VM exits/s (all)", "1/s", per_s(sum_over_vcpus(sc, m, "exits.total"))},
      {"halt_poll_success_pct", "halt-poll success", "%", pct(success, attempted)},
      {"halt_poll_time_pct", "halt-poll time", "% of vCPU time", pct(poll_ns, vcpu_ns)},
      {"blocked_pct", "vCPU thread blocked", "% of vCPU time", pct(sum_over_vcpus(sc, m, "host_time.blocked_ns"), vcpu_ns)},
      {"guest_mode_pct", "in guest mode", "% of vCPU time", pct(sum_over_vcpus(sc, m, "host_time.guest_ns"), vcpu_ns)},
      {"steal_pct", "steal", "% of vCPU time", pct(sum_over_vcpus(sc, m, "steal_ns"), vcpu_ns)},
      {"smt_co_busy_pct", "SMT co-busy", "% of core time", pct(co_busy, cores_ns)},
  };
  auto opt = [&](const char* key, const char* label, const char* unit, double v) {
    h.push_back({key, label, unit, v, true});
  };
  opt("ticks_user_per_s", "ticks taken in user space/s", "1/s", per_s(sum_over_vcpus(sc, m, "tick.ticks_user")));
  opt("ticks_polling_per_s", "ticks taken while polling/s", "1/s", per_s(sum_over_vcpus(sc, m, "tick.ticks_polling")));
  opt("guest_poll_time_pct", "guest poll-idle time", "% of vCPU time", pct(sum_over_vcpus(sc, m, "cpuidle.poll_ns"), vcpu_ns));
  opt("migrations_per_s", "task migrations/s", "1/s", per_s(m.get("sched.migrations")));
  opt("lb_pulled_per_s", "tasks pulled by load balancing/s", "1/s", per_s(m.get("sched.lb_pulled")));
  opt("mutex_contended_per_s", "lock collisions/s", "1/s", per_s(m.get("sched.mutex_contended")));
  opt("futex_waits_per_s", "futex sleeps/s", "1/s", per_s(m.get("sched.futex_waits")));
  opt("packed_pct", "packed (>= 2 tasks on a vCPU, another idle)", "% of time", pct(m.get("packing.packed_ns"), static_cast<double>(r.measured_ns)));
  opt("packed_phases_per_s", "packed phases/s", "1/s", per_s(m.get("packing.episodes")));
  opt("colocated_pct", "workers co-located (>= 2 on one vCPU)", "% of time",
      pct(m.get("packing.colocated_ns"), static_cast<double>(r.measured_ns)));
  opt("ilb_kicks_per_s", "nohz idle-balance kicks/s", "1/s", per_s(m.get("sched.nohz_kicks")));
  double lost = 0, late = 0;
  int probes = 0;
  for (int i = 0; m.has("probe.timer" + std::to_string(i) + ".fired_ns"); ++i, ++probes) {
    std::string p = "probe.timer" + std::to_string(i) + ".";
    if (m.get(p + "fired_ns") < 0) ++lost;
    late = std::max(late, m.get(p + "lateness_ns"));
  }
  if (m.get("workload.exited_tasks") > 0)
    h.push_back({"completion_ms", "workload completion (last task exit)", "ms", m.get("workload.last_exit_ns") / 1e6});
  if (m.has("workload.timed_ns"))
    h.push_back({"timed_ms", "the workload's own clock (hackbench's Time: from the kick to the last task reaped)", "ms",
                 m.get("workload.timed_ns") / 1e6});
  if (m.has("workload.op_latency_p50_ns")) {
    opt("op_latency_p50_ms", (r.ops_name + " latency p50").c_str(), "ms", m.get("workload.op_latency_p50_ns") / 1e6);
    opt("op_latency_p99_ms", (r.ops_name + " latency p99").c_str(), "ms", m.get("workload.op_latency_p99_ns") / 1e6);
  }
  if (probes) {
    h.push_back({"probe_timers", "probe timers queued from an interrupt", "", static_cast<double>(probes)});
    h.push_back({"probe_timers_lost", "probe timers not fired by the end", "", lost});
    h.push_back({"probe_timer_max_lateness_ms", "probe timer max lateness", "ms", late / 1e6});
  }
  return h;
}

std::vector<std::string> summary_keys() {
  Scenario sc;
  RunResult r;
  r.measured_ns = 1;
  // the rows that appear only with their inputs: an exited task, op latencies, a probe timer, a workload's own clock
  r.metrics.gauge("workload.exited_tasks", 1);
  r.metrics.gauge("workload.op_latency_p50_ns", 1);
  r.metrics.gauge("workload.op_latency_p99_ns", 1);
  r.metrics.gauge("probe.timer0.fired_ns", 1);
  r.metrics.gauge("workload.timed_ns", 1);
  std::vector<std::string> keys;
  for (const Headline& h : headlines(sc, r)) keys.push_back(h.key);
  return keys;
}

std::string results_json(const Scenario& sc, const RunResult& r, bool timing, const std::vector<std::string>& extra) {
  json j;
  json& man = j["manifest"];
  man = manifest_json(sc, {sc.run.seed});
  man["seed"] = sc.run.seed;
  man["simulated_ns"] = sc.run.duration;
  man["measured_ns"] = r.measured_ns;
  man["simgrid_events"] = r.sg_events;
  const SgEventCounts& d = r.sg_detail;
  man["simgrid_events_detail"] = {{"waits", d.waits},       {"works", d.works}, {"executes", d.executes},
                                  {"rings", d.rings},       {"run_aheads", d.run_aheads}, {"steps", d.steps},
                                  {"handoffs", d.handoffs}, {"host_only_steps", d.host_only_steps}};
  man["status"] = r.failed ? "failed" : "ok";
  if (r.failed) man["error"] = r.error;
  man["invariants_checked"] = {{"count", r.invariants_checked.size()}, {"names", r.invariants_checked}};
  if (timing) {
    man["wall_seconds"] = r.wall_seconds;
    man["simulated_seconds_per_wall_second"] = r.wall_seconds > 0 ? static_cast<double>(sc.run.duration) * 1e-9 / r.wall_seconds : 0;
    man["events_per_wall_second"] = r.wall_seconds > 0 ? static_cast<double>(r.sg_events) / r.wall_seconds : 0;
  }
  json& cfg = j["config"];
  for (const auto& [k, v] : sc.resolved) {
    std::string leaf;
    json& parent = at_path(cfg, k, leaf);
    std::visit([&](const auto& x) { parent[leaf] = x; }, v);
  }
  json& sum = j["summary"];
  sum["ops_name"] = r.ops_name;
  for (const auto& h : headlines(sc, r)) set_number(sum, h.key, h.value);
  json& met = j["metrics"];
  for (const auto& m : r.metrics.all()) set_number(met, m.name, m.value);
  // the latency distributions themselves (core/log_histogram.hpp): what the percentiles
  // above are read from, for any other percentile a user wants
  auto hist = [](const LogHistogram& h) {
    json b = json::array();
    for (const auto& [lo, n] : h.buckets()) b.push_back({lo, n});
    return json{{"unit", "ns"}, {"count", h.count()}, {"min", h.min()}, {"max", h.max()},
                {"sub_bucket_bits", LogHistogram::kSubBits}, {"buckets", b}};
  };
  // one compact line each: thousands of buckets would be thousands of lines
  std::string text = j.dump(2);
  text.resize(text.size() - 2);  // "\n}"
  text += ",\n  \"histograms\": {\n    \"wake_latency\": " + hist(r.wake_latency).dump() + ",\n    \"op_latency\": " +
          hist(r.op_latency).dump() + "\n  }";
  for (const auto& e : extra) text += ",\n  " + e;
  return text + "\n}\n";
}

void print_run_table(std::FILE* out, const Scenario& sc, const RunResult& r) {
  std::fprintf(out, "%s\n", version_line().c_str());
  std::fprintf(out, "scenario %s: %s (%s), %d vCPU, HZ=%d, policy %s, workload %s, seed %llu\n", sc.source.c_str(),
               sc.shape.name.c_str(), sc.shape.arch.c_str(), sc.vcpus, sc.guest.hz, enum_name(sc.guest.tick_policy),
               enum_name(sc.workload.kind), static_cast<unsigned long long>(sc.run.seed));
  std::fprintf(out, "simulated %s (measured %s) in %.2f s wall: %.2f simulated s per wall s, %.0f SimGrid events/s\n\n",
               format_duration(sc.run.duration).c_str(), format_duration(r.measured_ns).c_str(), r.wall_seconds,
               r.wall_seconds > 0 ? static_cast<double>(sc.run.duration) * 1e-9 / r.wall_seconds : 0.0,
               r.wall_seconds > 0 ? static_cast<double>(r.sg_events) / r.wall_seconds : 0.0);
  for (const auto& h : headlines(sc, r)) {
    if (h.optional && h.value == 0) continue;
    if (std::isfinite(h.value)) std::fprintf(out, "  %-38s %12.2f %s\n", h.label.c_str(), h.value, h.unit.c_str());
    else std::fprintf(out, "  %-38s %12s %s\n", h.label.c_str(), "n/a", h.unit.c_str());
  }

  const Metrics& m = r.metrics;
  double secs = static_cast<double>(r.measured_ns) * 1e-9;
  struct Row { const char* label; std::string suffix; bool rate; };
  const Row rows[] = {
      {"ticks/s", "tick.ticks", true},           {"  in idle/s", "tick.ticks_idle", true},
      {"  in user space/s", "tick.ticks_user", true}, {"  while polling/s", "tick.ticks_polling", true},
      {"idle episodes/s", "idle.episodes", true}, {"HLT/WFI exits/s", "kvm.halt_exits", true},
      {"tick stops/s", "tick.stops", true},       {"timer writes/s", "clockevent.deadline_writes", true},
      {"IPI exits/s", "exits.ipi", true},         {"polls ok/s", "kvm.halt_successful_poll", true},
      {"polls tried/s", "kvm.halt_attempted_poll", true}, {"blocks/s", "host.blocks", true},
      {"halt_poll_ns (end)", "kvm.halt_poll_ns", false},
  };
  std::fprintf(out, "\n  %-22s", "per vCPU");
  for (int i = 0; i < sc.vcpus; ++i) std::fprintf(out, " %10s", ("vcpu" + std::to_string(i)).c_str());
  std::fprintf(out, "\n");
  for (const Row& row : rows) {
    std::fprintf(out, "  %-22s", row.label);
    for (int i = 0; i < sc.vcpus; ++i) {
      double v = m.get("vcpu" + std::to_string(i) + "." + row.suffix);
      if (row.rate && secs <= 0) std::fprintf(out, " %10s", "n/a");
      else std::fprintf(out, " %10.0f", row.rate ? v / secs : v);
    }
    std::fprintf(out, "\n");
  }
  if (r.failed) std::fprintf(out, "\nFAILED: %s\n", r.error.c_str());
}

}  // namespace vtick
