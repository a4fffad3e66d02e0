#include <cstdio>
#include <memory>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/log.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "core/trace.hpp"
#include "guest/kernel.hpp"
#include "guest/tick_policy.hpp"
#include "guest/workloads.hpp"
#include "host/kvm.hpp"
#include "host/kvm_vcpu.hpp"
#include "platform/arch.hpp"
#include "platform/hw_thread.hpp"
#include "platform/vhw.hpp"
#include "platform/shapes.hpp"
#include "sim/collect.hpp"
#include "sim/docs.hpp"
#include "sim/results.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"
#include "sim/trace_dat.hpp"
#include "sim/trace_writer.hpp"

namespace vtick {

// Kept for callers that name no option (vtick timeline): the shared output rules.
bool write_file_atomic(const std::string& path, const std::string& text) { return write_output("", path, text); }

namespace {

// vtick run --events: one line per model event, its fields by name (core/trace_events.hpp).
struct TextSink : EventSink {
  std::FILE* f = nullptr;
  bool x86 = true;
  std::string line;
  static std::string text(bool v) { return v ? "1" : "0"; }
  static std::string text(int v) { return std::to_string(v); }
  static std::string text(std::uint32_t v) { return std::to_string(v); }
  static std::string text(std::int64_t v) { return std::to_string(v); }
  static std::string text(const char* v) { return v ? v : "(null)"; }
  std::map<const void*, int> objects;  // a pointer field (an identity): its order of appearance, stable run to run
  std::string text(const void* v) { return "#" + std::to_string(objects.try_emplace(v, static_cast<int>(objects.size())).first->second); }
  static std::string text(GuestCpuState v) { return guest_cpu_state_name(v); }
  static std::string text(VcpuState v) { return vcpu_state_name(v); }
  std::string text(ExitReason v) const { return exit_reason_name(v, x86); }
  static std::string text(HwActivity v) { return hw_activity_name(v); }
  static std::string text(HostCState v) { return cstate_name(v); }
  static std::string text(IrqVector v) { return irq_vector_name(v); }
  static std::string text(TickDep v) { return tick_dep_name(v); }
  void on_event(const ModelEvent& e) override {
    char head[64];
    std::snprintf(head, sizeof head, "%lld.%09lld cpu%d ", static_cast<long long>(e.t / NSEC_PER_SEC),
                  static_cast<long long>(e.t % NSEC_PER_SEC), e.cpu);
    line = head;
    line += event_name(e.id);
    for_each_field(e, [this](const char* key, const auto& v) {
      line += ' ';
      line += key;
      line += '=';
      line += text(v);
    });
    line += '\n';
    std::fputs(line.c_str(), f);
  }
};

struct TeeSink : EventSink {
  std::vector<EventSink*> sinks;
  void on_event(const ModelEvent& e) override {
    for (EventSink* s : sinks) s->on_event(e);
  }
};

constexpr std::size_t kLargeTrace = 100u << 20;

bool write_trace(const std::string& option, const std::string& path, const std::string& text) {
  if (!write_output(option, path, text)) return false;
  if (text.size() > kLargeTrace)
    spdlog::warn("{} is {} MB, more than a trace viewer handles well; use --trace-window START:END", path, text.size() >> 20);
  return true;
}

}  // namespace

int cmd_run(const RunOptions& o) {
  Scenario sc;
  try {
    sc = load_scenario(o.scenario, o.sets);
  } catch (const InputError& e) {
    spdlog::error("{}", e.what());
    return 2;
  }
  bool tracing = !o.trace_path.empty() || !o.ftrace_path.empty() || !o.trace_dat_path.empty();
  const std::string guest_dat = o.trace_dat_path.empty() ? "" : trace_dat_guest_path(o.trace_dat_path, "vm0");
  sim_ns ws = 0, we = KTIME_MAX;
  if (!o.trace_window.empty()) {
    std::string err;
    if (!tracing) {
      spdlog::error("--trace-window needs --trace FILE, --ftrace FILE or --trace-dat FILE");
      return 2;
    }
    if (!parse_trace_window(o.trace_window, ws, we, err)) {
      spdlog::error("--trace-window: {}", err);
      return 2;
    }
    if (ws >= sc.run.duration) {
      spdlog::error("--trace-window: starts at or after the end of the run (run.duration {})", format_duration(sc.run.duration));
      return 2;
    }
  }
  // The trace writers hold the whole trace until the end (four times its size in memory): a
  // bounded traced span.
  if (tracing) {
    double span = static_cast<double>(std::min(we, sc.run.duration) - ws) / 1e9 * sc.vcpus;
    if (span > kMaxTracedVcpuSeconds) {
      spdlog::error("--trace/--ftrace/--trace-dat: {} vCPUs traced over {} is {:.0f} vCPU-seconds, at most {:.0f} (about {:.0f} MB "
                    "of trace): give --trace-window START:END",
                    sc.vcpus, format_duration(std::min(we, sc.run.duration) - ws), span, kMaxTracedVcpuSeconds, kTraceMbPerVcpuSecond * kMaxTracedVcpuSeconds);
      return 2;
    }
  }
  if (o.given.count("--trace-dat") && o.trace_dat_path == "-") {
    spdlog::error("--trace-dat: writes two files (the host's and FILE-vm0.dat); give it a file name, not -");
    return 2;
  }
  // Every output checked before the run; at most one of them on stdout.
  const std::pair<const char*, const std::string*> outputs[] = {
      {"--json", &o.json_path}, {"--events", &o.events_path}, {"--trace", &o.trace_path}, {"--ftrace", &o.ftrace_path}, {"--trace-dat", &o.trace_dat_path}};
  const char* on_stdout = nullptr;
  for (const auto& [opt, path] : outputs) {
    if (!o.given.count(opt)) continue;
    if (int rc = check_output(opt, *path)) return rc;
    if (output_is_stdout(*path)) {
      if (on_stdout) {
        spdlog::error("{} and {} both write to stdout: give one of them a file", on_stdout, opt);
        return 2;
      }
      on_stdout = opt;
    }
  }
  if (o.given.count("--trace-dat"))
    if (int rc = check_output("--trace-dat", guest_dat)) return rc;
  for (const auto& c : o.sg_cfg) {
    auto colon = c.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == c.size()) {
      spdlog::error("--sg-cfg '{}': KEY:VALUE, a SimGrid option such as contexts/factory:thread", c);
      return 2;
    }
  }
  // --proc-stat: what mpstat would read, every interval, from an observer actor (it runs
  // first at a tie, reads and changes nothing)
  sim_ns ps_every = 0;
  if (o.given.count("--proc-stat-csv") && !o.given.count("--proc-stat")) {
    spdlog::error("--proc-stat-csv needs --proc-stat INTERVAL");
    return 2;
  }
  if (o.given.count("--proc-stat")) {
    if (!parse_duration(o.proc_stat, ps_every) || ps_every < 1000) {
      spdlog::error("--proc-stat '{}': a sampling interval of at least 1us, e.g. --proc-stat 10ms", o.proc_stat);
      return 2;
    }
    if (sc.run.duration / ps_every > 1000000) {
      spdlog::error("--proc-stat {}: {} samples per CPU over run.duration {}; at most 1000000 (a longer interval)", o.proc_stat,
                    sc.run.duration / ps_every, format_duration(sc.run.duration));
      return 2;
    }
    if (o.given.count("--proc-stat-csv"))
      if (int rc = check_output("--proc-stat-csv", o.proc_stat_csv)) return rc;
  }
  struct ProcStatSample {
    sim_ns t;
    int cpu;
    Kcpustat k;
    sim_ns idle_task;  // the model's truth beside what /proc/stat says
  };
  std::vector<ProcStatSample> ps;
  TextSink text;
  TraceWriter trace(ws, we);
  TeeSink tee;
  SimHooks hooks;
  std::unique_ptr<OutputFile> events;
  if (o.given.count("--events")) {
    events = std::make_unique<OutputFile>("--events", o.events_path);
    if (!events->open()) return 2;
    text.f = events->file();
    text.x86 = sc.costs.isa == Isa::X86_64;
    tee.sinks.push_back(&text);
  }
  hooks.vm_setup = [&](Kvm& vm, GuestKernel& k) {
    if (tracing) trace.describe(trace_topology(sc, vm, k));
    if (ps_every > 0)
      spawn_actor("proc_stat", vm.machine().threads.front()->host(), [&ps, &k, ps_every, end = sc.run.duration] {
        for (sim_ns t = ps_every; t < end; t += ps_every) {
          sleep_until(t);
          for (int c = 0; c < k.nr_cpus(); ++c) ps.push_back({t, c, k.cpu(c).proc_stat(t), k.cpu(c).idle_task_ns(t)});
        }
      }, true);
  };
  if (tracing) tee.sinks.push_back(&trace);
  if (!tee.sinks.empty()) hooks.sink = tee.sinks.size() == 1 ? tee.sinks.front() : &tee;
  RunProgress progress(sc.run.duration);
  if (!o.quiet && progress_enabled() && isatty(2)) hooks.progress = [&](sim_ns t) { progress.update(t); };
  hooks.sg_cfg = o.sg_cfg;
  RunResult r = run_simulation(sc, hooks);
  progress.clear();
  if (r.input_error) {
    spdlog::error("{}", r.error);
    return 2;
  }
  int status = 0;
  if (events && !events->commit()) status = 1;
  if (tracing) {
    // written for a failed run too: it shows what happened up to the failure
    trace.finish(r.failed ? -1 : sc.run.duration);
    if (!o.trace_path.empty() && !write_trace("--trace", o.trace_path, trace.json())) status = 1;
    std::vector<FtraceEvent> records;
    if (!o.ftrace_path.empty() || !o.trace_dat_path.empty()) records = trace.ftrace_events();
    if (!o.ftrace_path.empty() && !write_trace("--ftrace", o.ftrace_path, trace.ftrace(records))) status = 1;
    if (!o.trace_dat_path.empty()) {
      for (bool host : {true, false}) {
        std::string bytes = trace_dat_bytes(trace, records, host);
        std::string err = trace_dat_check(bytes, trace_dat_records(records, host));
        const std::string& path = host ? o.trace_dat_path : guest_dat;
        if (!err.empty()) {
          spdlog::error("--trace-dat: {} does not read back through libtracecmd: {}", path, err);
          return 1;
        }
        if (!write_trace("--trace-dat", path, bytes)) status = 1;
      }
    }
  }
  // /proc/stat's column order: user nice system idle iowait irq softirq steal
  static constexpr Cputime kProcStat[] = {Cputime::User, Cputime::Nice, Cputime::System, Cputime::Idle,
                                          Cputime::Iowait, Cputime::Irq, Cputime::Softirq, Cputime::Steal};
  std::vector<std::string> extra;
  if (ps_every > 0) {
    std::string rows, csv = "t_ns,cpu";
    for (Cputime c : kProcStat) csv += std::string(",") + cputime_name(c) + "_ns";
    csv += ",idle_task_ns\n";
    for (const auto& s : ps) {
      std::string row = std::to_string(s.t) + "," + std::to_string(s.cpu);
      for (Cputime c : kProcStat) row += "," + std::to_string(s.k[static_cast<std::size_t>(c)]);
      row += "," + std::to_string(s.idle_task);
      csv += row + "\n";
      rows += (rows.empty() ? "[" : ",[") + row + "]";
    }
    std::string cols = "[\"t_ns\",\"cpu\"";
    for (Cputime c : kProcStat) cols += std::string(",\"") + cputime_name(c) + "_ns\"";
    cols += ",\"idle_task_ns\"]";
    extra.push_back("\"proc_stat\": {\"scheme\": \"" + std::string(enum_name(sc.guest.cputime)) + "\", \"interval_ns\": " +
                    std::to_string(ps_every) + ", \"columns\": " + cols + ", \"samples\": [" + rows + "]}");
    if (o.given.count("--proc-stat-csv") && !write_output("--proc-stat-csv", o.proc_stat_csv, csv)) status = 1;
  }
  if (o.given.count("--json") && !write_output("--json", o.json_path, results_json(sc, r, o.timing, extra))) status = 1;
  // The table is for people: on stderr when the data goes to stdout.
  if (!o.quiet || r.failed) print_run_table(r.failed || on_stdout ? stderr : stdout, sc, r);
  if (r.failed) {
    spdlog::error("simulation failed: {}", r.error);
    return 1;
  }
  return status;
}

int cmd_validate(const std::string& scenario, const std::vector<std::string>& sets, bool estimate) {
  try {
    Scenario sc = load_scenario(scenario, sets);
    std::printf("%s: ok\n", sc.source.c_str());
    for (const auto& [k, v] : sc.resolved) {
      std::printf("  %-34s = ", k.c_str());
      std::visit([](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string>) std::printf("\"%s\"\n", x.c_str());
        else if constexpr (std::is_same_v<T, bool>) std::printf("%s\n", x ? "true" : "false");
        else if constexpr (std::is_same_v<T, double>) std::printf("%g\n", x);
        else std::printf("%lld\n", static_cast<long long>(x));
      }, v);
    }
    if (estimate || is_large_scenario(sc)) {
      std::fflush(stdout);
      return print_estimate(sc);
    }
    return 0;
  } catch (const InputError& e) {
    spdlog::error("{}", e.what());
    return 2;
  }
}

int cmd_list(const std::string& what) {
  if (what == "shapes") {
    for (const auto& f : shape_families()) {
      std::printf("%-24s %-11s %s; N in ", (f.prefix + "N").c_str(), f.arch.c_str(), f.description.c_str());
      if (f.sizes.size() > 8) std::printf("%d..%d", f.sizes.front(), f.sizes.back());
      else
        for (std::size_t i = 0; i < f.sizes.size(); ++i) std::printf("%s%d", i ? "," : "", f.sizes[i]);
      PValue hz = find_scenario_param("guest.hz")->default_for(arch_costs(f.arch).ctx());
      std::printf("; guest HZ %s\n", pvalue_text(hz).c_str());
    }
    std::printf("%-24s %-11s any arch (platform.arch), platform.cores x platform.threads_per_core\n", "generic", "");
  } else if (what == "policies") {
    for (const auto& p : tick_policies()) std::printf("%-13s %s\n", tick_policy_name(p), p.origin.c_str());
  } else if (what == "workloads") {
    for (const auto& k : workload_kinds_table()) {
      std::printf("%-17s %s (metric: %s/s)\n", enum_name(k.id), k.description.c_str(), k.ops_name.c_str());
      for (const auto& p : k.params) std::printf("    workload.%-16s %s\n", p.key.c_str(), p.help.c_str());
    }
  } else if (what == "keys") {
    for (const auto& [k, d] : scenario_keys()) std::printf("%-40s %s\n", k.c_str(), d.c_str());
  } else if (what == "metrics") {
    for (const auto& m : metric_catalog())
      std::printf("%-40s %-7s %-6s %s\n", m.name.c_str(), m.kind == StatKind::Counter ? "counter" : "gauge", m.unit.c_str(), m.help.c_str());
  } else if (what == "params") {
    std::printf("%s", parameter_tables_markdown().c_str());
  } else if (what == "costs") {
    for (const auto& a : arch_names()) {
      std::printf("[%s]\n", a.c_str());
      PCtx ctx = arch_costs(a).ctx();
      for (const auto& r : ArchCosts::table()) {
        auto [lo, hi] = r.range_for(ctx);
        std::printf("  %-22s %10s %-6s [%g .. %g]  %s\n", r.key.c_str() + 1, pvalue_text(r.default_for(ctx)).c_str(), r.unit.c_str(), lo, hi,
                    r.source_for(ctx).c_str());
      }
    }
  }
  return 0;
}

}  // namespace vtick
