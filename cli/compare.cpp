// vtick compare: one scenario under several tick policies, over seeds, side by side.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "cli/commands.hpp"
#include "guest/tick_policy.hpp"
#include "sim/fork_pool.hpp"
#include "sim/results.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"
#include "sim/stats.hpp"

namespace vtick {

bool write_file_atomic(const std::string& path, const std::string& text);

using json = nlohmann::ordered_json;

int cmd_compare(const CompareOptions& o) {
  if (o.policies.empty()) {
    std::fprintf(stderr, "vtick: compare: give at least one value to compare\n");
    return 2;
  }
  if (o.key == "guest.tick_policy")
    for (const auto& p : o.policies)
      if (!find_tick_policy(p)) {
        std::string allowed;
        for (const auto& q : tick_policies()) allowed += (allowed.empty() ? "" : ", ") + q.name;
        std::fprintf(stderr, "vtick: --policies: unknown policy '%s'; allowed: %s\n", p.c_str(), allowed.c_str());
        return 2;
      }
  // Validate every variant in the parent so bad input fails before any fork.
  Scenario base;
  try {
    base = load_scenario(o.scenario, o.sets);
    for (const auto& v : o.policies) {
      std::vector<std::string> sets = o.sets;
      sets.push_back(o.key + "=" + v);
      load_scenario(o.scenario, sets);
    }
  } catch (const InputError& e) {
    std::fprintf(stderr, "vtick: %s\n", e.what());
    return 2;
  }
  const int np = static_cast<int>(o.policies.size());
  const int n = np * o.seeds;
  char tmpl[] = "/tmp/vtick-compare-XXXXXX";
  if (!mkdtemp(tmpl)) {
    std::fprintf(stderr, "vtick: cannot create a temporary directory\n");
    return 1;
  }
  std::string dir = tmpl;
  auto out_path = [&](int i) { return dir + "/run" + std::to_string(i) + ".json"; };
  auto job_sets = [&](int i) {
    std::vector<std::string> sets = o.sets;
    sets.push_back(o.key + "=" + o.policies[static_cast<size_t>(i / o.seeds)]);
    sets.push_back("run.seed=" + std::to_string(base.run.seed + static_cast<std::uint64_t>(i % o.seeds)));
    return sets;
  };
  int finished = 0;
  auto status = run_forked(
      n, o.jobs > 0 ? o.jobs : default_jobs(),
      [&](int i) {
        Scenario sc = load_scenario(o.scenario, job_sets(i));
        RunResult r = run_simulation(sc);
        if (!write_file_atomic(out_path(i), results_json(sc, r, true))) return 1;
        return r.failed ? 1 : 0;
      },
      [&](int i, int rc) {
        ++finished;
        if (!o.quiet)
          std::fprintf(stderr, "[%d/%d] %s seed %llu %s\n", finished, n, o.policies[static_cast<size_t>(i / o.seeds)].c_str(),
                       static_cast<unsigned long long>(base.run.seed + static_cast<std::uint64_t>(i % o.seeds)), rc == 0 ? "done" : "FAILED");
      });

  // Collect summaries: per policy, per headline key, the values over seeds.
  std::vector<json> runs(static_cast<size_t>(n));
  int failures = 0;
  for (int i = 0; i < n; ++i) {
    std::ifstream f(out_path(i));
    if (f) {
      runs[static_cast<size_t>(i)] = json::parse(f, nullptr, false);
      std::remove(out_path(i).c_str());
    }
    if (status[static_cast<size_t>(i)] != 0) {
      ++failures;
      std::string err = runs[static_cast<size_t>(i)].is_object() ? runs[static_cast<size_t>(i)]["manifest"].value("error", "") : "no result";
      std::fprintf(stderr, "vtick: run %s seed %d failed: %s\n", o.policies[static_cast<size_t>(i / o.seeds)].c_str(), i % o.seeds, err.c_str());
    }
  }
  rmdir(dir.c_str());
  if (failures) return 1;

  // Row labels come from the first run's own metrics (optional rows included).
  RunResult first;
  first.ops_name = runs[0]["summary"].value("ops_name", "ops");
  first.measured_ns = runs[0]["manifest"].value("measured_ns", sim_ns{0});
  for (auto& [k, v] : runs[0]["metrics"].items()) first.metrics.counter(k, v.get<double>());
  std::vector<Headline> rows = headlines(base, first);
  json out;
  out["scenario"] = base.source;
  out["seeds"] = o.seeds;
  out["first_seed"] = base.run.seed;
  out["baseline"] = o.policies[0];
  out["varied_key"] = o.key;
  std::vector<std::vector<SampleStats>> st(static_cast<size_t>(np), std::vector<SampleStats>(rows.size()));
  double wall = 0;
  for (int p = 0; p < np; ++p) {
    json pj;
    pj["value"] = o.policies[static_cast<size_t>(p)];
    for (std::size_t h = 0; h < rows.size(); ++h) {
      std::vector<double> xs;
      for (int s = 0; s < o.seeds; ++s) xs.push_back(runs[static_cast<size_t>(p * o.seeds + s)]["summary"].value(rows[h].key, 0.0));
      SampleStats ss = sample_stats(xs);
      st[static_cast<size_t>(p)][h] = ss;
      pj["summary"][rows[h].key] = {{"mean", ss.mean}, {"stddev", ss.stddev}, {"ci95", ss.ci95}, {"n", ss.n}, {"values", xs}};
      double base_mean = st[0][h].mean;
      if (p > 0) pj["delta_pct"][rows[h].key] = base_mean != 0 ? 100.0 * (ss.mean - base_mean) / base_mean : 0.0;
    }
    for (int s = 0; s < o.seeds; ++s) wall += runs[static_cast<size_t>(p * o.seeds + s)]["manifest"].value("wall_seconds", 0.0);
    out["policies"].push_back(pj);
  }
  out["config"] = runs[0]["config"];
  out["config"]["run"].erase("seed");

  std::printf("%s\n", version_line().c_str());
  std::printf("scenario %s: %s (%s), %d vCPU, HZ=%d, workload %s; %s varied; %d seed%s from %llu; CPU time %.1f s\n\n",
              base.source.c_str(), base.shape.name.c_str(), base.shape.arch.c_str(), base.vcpus, base.guest.hz,
              base.workload.kind.c_str(), o.key.c_str(), o.seeds, o.seeds > 1 ? "s" : "",
              static_cast<unsigned long long>(base.run.seed), wall);
  std::printf("  %-44s", "");
  for (int p = 0; p < np; ++p) std::printf(" %24s", o.policies[static_cast<size_t>(p)].c_str());
  std::printf("\n");
  for (std::size_t h = 0; h < rows.size(); ++h) {
    bool any = !rows[h].optional;
    for (int p = 0; p < np; ++p) any |= st[static_cast<size_t>(p)][h].mean != 0;
    if (!any) continue;
    std::printf("  %-44s", (rows[h].label + (rows[h].unit == "1/s" ? "" : " [" + rows[h].unit + "]")).c_str());
    for (int p = 0; p < np; ++p) {
      const SampleStats& ss = st[static_cast<size_t>(p)][h];
      char cell[64];
      if (o.seeds > 1) std::snprintf(cell, sizeof cell, "%.1f +-%.1f", ss.mean, ss.ci95);
      else std::snprintf(cell, sizeof cell, "%.1f", ss.mean);
      std::string c = cell;
      if (p > 0 && st[0][h].mean != 0) {
        char d[32];
        std::snprintf(d, sizeof d, " (%+.1f%%)", 100.0 * (ss.mean - st[0][h].mean) / st[0][h].mean);
        c += d;
      }
      std::printf(" %24s", c.c_str());
    }
    std::printf("\n");
  }
  if (o.seeds > 1) std::printf("\n  mean +- 95%% confidence interval over seeds; (%%) change against %s\n", o.policies[0].c_str());
  else std::printf("\n  (%%) change against %s; one seed: use --seeds N for confidence intervals\n", o.policies[0].c_str());
  if (!o.json_path.empty() && !write_file_atomic(o.json_path, out.dump(2) + "\n")) {
    std::fprintf(stderr, "vtick: cannot write %s\n", o.json_path.c_str());
    return 2;
  }
  return 0;
}

}  // namespace vtick
