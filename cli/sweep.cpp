// vtick sweep: the grid of a sweep file, run in forked processes, one result file per
// run (written atomically), then runs.csv / summary.csv / delta.csv built from the files,
// so a sweep killed and resumed gives the same CSVs as one that never stopped.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/sweep_tables.hpp"
#include "sim/fork_pool.hpp"
#include "sim/manifest.hpp"
#include "sim/results.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"
#include "sim/sweep.hpp"

namespace vtick {

using json = nlohmann::ordered_json;

namespace {

std::string run_file(const std::string& dir, int index) {
  char b[32];
  std::snprintf(b, sizeof b, "/runs/%06d.json", index);
  return dir + b;
}

// The grid as stored in DIR/sweep.json: a resumed sweep must be the same grid.
json grid_json(const SweepSpec& s, const std::vector<SweepPoint>& grid) {
  json j;
  j["scenario"] = s.scenario;
  j["set"] = s.sets;
  j["columns"] = sweep_columns(s);
  json pts = json::array();
  for (const auto& p : grid) {
    json row = json::array();
    for (const auto& kv : p.values) row.push_back(kv.second);
    pts.push_back(row);
  }
  j["points"] = pts;
  return j;
}

bool sweep_result_complete(const std::string& path) {
  std::ifstream f(path);
  if (!f) return false;
  json j = json::parse(f, nullptr, false);
  return j.is_object() && j.contains("manifest") && j["manifest"].contains("status") && j.contains("summary");
}

bool sweep_result_ok(const std::string& path) {
  std::ifstream f(path);
  json j = f ? json::parse(f, nullptr, false) : json();
  return j.is_object() && j.contains("manifest") && j["manifest"].value("status", "") == "ok";
}

// Why a run file kept from earlier does not belong to this grid point run by this vtick
// ("" when it does): another git revision, another scenario (hash), another seed.
std::string foreign_reason(const std::string& path, const Scenario& point) {
  std::ifstream f(path);
  json j = f ? json::parse(f, nullptr, false) : json();
  if (!j.is_object() || !j.contains("manifest") || !j["manifest"].is_object()) return "";  // not a result: counted as missing
  const json& m = j["manifest"];
  auto text = [&](const char* k) { return m.contains(k) && m[k].is_string() ? m[k].get<std::string>() : std::string("none"); };
  if (text("git_revision") != vtick_git_revision())
    return "was written by vtick revision " + text("git_revision") + ", this is " + vtick_git_revision();
  if (text("scenario_hash") != scenario_hash(point))
    return "was written for another scenario (scenario_hash " + text("scenario_hash") + ", this grid point has " +
           scenario_hash(point) + ")";
  if (!m.contains("seed") || !m["seed"].is_number_unsigned() || m["seed"].get<std::uint64_t>() != point.run.seed)
    return "was written for another seed than this grid point's (" + std::to_string(point.run.seed) + ")";
  return "";
}

}  // namespace

int cmd_sweep(const SweepOptions& o) {
  SweepSpec spec;
  std::vector<SweepPoint> grid;
  Scenario base;
  try {
    spec = load_sweep(o.file);
    grid = sweep_grid(spec);
    base = load_scenario(spec.scenario, spec.sets);
  } catch (const InputError& e) {
    spdlog::error("{}", e.what());
    return 2;
  }
  if (grid.empty()) {
    spdlog::error("{}: every grid point is excluded", o.file);
    return 2;
  }
  if (o.list) {
    for (const auto& p : grid) {
      std::printf("%d", p.index);
      for (const auto& [k, v] : p.values) std::printf(" %s=%s", k.c_str(), v.c_str());
      std::printf("\n");
    }
    return 0;
  }
  if (o.index >= static_cast<int>(grid.size())) {
    spdlog::error("--index {}: the grid has points 0 .. {} (vtick sweep {} --list)", o.index, grid.size() - 1, o.file);
    return 2;
  }
  std::string dir = o.out;
  if (dir.empty()) {
    std::string stem = o.file.substr(o.file.rfind('/') + 1);
    dir = "results/" + stem.substr(0, stem.rfind('.'));
  }
  if (!make_dirs(dir + "/runs")) {
    spdlog::error("--out {}: cannot create {}/runs: {}", dir, dir, std::strerror(errno));
    return 2;
  }
  auto point_scenario = [&](const SweepPoint& p) {
    std::vector<std::string> sets = spec.sets;
    for (const auto& s : p.sets()) sets.push_back(s);
    return load_scenario(spec.scenario, sets);
  };
  // The same grid as the results already there, or none there yet. sweep.json also
  // carries the manifest of the sweep that made it, which is not part of the grid.
  json g = grid_json(spec, grid);
  {
    std::ifstream f(dir + "/sweep.json");
    if (f) {
      json old = json::parse(f, nullptr, false);
      if (!old.is_object()) {  // empty, cut short or not JSON: it cannot vouch for the run files
        spdlog::error("{}/sweep.json is not a sweep's grid (empty or corrupt): remove it to start anew, or use another --out", dir);
        return 2;
      }
      old.erase("manifest");
      if (old != g) {
        spdlog::error("{} holds a sweep with another grid (scenario, [set] or axes changed): use another --out", dir);
        return 2;
      }
    } else {
      std::vector<std::uint64_t> seeds;
      for (const auto& p : grid) {
        std::uint64_t s = point_scenario(p).run.seed;
        if (std::find(seeds.begin(), seeds.end(), s) == seeds.end()) seeds.push_back(s);
      }
      json doc;
      doc["manifest"] = manifest_json(base, seeds);  // the base scenario with [set], before the axes
      for (auto& [k, v] : g.items()) doc[k] = v;
      if (!write_output("--out", dir + "/sweep.json", doc.dump(2) + "\n")) return 1;
    }
  }
  int have = 0;
  for (const auto& p : grid) have += sweep_result_complete(run_file(dir, p.index));
  if (!o.collect && o.index < 0 && !o.resume && have > 0) {
    spdlog::error("{} already holds {} of the {} results: --resume completes it, --out starts elsewhere", dir, have, grid.size());
    return 2;
  }
  // Results kept from earlier must come from this vtick and this grid point.
  if (o.collect || o.resume) {
    int foreign = 0;
    for (const auto& p : grid) {
      std::string path = run_file(dir, p.index);
      if (!sweep_result_complete(path) || (o.resume && !o.collect && !sweep_result_ok(path))) continue;  // run again anyway
      std::string why = foreign_reason(path, point_scenario(p));
      if (why.empty()) continue;
      ++foreign;
      if (o.force) spdlog::warn("{} {}: used anyway (--force)", path, why);
      else spdlog::error("{} {}", path, why);
    }
    if (foreign && !o.force) {
      spdlog::error("{} result file{} in {} from another vtick or scenario: rerun them (another --out), or --force to use them", foreign,
                    foreign > 1 ? "s" : "", dir);
      return 2;
    }
  }

  if (!o.collect) {
    std::vector<int> todo;
    if (o.index >= 0) todo.push_back(o.index);
    else
      for (const auto& p : grid)
        if (!o.resume || !sweep_result_ok(run_file(dir, p.index))) todo.push_back(p.index);
    if (!o.quiet && o.index < 0)
      spdlog::info("sweep: {} points, {} to run, {} processes, results in {}", grid.size(), todo.size(),
                   o.jobs > 0 ? o.jobs : default_jobs(), dir);
    Progress bar(static_cast<int>(todo.size()), o.quiet);
    run_forked(
        static_cast<int>(todo.size()), o.jobs > 0 ? o.jobs : default_jobs(),
        [&](int i) {
          const SweepPoint& p = grid[static_cast<size_t>(todo[static_cast<size_t>(i)])];
          Scenario sc = point_scenario(p);
          RunResult r = run_simulation(sc);
          if (!write_output("--out", run_file(dir, p.index), results_json(sc, r, true))) return 1;
          return r.failed ? 1 : 0;
        },
        [&](int i, int rc) { bar.step("point " + std::to_string(todo[static_cast<size_t>(i)]), rc == 0); });
  }
  if (o.index >= 0) return sweep_result_ok(run_file(dir, o.index)) ? 0 : 1;
  return write_sweep_tables(spec, grid, dir, [&](int i) { return run_file(dir, i); }, o.quiet);
}

}  // namespace vtick
