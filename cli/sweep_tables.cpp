#include "cli/sweep_tables.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <spdlog/spdlog.h>
#include <sstream>

#include "cli/output.hpp"
#include "sim/stats.hpp"

namespace vtick {

using json = nlohmann::ordered_json;

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

namespace {

// An empty field is n/a (undefined: no sample, nothing to divide by), as CSV readers
// (pandas, R, gnuplot, vtick plot) take it.
std::string num(double v) {
  if (!std::isfinite(v)) return "";
  char b[32];
  std::snprintf(b, sizeof b, "%.10g", v);
  return b;
}

struct Run {
  bool present = false, ok = false;
  std::map<std::string, double> m;  // summary metrics
  double wall = 0, sim_s = 0;
  std::uint64_t seed = 0;
  std::string revision;  // the vtick git revision that wrote it
};

// Rows grouped by every column except `drop`, in order of first appearance.
std::vector<std::vector<int>> group_by(const std::vector<SweepPoint>& grid, const std::vector<std::string>& drop,
                                       std::vector<std::vector<std::pair<std::string, std::string>>>& keys) {
  std::vector<std::vector<int>> groups;
  std::map<std::vector<std::pair<std::string, std::string>>, std::size_t> at;
  for (const auto& p : grid) {
    std::vector<std::pair<std::string, std::string>> k;
    for (const auto& kv : p.values)
      if (std::find(drop.begin(), drop.end(), kv.first) == drop.end()) k.push_back(kv);
    auto it = at.find(k);
    if (it == at.end()) {
      it = at.emplace(k, groups.size()).first;
      groups.emplace_back();
      keys.push_back(k);
    }
    groups[it->second].push_back(p.index);
  }
  return groups;
}

std::string value_of(const SweepPoint& p, const std::string& key) {
  for (const auto& [k, v] : p.values)
    if (k == key) return v;
  return "";
}

}  // namespace

int write_sweep_tables(const SweepSpec& spec, const std::vector<SweepPoint>& grid, const std::string& dir,
                       const std::function<std::string(int)>& run_file, bool quiet) {
  std::vector<Run> runs(grid.size());
  std::vector<std::string> metrics;  // the first run's order, then others sorted
  std::set<std::string> extra;
  int missing = 0, failed = 0;
  for (const auto& p : grid) {
    std::ifstream f(run_file(p.index));
    const bool opened = f.is_open();
    json j = opened ? json::parse(f, nullptr, false) : json();
    Run& r = runs[static_cast<size_t>(p.index)];
    if (!j.is_object() || !j.contains("summary") || !j["summary"].is_object() || !j.contains("manifest") ||
        !j["manifest"].is_object()) {
      if (opened) spdlog::warn("{} is not a vtick results document: counted as missing", run_file(p.index));
      ++missing;
      continue;
    }
    r.present = true;
    r.ok = j["manifest"].value("status", "") == "ok";
    failed += !r.ok;
    r.wall = j["manifest"].value("wall_seconds", 0.0);
    r.seed = j["manifest"].value("seed", std::uint64_t{0});
    r.revision = j["manifest"].value("git_revision", std::string("unknown"));
    r.sim_s = j["manifest"].value("simulated_ns", 0.0) * 1e-9;
    for (auto& [k, v] : j["summary"].items()) {
      if (!v.is_number() && !v.is_null()) continue;  // null: undefined in this run, the column stays
      if (v.is_number()) r.m[k] = v.get<double>();
      extra.insert(k);
    }
  }
  // Column order: the summary keys of the first present run as written, then the rest sorted.
  for (const auto& p : grid) {
    if (!runs[static_cast<size_t>(p.index)].present) continue;
    std::ifstream f(run_file(p.index));
    json j = json::parse(f, nullptr, false);
    for (auto& [k, v] : j["summary"].items())
      if (v.is_number() || v.is_null()) metrics.push_back(k);
    break;
  }
  for (const auto& k : extra)
    if (std::find(metrics.begin(), metrics.end(), k) == metrics.end()) metrics.push_back(k);

  const std::vector<std::string> cols = sweep_columns(spec);
  const bool seed_col = std::find(cols.begin(), cols.end(), "run.seed") == cols.end();  // seed not swept
  std::ostringstream rc, tc;
  rc << "index";
  for (const auto& c : cols) rc << "," << csv_field(c);
  if (seed_col) rc << ",run.seed";
  rc << ",status,version";
  for (const auto& m : metrics) rc << "," << m;
  rc << "\n";
  tc << "index,wall_s,simulated_s,simulated_s_per_wall_s\n";
  for (const auto& p : grid) {
    const Run& r = runs[static_cast<size_t>(p.index)];
    if (!r.present) continue;
    rc << p.index;
    for (const auto& kv : p.values) rc << "," << csv_field(kv.second);
    if (seed_col) rc << "," << r.seed;
    rc << "," << (r.ok ? "ok" : "failed") << "," << csv_field(r.revision);
    for (const auto& m : metrics) rc << "," << (r.m.count(m) ? num(r.m.at(m)) : "");
    rc << "\n";
    tc << p.index << "," << num(r.wall) << "," << num(r.sim_s) << "," << (r.wall > 0 ? num(r.sim_s / r.wall) : "") << "\n";
  }

  // summary.csv: per grid point (every column but run.seed) over its ok runs.
  std::vector<std::vector<std::pair<std::string, std::string>>> gkeys;
  auto groups = group_by(grid, {"run.seed"}, gkeys);
  std::ostringstream sc;
  for (const auto& kv : gkeys.front()) sc << csv_field(kv.first) << ",";
  sc << "n";
  for (const auto& m : metrics) sc << "," << m << "_mean," << m << "_sd," << m << "_ci95";
  sc << "\n";
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const auto& kv : gkeys[g]) sc << csv_field(kv.second) << ",";
    std::vector<int> ok;
    for (int i : groups[g])
      if (runs[static_cast<size_t>(i)].ok) ok.push_back(i);
    sc << ok.size();
    for (const auto& m : metrics) {
      std::vector<double> xs;
      for (int i : ok)
        if (runs[static_cast<size_t>(i)].m.count(m)) xs.push_back(runs[static_cast<size_t>(i)].m.at(m));
      if (xs.empty()) {
        sc << ",,,";
        continue;
      }
      SampleStats s = sample_stats(xs);
      sc << "," << num(s.mean) << "," << num(s.stddev) << "," << num(s.ci95);
    }
    sc << "\n";
  }

  // delta.csv: with guest.tick_policy swept, each policy against the axis's first value,
  // paired by run.seed (the same seed under both policies).
  std::string dc;
  const SweepAxis* pol = nullptr;
  for (const auto& a : spec.axes)
    if (a.keys.size() == 1 && a.keys[0] == "guest.tick_policy" && a.values.size() > 1) pol = &a;
  if (pol) {
    const std::string base = pol->values[0][0];
    std::vector<std::vector<std::pair<std::string, std::string>>> dkeys;
    auto dgroups = group_by(grid, {"run.seed", "guest.tick_policy"}, dkeys);
    std::ostringstream d;
    for (const auto& kv : dkeys.front()) d << csv_field(kv.first) << ",";
    d << "guest.tick_policy,baseline,n";
    for (const auto& m : metrics)
      d << "," << m << "_delta_pct_mean," << m << "_delta_pct_ci95," << m << "_delta_mean," << m << "_delta_ci95";
    d << "\n";
    for (std::size_t g = 0; g < dgroups.size(); ++g) {
      std::map<std::string, std::map<std::string, int>> by;  // policy -> seed -> index
      for (int i : dgroups[g]) {
        const SweepPoint& p = grid[static_cast<size_t>(i)];
        if (runs[static_cast<size_t>(i)].ok) by[value_of(p, "guest.tick_policy")][value_of(p, "run.seed")] = i;
      }
      for (std::size_t v = 1; v < pol->values.size(); ++v) {
        const std::string& policy = pol->values[v][0];
        if (by[policy].empty()) continue;  // excluded or failed at this point
        for (const auto& kv : dkeys[g]) d << csv_field(kv.second) << ",";
        std::vector<std::pair<int, int>> pairs;
        for (const auto& [seed, i] : by[policy])
          if (by[base].count(seed)) pairs.emplace_back(by[base][seed], i);
        d << policy << "," << base << "," << pairs.size();
        for (const auto& m : metrics) {
          // Paired by seed: the relative change (empty where the means' baseline is near
          // zero, relative_change_meaningful()) and the absolute difference in the metric's unit.
          std::vector<double> ds, abs, as, bs;
          for (auto [a, b] : pairs) {
            const Run &ra = runs[static_cast<size_t>(a)], &rb = runs[static_cast<size_t>(b)];
            if (!ra.m.count(m) || !rb.m.count(m)) continue;
            double x = ra.m.at(m), y = rb.m.at(m);
            as.push_back(x);
            bs.push_back(y);
            abs.push_back(y - x);
            if (x != 0) ds.push_back(100.0 * (y - x) / x);
          }
          SampleStats s = sample_stats(ds), a = sample_stats(abs);
          bool pct = relative_change_meaningful(sample_stats(as).mean, sample_stats(bs).mean) && s.n > 0;
          d << "," << (pct ? num(s.mean) : "") << "," << (pct ? num(s.ci95) : "") << "," << num(a.mean) << "," << num(a.ci95);
        }
        d << "\n";
      }
    }
    dc = d.str();
  }

  bool ok = write_output("--out", dir + "/runs.csv", rc.str()) && write_output("--out", dir + "/summary.csv", sc.str()) &&
            write_output("--out", dir + "/timing.csv", tc.str()) && (dc.empty() || write_output("--out", dir + "/delta.csv", dc));
  if (!ok) return 1;
  if (!quiet)
    spdlog::info("sweep: {} of {} runs in {}/runs.csv, summary.csv{}, timing.csv{}{}", grid.size() - missing, grid.size(), dir,
                 dc.empty() ? "" : ", delta.csv", missing ? " (" + std::to_string(missing) + " not run yet: --resume)" : "",
                 failed ? " (" + std::to_string(failed) + " failed)" : "");
  return missing || failed ? 1 : 0;
}

}  // namespace vtick
