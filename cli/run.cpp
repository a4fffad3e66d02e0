#include <cstdio>
#include <fstream>

#include "cli/commands.hpp"
#include "core/trace.hpp"
#include "guest/tick_policy.hpp"
#include "guest/workloads.hpp"
#include "platform/arch.hpp"
#include "platform/shapes.hpp"
#include "sim/docs.hpp"
#include "sim/results.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"

namespace vtick {

bool write_file_atomic(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) return false;
    f << text;
    if (!f) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

int cmd_run(const RunOptions& o) {
  Scenario sc;
  try {
    sc = load_scenario(o.scenario, o.sets);
  } catch (const InputError& e) {
    std::fprintf(stderr, "vtick: %s\n", e.what());
    return 2;
  }
  struct TextSink : EventSink {
    std::FILE* f;
    void on_event(const ModelEvent& e) override {
      std::fprintf(f, "%lld.%09lld cpu%d %s %lld %lld\n", static_cast<long long>(e.t / NSEC_PER_SEC),
                   static_cast<long long>(e.t % NSEC_PER_SEC), e.cpu, e.what, static_cast<long long>(e.a),
                   static_cast<long long>(e.b));
    }
  } sink;
  SimHooks hooks;
  if (!o.events_path.empty()) {
    sink.f = std::fopen(o.events_path.c_str(), "w");
    if (!sink.f) {
      std::fprintf(stderr, "vtick: cannot write %s\n", o.events_path.c_str());
      return 2;
    }
    hooks.sink = &sink;
  }
  RunResult r = run_simulation(sc, hooks);
  if (hooks.sink) std::fclose(sink.f);
  if (!o.json_path.empty() && !write_file_atomic(o.json_path, results_json(sc, r, o.timing))) {
    std::fprintf(stderr, "vtick: cannot write %s\n", o.json_path.c_str());
    return 2;
  }
  if (!o.quiet || r.failed) print_run_table(r.failed ? stderr : stdout, sc, r);
  if (r.failed) {
    std::fprintf(stderr, "vtick: simulation failed: %s\n", r.error.c_str());
    return 1;
  }
  return 0;
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
