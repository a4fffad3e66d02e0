// vtick sweep: the grid of a sweep file, run in forked processes, one result file per
// run (written atomically), then runs.csv / summary.csv / delta.csv built from the files,
// so a sweep killed and resumed gives the same CSVs as one that never stopped.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/sweep_tables.hpp"
#include "sim/fork_pool.hpp"
#include "sim/results.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"
#include "sim/sweep.hpp"

namespace vtick {

bool write_file_atomic(const std::string& path, const std::string& text);

using json = nlohmann::ordered_json;

namespace {

bool make_dirs(const std::string& path) {
  std::string p;
  std::size_t i = 0;
  while (i != std::string::npos) {
    i = path.find('/', i + 1);
    p = path.substr(0, i);
    if (!p.empty() && mkdir(p.c_str(), 0777) != 0 && errno != EEXIST) return false;
  }
  return true;
}

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

std::string hms(double s) {
  char b[32];
  long t = static_cast<long>(s + 0.5);
  if (t >= 3600) std::snprintf(b, sizeof b, "%ldh%02ldm", t / 3600, (t / 60) % 60);
  else if (t >= 60) std::snprintf(b, sizeof b, "%ldm%02lds", t / 60, t % 60);
  else std::snprintf(b, sizeof b, "%lds", t);
  return b;
}

// A bar redrawn in place on a terminal; plain lines otherwise (logs, CI, Slurm).
class Progress {
 public:
  Progress(int total, bool quiet) : total_(total), quiet_(quiet), tty_(isatty(2)), t0_(std::chrono::steady_clock::now()) {}
  void step(int index, bool ok) {
    ++done_;
    if (!ok) ++failed_;
    if (quiet_) return;
    double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    double rate = el > 0 ? done_ / el : 0;
    std::string eta = rate > 0 ? hms((total_ - done_) / rate) : "?";
    if (tty_) {
      int w = 30, fill = total_ ? w * done_ / total_ : w;
      std::fprintf(stderr, "\r[%s%s] %d/%d runs  %.2f runs/s  ETA %s%s   ", std::string(static_cast<size_t>(fill), '#').c_str(),
                   std::string(static_cast<size_t>(w - fill), '.').c_str(), done_, total_, rate, eta.c_str(),
                   failed_ ? (" " + std::to_string(failed_) + " failed").c_str() : "");
      if (done_ == total_) std::fprintf(stderr, "\n");
    } else {
      std::fprintf(stderr, "[%d/%d] point %d %s (%.2f runs/s, ETA %s)\n", done_, total_, index, ok ? "done" : "FAILED", rate, eta.c_str());
    }
  }

 private:
  int total_, done_ = 0, failed_ = 0;
  bool quiet_, tty_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace

bool sweep_result_complete(const std::string& path) {
  std::ifstream f(path);
  if (!f) return false;
  json j = json::parse(f, nullptr, false);
  return j.is_object() && j.contains("manifest") && j["manifest"].contains("status") && j.contains("summary");
}

static bool sweep_result_ok(const std::string& path) {
  std::ifstream f(path);
  json j = f ? json::parse(f, nullptr, false) : json();
  return j.is_object() && j.contains("manifest") && j["manifest"].value("status", "") == "ok";
}

int cmd_sweep(const SweepOptions& o) {
  SweepSpec spec;
  std::vector<SweepPoint> grid;
  try {
    spec = load_sweep(o.file);
    grid = sweep_grid(spec);
  } catch (const InputError& e) {
    std::fprintf(stderr, "vtick: %s\n", e.what());
    return 2;
  }
  if (grid.empty()) {
    std::fprintf(stderr, "vtick: %s: every grid point is excluded\n", o.file.c_str());
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
    std::fprintf(stderr, "vtick: --index %d: the grid has points 0 .. %zu (vtick sweep %s --list)\n", o.index, grid.size() - 1,
                 o.file.c_str());
    return 2;
  }
  std::string dir = o.out;
  if (dir.empty()) {
    std::string stem = o.file.substr(o.file.rfind('/') + 1);
    dir = "results/" + stem.substr(0, stem.rfind('.'));
  }
  if (!make_dirs(dir + "/runs")) {
    std::fprintf(stderr, "vtick: cannot create %s/runs\n", dir.c_str());
    return 2;
  }
  // The same grid as the results already there, or none there yet.
  json g = grid_json(spec, grid);
  {
    std::ifstream f(dir + "/sweep.json");
    if (f) {
      json old = json::parse(f, nullptr, false);
      if (old != g) {
        std::fprintf(stderr, "vtick: %s holds a sweep with another grid (scenario, [set] or axes changed): use another --out\n",
                     dir.c_str());
        return 2;
      }
    } else if (!write_file_atomic(dir + "/sweep.json", g.dump(2) + "\n")) {
      std::fprintf(stderr, "vtick: cannot write %s/sweep.json\n", dir.c_str());
      return 2;
    }
  }
  int have = 0;
  for (const auto& p : grid) have += sweep_result_complete(run_file(dir, p.index));
  if (!o.collect && o.index < 0 && !o.resume && have > 0) {
    std::fprintf(stderr, "vtick: %s already holds %d of the %zu results: --resume completes it, --out starts elsewhere\n",
                 dir.c_str(), have, grid.size());
    return 2;
  }

  if (!o.collect) {
    std::vector<int> todo;
    if (o.index >= 0) todo.push_back(o.index);
    else
      for (const auto& p : grid)
        if (!o.resume || !sweep_result_ok(run_file(dir, p.index))) todo.push_back(p.index);
    if (!o.quiet && o.index < 0)
      std::fprintf(stderr, "vtick sweep: %zu points, %zu to run, %d processes, results in %s\n", grid.size(), todo.size(),
                   o.jobs > 0 ? o.jobs : default_jobs(), dir.c_str());
    Progress bar(static_cast<int>(todo.size()), o.quiet);
    run_forked(
        static_cast<int>(todo.size()), o.jobs > 0 ? o.jobs : default_jobs(),
        [&](int i) {
          const SweepPoint& p = grid[static_cast<size_t>(todo[static_cast<size_t>(i)])];
          std::vector<std::string> sets = spec.sets;
          for (const auto& s : p.sets()) sets.push_back(s);
          Scenario sc = load_scenario(spec.scenario, sets);
          RunResult r = run_simulation(sc);
          if (!write_file_atomic(run_file(dir, p.index), results_json(sc, r, true))) return 1;
          return r.failed ? 1 : 0;
        },
        [&](int i, int rc) { bar.step(todo[static_cast<size_t>(i)], rc == 0); });
  }
  if (o.index >= 0) return sweep_result_ok(run_file(dir, o.index)) ? 0 : 1;
  return write_sweep_tables(spec, grid, dir, [&](int i) { return run_file(dir, i); }, o.quiet);
}

}  // namespace vtick
