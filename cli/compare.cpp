// vtick compare: one scenario under several tick policies (or values of any key), over
// seeds, side by side; with --ablate, again with each mechanism switched off in turn.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/run_json.hpp"
#include "guest/tick_policy.hpp"
#include "sim/fork_pool.hpp"
#include "sim/manifest.hpp"
#include "sim/results.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"
#include "sim/stats.hpp"

namespace vtick {

using json = nlohmann::ordered_json;

namespace {

struct Group {
  std::string label;              // "" for the plain comparison, else the mechanism
  std::vector<std::string> sets;
};

// The ablations of docs/validation.md: each switches one mechanism off.
const std::vector<std::pair<std::string, std::string>>& ablations() {
  static const std::vector<std::pair<std::string, std::string>> a = {
      {"tick_wakeup_cost", "halting and waking a vCPU costs the host nothing"},
      {"halt_polling", "no host halt polling"},
      {"smt", "SMT siblings do not slow each other"},
      {"cstate_latency", "host C-states exit instantly"},
      {"load_balancing", "no guest load balancing"},
      {"timer_write_exits", "guest timer writes do not exit"},
      {"mitigations", "no VM-entry mitigations"},
  };
  return a;
}

constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

// n/a for what is undefined: no sample, nothing to divide by.
std::string cell(const SampleStats& s, int seeds) {
  char b[64];
  if (s.n == 0 || !std::isfinite(s.mean)) return "n/a";
  if (seeds > 1 && std::isfinite(s.ci95)) std::snprintf(b, sizeof b, "%.1f +-%.1f", s.mean, s.ci95);
  else if (seeds > 1) std::snprintf(b, sizeof b, "%.1f +-n/a", s.mean);
  else std::snprintf(b, sizeof b, "%.1f", s.mean);
  return b;
}


// The change from base to v: in % where that means something (relative_change_meaningful),
// else the absolute difference in the metric's unit ("+545.0/s abs").
std::string change_text(double base, double v, const std::string& unit) {
  char b[48];
  if (!std::isfinite(base) || !std::isfinite(v)) return " (n/a)";
  if (relative_change_meaningful(base, v)) {
    std::snprintf(b, sizeof b, " (%+.1f%%)", 100.0 * (v - base) / base);
    return b;
  }
  if (v == base) return "";  // both zero: nothing changed, nothing to say
  std::string u = unit == "1/s" ? "/s" : unit.rfind('%', 0) == 0 ? " pts" : unit.empty() ? "" : " " + unit;
  std::snprintf(b, sizeof b, " (%+.1f%s abs)", v - base, u.c_str());
  return b;
}

}  // namespace

int cmd_compare(const CompareOptions& o) {
  if (o.policies.empty()) {
    spdlog::error("compare: give at least one value to compare");
    return 2;
  }
  if (o.key == "guest.tick_policy")
    for (const auto& p : o.policies)
      if (TickPolicyId id; !parse_enum(p, id)) {
        std::string allowed;
        for (const auto& q : tick_policies()) allowed += std::string(allowed.empty() ? "" : ", ") + tick_policy_name(q);
        spdlog::error("--policies: unknown policy '{}'; allowed: {}", p, allowed);
        return 2;
      }
  if (o.ablate && o.policies.size() < 2) {
    spdlog::error("compare --ablate needs two values to compare (e.g. --policies legacy,got_tick)");
    return 2;
  }
  if (o.json_given)
    if (int rc = check_output("--json", o.json_path)) return rc;
  std::vector<Group> groups = {{"", {}}};
  if (o.ablate)
    for (const auto& [key, what] : ablations()) groups.push_back({key, {"ablate." + key + "=true"}});
  // Validate every variant in the parent so bad input fails before any fork.
  Scenario base;
  try {
    base = load_scenario(o.scenario, o.sets);
    for (const auto& g : groups)
      for (const auto& v : o.policies) {
        std::vector<std::string> sets = o.sets;
        sets.insert(sets.end(), g.sets.begin(), g.sets.end());
        sets.push_back(o.key + "=" + v);
        load_scenario(o.scenario, sets);
      }
  } catch (const InputError& e) {
    spdlog::error("{}", e.what());
    return 2;
  }
  const int np = static_cast<int>(o.policies.size());
  const int per_group = np * o.seeds;
  const int n = per_group * static_cast<int>(groups.size());
  char tmpl[] = "/tmp/vtick-compare-XXXXXX";
  if (!mkdtemp(tmpl)) {
    spdlog::error("cannot create a temporary directory in /tmp");
    return 1;
  }
  std::string dir = tmpl;
  auto out_path = [&](int i) { return dir + "/run" + std::to_string(i) + ".json"; };
  auto group_of = [&](int i) { return i / per_group; };
  auto policy_of = [&](int i) { return (i % per_group) / o.seeds; };
  auto seed_of = [&](int i) { return base.run.seed + static_cast<std::uint64_t>(i % o.seeds); };
  auto job_sets = [&](int i) {
    std::vector<std::string> sets = o.sets;
    const Group& g = groups[static_cast<size_t>(group_of(i))];
    sets.insert(sets.end(), g.sets.begin(), g.sets.end());
    sets.push_back(o.key + "=" + o.policies[static_cast<size_t>(policy_of(i))]);
    sets.push_back("run.seed=" + std::to_string(seed_of(i)));
    return sets;
  };
  Progress bar(n, o.quiet);
  auto status = run_forked(
      n, o.jobs > 0 ? o.jobs : default_jobs(),
      [&](int i) {
        Scenario sc = load_scenario(o.scenario, job_sets(i));
        RunResult r = run_simulation(sc);
        if (!write_output("", out_path(i), results_json(sc, r, true))) return 1;
        return r.failed ? 1 : 0;
      },
      [&](int i, int rc) {
        const Group& g = groups[static_cast<size_t>(group_of(i))];
        bar.step(o.policies[static_cast<size_t>(policy_of(i))] + (g.label.empty() ? "" : " without " + g.label) + " seed " +
                     std::to_string(seed_of(i)),
                 rc == 0);
      });

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
      spdlog::error("run {} seed {} failed: {}", o.policies[static_cast<size_t>(policy_of(i))], seed_of(i), err);
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
  auto stats_of = [&](int g, int p, const std::string& key) {
    std::vector<double> xs;
    for (int s = 0; s < o.seeds; ++s) xs.push_back(summary_value(runs[static_cast<size_t>(g * per_group + p * o.seeds + s)], key));
    return std::make_pair(sample_stats(xs), xs);
  };
  auto delta_pct = [](double a, double b) { return a != 0 && std::isfinite(a) && std::isfinite(b) ? 100.0 * (b - a) / a : kUndefined; };
  // Change of the workload metric of value p against the first value in group g, paired
  // by seed (the same seed under both): its spread is the spread of the difference itself.
  auto paired_deltas = [&](int g, int p) {
    std::vector<double> ds;
    for (int s = 0; s < o.seeds; ++s) {
      double a = summary_value(runs[static_cast<size_t>(g * per_group + s)], "ops_per_s");
      double b = summary_value(runs[static_cast<size_t>(g * per_group + p * o.seeds + s)], "ops_per_s");
      ds.push_back(delta_pct(a, b));
    }
    return ds;
  };

  json out;
  {
    std::vector<std::uint64_t> seeds;
    for (int s = 0; s < o.seeds; ++s) seeds.push_back(base.run.seed + static_cast<std::uint64_t>(s));
    out["manifest"] = manifest_json(base, seeds);  // the scenario before the varied key is applied
    out["manifest"]["varied_key"] = o.key;
    out["manifest"]["values"] = o.policies;
  }
  out["scenario"] = base.source;
  out["seeds"] = o.seeds;
  out["first_seed"] = base.run.seed;
  out["varied_key"] = o.key;
  out["baseline"] = o.policies[0];
  std::vector<std::vector<SampleStats>> st(static_cast<size_t>(np), std::vector<SampleStats>(rows.size()));
  double wall = 0;
  for (const auto& r : runs) wall += r["manifest"].value("wall_seconds", 0.0);
  for (int p = 0; p < np; ++p) {
    json pj;
    pj["value"] = o.policies[static_cast<size_t>(p)];
    for (std::size_t h = 0; h < rows.size(); ++h) {
      auto [ss, xs] = stats_of(0, p, rows[h].key);
      st[static_cast<size_t>(p)][h] = ss;
      pj["summary"][rows[h].key] = {{"mean", ss.mean}, {"stddev", ss.stddev}, {"ci95", ss.ci95}, {"n", ss.n}, {"values", xs}};
      if (p > 0) {
        double b = st[0][h].mean;
        pj["delta_pct"][rows[h].key] = relative_change_meaningful(b, ss.mean) ? json(delta_pct(b, ss.mean)) : json(nullptr);
        pj["delta"][rows[h].key] = std::isfinite(b) && std::isfinite(ss.mean) ? json(ss.mean - b) : json(nullptr);
      }
    }
    if (p > 0) {
      SampleStats d = sample_stats(paired_deltas(0, p));
      pj["ops_delta_pct_paired"] = {{"mean", d.mean}, {"ci95", d.ci95}, {"n", d.n}};
    }
    out["policies"].push_back(pj);
  }
  out["config"] = runs[0]["config"];
  out["config"]["run"].erase("seed");

  // The table is for people: on stderr when the JSON goes to stdout.
  std::FILE* table = o.json_given && output_is_stdout(o.json_path) ? stderr : stdout;
  std::fprintf(table, "%s\n", version_line().c_str());
  std::fprintf(table, "scenario %s: %s (%s), %d vCPU, HZ=%d, workload %s; %s varied; %d seed%s from %llu; wall time of the runs, summed: %.1f s\n\n",
               base.source.c_str(), base.shape.name.c_str(), base.shape.arch.c_str(), base.vcpus, base.guest.hz,
               enum_name(base.workload.kind), o.key.c_str(), o.seeds, o.seeds > 1 ? "s" : "",
               static_cast<unsigned long long>(base.run.seed), wall);
  // the cells first, then the widths: a long label or an "(abs)" cell widens its column
  // instead of running into the next
  std::vector<std::vector<std::string>> lines;  // label, then one cell per policy
  lines.push_back({""});
  for (int p = 0; p < np; ++p) lines.back().push_back(o.policies[static_cast<size_t>(p)]);
  for (std::size_t h = 0; h < rows.size(); ++h) {
    bool any = !rows[h].optional;
    for (int p = 0; p < np; ++p) any |= st[static_cast<size_t>(p)][h].mean != 0;
    if (!any) continue;
    lines.push_back({rows[h].label + (rows[h].unit == "1/s" || rows[h].unit.empty() ? "" : " [" + rows[h].unit + "]")});
    for (int p = 0; p < np; ++p) {
      const SampleStats& ss = st[static_cast<size_t>(p)][h];
      std::string c = cell(ss, o.seeds);
      if (p > 0) c += change_text(st[0][h].mean, ss.mean, rows[h].unit);
      lines.back().push_back(c);
    }
  }
  if (np > 1) {
    lines.push_back({"change of " + first.ops_name + "/s, paired by seed [%]", ""});
    for (int p = 1; p < np; ++p) lines.back().push_back(cell(sample_stats(paired_deltas(0, p)), o.seeds));
  }
  std::vector<std::size_t> width(static_cast<std::size_t>(np) + 1, 24);
  width[0] = 44;
  for (const auto& l : lines)
    for (std::size_t c = 0; c < l.size(); ++c) width[c] = std::max(width[c], l[c].size());
  for (const auto& l : lines) {
    std::fprintf(table, "  %-*s", static_cast<int>(width[0]), l[0].c_str());
    for (std::size_t c = 1; c < l.size(); ++c) std::fprintf(table, "  %*s", static_cast<int>(width[c]), l[c].c_str());
    std::fprintf(table, "\n");
  }
  if (o.seeds > 1) std::fprintf(table, "\n  mean +- 95%% confidence interval over seeds; (%%) change against %s\n", o.policies[0].c_str());
  else std::fprintf(table, "\n  (%%) change against %s; one seed: use --seeds N for confidence intervals\n", o.policies[0].c_str());
  std::fprintf(table, "  (abs): the difference instead, where the baseline is zero or more than 10x smaller than the value; n/a: undefined\n");

  if (o.ablate) {
    // Delta of the workload metric between the first two values, per ablation: what the
    // difference becomes when one mechanism is switched off, and the share it carried.
    auto group_deltas = [&](int g) { return paired_deltas(g, 1); };
    std::vector<double> base = group_deltas(0);
    SampleStats d0 = sample_stats(base);
    // "carried" is the share of a difference that exists: only when the baseline delta
    // is outside its own confidence interval.
    bool significant = o.seeds > 1 && std::abs(d0.mean) > d0.ci95;
    std::fprintf(table, "\n  ablation: %s change of %s/s (%s vs %s) with one mechanism switched off\n", "%", first.ops_name.c_str(),
                 o.policies[1].c_str(), o.policies[0].c_str());
    std::fprintf(table, "  %-20s %-44s %18s %18s %8s\n", "switched off", "", "change", "shift [points]", "carried");
    std::fprintf(table, "  %-20s %-44s %18s %18s %8s\n", "(nothing)", "the model as configured", cell(d0, o.seeds).c_str(), "", "");
    for (std::size_t g = 1; g < groups.size(); ++g) {
      std::vector<double> ds = group_deltas(static_cast<int>(g));
      SampleStats d = sample_stats(ds);
      std::vector<double> shift;  // paired by seed: the same seed with and without the mechanism
      for (std::size_t s = 0; s < ds.size(); ++s) shift.push_back(ds[s] - base[s]);
      SampleStats sh = sample_stats(shift);
      char carried[32] = "-";
      double carried_pct = significant ? 100.0 * (d0.mean - d.mean) / d0.mean : 0.0;
      if (significant) std::snprintf(carried, sizeof carried, "%.0f%%", carried_pct);
      std::fprintf(table, "  %-20s %-44s %18s %18s %8s\n", groups[g].label.c_str(), ablations()[g - 1].second.c_str(),
                   cell(d, o.seeds).c_str(), cell(sh, o.seeds).c_str(), carried);
      json row = {{"mechanism", groups[g].label},
                            {"delta_pct", {{"mean", d.mean}, {"ci95", d.ci95}, {"n", d.n}}},
                            {"shift_points", {{"mean", sh.mean}, {"ci95", sh.ci95}, {"n", sh.n}}}};
      row["carried_pct"] = significant ? json(carried_pct) : json(nullptr);
      out["ablation"].push_back(std::move(row));
    }
    if (!significant)
      std::fprintf(table, "  carried: -, the difference itself is not significant (|mean| <= its 95%% interval)\n");
    out["ablation_baseline_delta_pct"] = {{"mean", d0.mean}, {"ci95", d0.ci95}, {"n", d0.n}};
  }
  if (o.json_given && !write_output("--json", o.json_path, out.dump(2) + "\n")) return 1;
  return 0;
}

// A summary value; null (undefined in that run) is NaN.
double summary_value(const json& run, const std::string& key) {
  if (!run.is_object() || !run.contains("summary")) return kUndefined;
  const json& s = run["summary"];
  return s.contains(key) && s[key].is_number() ? s[key].get<double>() : kUndefined;
}

}  // namespace vtick
