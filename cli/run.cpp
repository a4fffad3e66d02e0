#include <cstdio>
#include <fstream>
#include <map>
#include <unistd.h>

#include "cli/commands.hpp"
#include "core/trace.hpp"
#include "guest/kernel.hpp"
#include "guest/tick_policy.hpp"
#include "guest/workloads.hpp"
#include "host/kvm_vcpu.hpp"
#include "platform/arch.hpp"
#include "platform/hw_thread.hpp"
#include "platform/vhw.hpp"
#include "platform/shapes.hpp"
#include "sim/docs.hpp"
#include "sim/results.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"
#include "sim/trace_dat.hpp"
#include "sim/trace_writer.hpp"

namespace vtick {

// Temp file + rename; the temp name is the writer's own (host and pid), so processes
// writing the same file at once (Slurm array tasks on several nodes writing sweep.json to
// a shared directory) never mix their bytes.
bool write_file_atomic(const std::string& path, const std::string& text) {
  char host[256] = "host";
  gethostname(host, sizeof host - 1);
  std::string tmp = path + ".tmp." + host + "." + std::to_string(getpid());
  bool ok;
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) return false;
    f << text;
    ok = static_cast<bool>(f);
  }
  if (ok && std::rename(tmp.c_str(), path.c_str()) == 0) return true;
  std::remove(tmp.c_str());
  return false;
}

namespace {

// Fails early, before a long run, when `path` cannot be written.
bool writable(const std::string& path) {
  std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) return false;
  std::fclose(f);
  std::remove(tmp.c_str());
  return true;
}

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

bool write_trace(const std::string& path, const std::string& text) {
  if (!write_file_atomic(path, text)) {
    std::fprintf(stderr, "vtick: cannot write %s\n", path.c_str());
    return false;
  }
  if (text.size() > kLargeTrace)
    std::fprintf(stderr, "vtick: warning: %s is %zu MB, more than a trace viewer handles well; use --trace-window START:END\n",
                 path.c_str(), text.size() >> 20);
  return true;
}

}  // namespace

int cmd_run(const RunOptions& o) {
  Scenario sc;
  try {
    sc = load_scenario(o.scenario, o.sets);
  } catch (const InputError& e) {
    std::fprintf(stderr, "vtick: %s\n", e.what());
    return 2;
  }
  bool tracing = !o.trace_path.empty() || !o.ftrace_path.empty() || !o.trace_dat_path.empty();
  const std::string guest_dat = o.trace_dat_path.empty() ? "" : trace_dat_guest_path(o.trace_dat_path, "vm0");
  sim_ns ws = 0, we = KTIME_MAX;
  if (!o.trace_window.empty()) {
    std::string err;
    if (!tracing) {
      std::fprintf(stderr, "vtick: --trace-window needs --trace FILE, --ftrace FILE or --trace-dat FILE\n");
      return 2;
    }
    if (!parse_trace_window(o.trace_window, ws, we, err)) {
      std::fprintf(stderr, "vtick: --trace-window: %s\n", err.c_str());
      return 2;
    }
    if (ws >= sc.run.duration) {
      std::fprintf(stderr, "vtick: --trace-window: starts at or after the end of the run (run.duration %s)\n",
                   format_duration(sc.run.duration).c_str());
      return 2;
    }
  }
  for (const std::string* p : {&o.trace_path, &o.ftrace_path, &o.trace_dat_path, &guest_dat})
    if (!p->empty() && !writable(*p)) {
      std::fprintf(stderr, "vtick: cannot write %s\n", p->c_str());
      return 2;
    }
  TextSink text;
  TraceWriter trace(ws, we);
  TeeSink tee;
  SimHooks hooks;
  if (!o.events_path.empty()) {
    text.f = std::fopen(o.events_path.c_str(), "w");
    text.x86 = sc.costs.isa == Isa::X86_64;
    if (!text.f) {
      std::fprintf(stderr, "vtick: cannot write %s\n", o.events_path.c_str());
      return 2;
    }
    tee.sinks.push_back(&text);
  }
  if (tracing) {
    tee.sinks.push_back(&trace);
    hooks.vm_setup = [&](Kvm& vm, GuestKernel& k) { trace.describe(trace_topology(sc, vm, k)); };
  }
  if (!tee.sinks.empty()) hooks.sink = tee.sinks.size() == 1 ? tee.sinks.front() : &tee;
  RunResult r = run_simulation(sc, hooks);
  if (text.f) std::fclose(text.f);
  int status = 0;
  if (tracing) {
    // written for a failed run too: it shows what happened up to the failure
    trace.finish(r.failed ? -1 : sc.run.duration);
    if (!o.trace_path.empty() && !write_trace(o.trace_path, trace.json())) status = 2;
    std::vector<FtraceEvent> records;
    if (!o.ftrace_path.empty() || !o.trace_dat_path.empty()) records = trace.ftrace_events();
    if (!o.ftrace_path.empty() && !write_trace(o.ftrace_path, trace.ftrace(records))) status = 2;
    if (!o.trace_dat_path.empty()) {
      for (bool host : {true, false}) {
        std::string bytes = trace_dat_bytes(trace, records, host);
        std::string err = trace_dat_check(bytes, trace_dat_records(records, host));
        const std::string& path = host ? o.trace_dat_path : guest_dat;
        if (!err.empty()) {
          std::fprintf(stderr, "vtick: internal error: %s: %s\n", path.c_str(), err.c_str());
          return 1;
        }
        if (!write_trace(path, bytes)) status = 2;
      }
    }
  }
  if (!o.json_path.empty() && !write_file_atomic(o.json_path, results_json(sc, r, o.timing))) {
    std::fprintf(stderr, "vtick: cannot write %s\n", o.json_path.c_str());
    return 2;
  }
  if (!o.quiet || r.failed) print_run_table(r.failed ? stderr : stdout, sc, r);
  if (r.failed) {
    std::fprintf(stderr, "vtick: simulation failed: %s\n", r.error.c_str());
    return 1;
  }
  return status;
}

int cmd_validate(const std::string& scenario, const std::vector<std::string>& sets) {
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
    return 0;
  } catch (const InputError& e) {
    std::fprintf(stderr, "vtick: %s\n", e.what());
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
      std::printf("; guest HZ %d\n", f.default_hz);
    }
    std::printf("%-24s %-11s any arch (platform.arch), platform.cores x platform.threads_per_core\n", "generic", "");
  } else if (what == "policies") {
    for (const auto& p : tick_policies()) std::printf("%-13s %s\n", p.name.c_str(), p.origin.c_str());
  } else if (what == "workloads") {
    for (const auto& k : workload_kinds_table()) {
      std::printf("%-17s %s (metric: %s/s)\n", k.name.c_str(), k.description.c_str(), k.ops_name.c_str());
      for (const auto& p : k.params) std::printf("    workload.%-16s %s\n", p.key.c_str(), p.help.c_str());
    }
  } else if (what == "keys") {
    for (const auto& [k, d] : scenario_keys()) std::printf("%-40s %s\n", k.c_str(), d.c_str());
  } else if (what == "params") {
    std::printf("%s", parameter_tables_markdown().c_str());
  } else if (what == "costs") {
    for (const auto& a : arch_names()) {
      std::printf("[%s]\n", a.c_str());
      for (const auto& r : arch_table(a).rows)
        std::printf("  %-22s %10g %-6s [%g .. %g]  %s\n", r.key.c_str(), r.value, r.unit.c_str(), r.lo, r.hi, r.source.c_str());
    }
  }
  return 0;
}

}  // namespace vtick
