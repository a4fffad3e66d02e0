// vtick explain: the designs (Morris, Latin hypercube) against their definitions, the
// target file and the space, and the command: a resumed search and the Slurm path
// (pending.json, --index) end in the report of an uninterrupted local one.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <unistd.h>

#include "helpers.hpp"
#include "sim/designs.hpp"
#include "sim/explain_space.hpp"
#include "sim/explain_target.hpp"

using namespace vtick;

namespace {

const std::string kMini = VTICK_SOURCE_DIR "/tests/data/explain-mini.toml";

std::string target_file(const std::string& name, const std::string& body) {
  std::string path = test::temp_path(name);
  std::ofstream(path) << "[[run]]\nid = \"d\"\nscenario = \"" VTICK_SOURCE_DIR "/scenarios/default.toml\"\n" << body;
  return path;
}

const char* kOneConstraint = "[[constraint]]\nid = \"c\"\nrun = \"d\"\nbase = \"legacy\"\nvariant = \"got_tick\"\nwithin = 2\n";

nlohmann::json report(const std::string& dir) {
  auto j = nlohmann::json::parse(test::read_file(dir + "/explain.json"));
  j.erase("manifest");  // the command line differs between the ways of running it
  return j;
}

int run_files(const std::string& dir) { return static_cast<int>(test::files_ending(dir + "/runs", ".json").size()); }

}  // namespace

TEST_CASE("morris_design: each step moves one group by +-delta on the grid, inside the unit cube") {
  std::vector<int> group = {0, 1, 1, 2};  // factors 1 and 2 move together
  auto d = morris_design(group, 5, 4, 7);
  REQUIRE(d.size() == 5);
  const double delta = morris_delta(4);
  CHECK(delta == Approx(2.0 / 3));
  for (const auto& t : d) {
    REQUIRE(t.points.size() == 4);  // groups + 1
    std::set<int> moved(t.moved.begin(), t.moved.end());
    CHECK(moved.size() == 3);  // every group once
    for (std::size_t j = 0; j + 1 < t.points.size(); ++j)
      for (std::size_t f = 0; f < group.size(); ++f) {
        double step = t.points[j + 1][f] - t.points[j][f];
        if (group[f] == t.moved[j]) CHECK(std::fabs(std::fabs(step) - delta) < 1e-12);
        else CHECK(step == 0);
        double x = t.points[j][f] * 3;
        CHECK(std::fabs(x - std::round(x)) < 1e-12);  // on the 4-level grid
        CHECK(t.points[j][f] >= 0);
        CHECK(t.points[j][f] <= 1 + 1e-12);
      }
  }
  auto again = morris_design(group, 5, 4, 7);
  CHECK(again[3].points == d[3].points);
  CHECK(morris_design(group, 5, 4, 8)[3].points != d[3].points);
}

TEST_CASE("morris_effects of a linear function are its coefficients, with no spread") {
  std::vector<int> group = {0, 1, 2};
  auto d = morris_design(group, 6, 4, 1);
  std::vector<std::vector<double>> y;
  for (const auto& t : d) {
    std::vector<double> row;
    for (const auto& p : t.points) row.push_back(3 * p[0] - 2 * p[1] + 0 * p[2] + 5);
    y.push_back(row);
  }
  auto e = morris_effects(d, y, 3, 4);
  CHECK(e[0].mu == Approx(3));
  CHECK(e[1].mu == Approx(-2));
  CHECK(e[1].mu_star == Approx(2));
  CHECK(e[2].mu_star == Approx(0).margin(1e-12));
  CHECK(e[0].sigma == Approx(0).margin(1e-9));
  CHECK(e[0].n == 6);
  // a product term shows as spread (sigma) on both factors
  for (std::size_t t = 0; t < d.size(); ++t)
    for (std::size_t j = 0; j < d[t].points.size(); ++j) y[t][j] = 4 * d[t].points[j][0] * d[t].points[j][1];
  auto i = morris_effects(d, y, 3, 4);
  CHECK(i[0].sigma > 0.1);
  CHECK(i[1].sigma > 0.1);
  // an undefined output (NaN: a failed run) leaves the steps it touches out
  y[0][0] = std::nan("");
  CHECK(morris_effects(d, y, 3, 4)[static_cast<std::size_t>(d[0].moved[0])].n == 5);
}

TEST_CASE("latin_hypercube: one point in each stratum of every coordinate") {
  auto p = latin_hypercube(10, 3, 42);
  REQUIRE(p.size() == 10);
  for (int f = 0; f < 3; ++f) {
    std::set<int> strata;
    for (const auto& x : p) {
      CHECK(x[static_cast<std::size_t>(f)] >= 0);
      CHECK(x[static_cast<std::size_t>(f)] < 1);
      strata.insert(static_cast<int>(x[static_cast<std::size_t>(f)] * 10));
    }
    CHECK(strata.size() == 10);
  }
  CHECK(latin_hypercube(10, 3, 42) == p);
}

TEST_CASE("the space: declared estimates per CPU model, log scale for wide ranges, only/exclude") {
  ExplainTarget t = load_target(VTICK_SOURCE_DIR "/scenarios/targets/sysbench-2026.toml");
  std::vector<Scenario> sc;
  for (const auto& r : t.runs) sc.push_back(load_scenario(r.scenario, r.sets));
  Space s = build_space(t, sc);
  auto find = [&](const std::string& k) {
    auto it = std::find_if(s.factors.begin(), s.factors.end(), [&](const Factor& f) { return f.key == k; });
    REQUIRE(it != s.factors.end());
    return *it;
  };
  Factor vmexit = find("host.costs.vmexit_ns");
  CHECK(vmexit.mechanism == "M1");
  CHECK(factor_value(vmexit, 0, sc[0]) == "300");   // skylake-sp: 300 .. 15000 ns (a nested host at the top)
  CHECK(factor_value(vmexit, 1, sc[0]) == "15000");
  CHECK(factor_value(vmexit, 0, sc[1]) == "200");   // altra's own range
  CHECK(factor_value(vmexit, 0.5, sc[0]) == "2121.32");  // geometric middle: sqrt(300 * 15000)
  Factor hlt = find("host.kvm.hlt_passthrough");
  CHECK(factor_value(hlt, 1, sc[0]) == "true");
  CHECK(factor_value(hlt, 1, sc[1]).empty());        // an x86 KVM parameter: not on arm64
  Factor preset = find("guest.background.preset");
  CHECK(factor_value(preset, 0, sc[0]) == "none");
  CHECK(factor_value(preset, 1, sc[0]) == "cloud");
  Factor hp = find("host.kvm.halt_poll_ns");         // the target's [space.add]
  CHECK(factor_value(hp, 1, sc[0]) == "400000");
  for (const auto& f : s.factors) {
    CHECK(f.key.rfind("host.kvm.ple_", 0) != 0);     // excluded by the target
    CHECK(f.key != "guest.tick_policy");             // what the constraints compare
    CHECK(f.key != "host.tick_wakeup_cost");         // the departure
  }
}

TEST_CASE("explain: bad target files exit 2 naming the file, line and what is allowed") {
  struct Bad {
    std::string body, says;
  };
  std::vector<Bad> bad = {
      {"", "needs [[constraint]]"},
      {"[[constraint]]\nid = \"c\"\nrun = \"x\"\nbase = \"legacy\"\nvariant = \"got_tick\"\nwithin = 2\n", "is no [[run]] id"},
      {"[[constraint]]\nid = \"c\"\nrun = \"d\"\nbase = \"legacy\"\nvariant = \"got_tock\"\nwithin = 2\n", "allowed values"},
      {"[[constraint]]\nid = \"c\"\nrun = \"d\"\nbase = \"legacy\"\nvariant = \"got_tick\"\nband = [3, 1]\n", "LO <= HI"},
      {"[[constraint]]\nid = \"c\"\nrun = \"d\"\nbase = \"legacy\"\nvariant = \"got_tick\"\nband = [1, 2]\nwithin = 1\n", "one of them"},
      {"[[constraint]]\nid = \"c\"\nrun = \"d\"\nbase = \"legacy\"\nvariant = \"got_tick\"\nwithin = nan\n", "positive number"},
      {std::string(kOneConstraint) + "[space]\nonly = [\"host.nothing.*\"]\n", "matches no scenario key"},
      {std::string(kOneConstraint) + "[space.add]\n\"host.costs.vmexit_ns\" = [100, 200]\n", "out of range"},
      {std::string(kOneConstraint) + "[budget]\nmorris_r = 0\n", "morris_r: an integer from 1"},
      {std::string(kOneConstraint) + "[budget]\nlevels = 4\n", "unknown key 'levels'"},
      {std::string(kOneConstraint) + "[departure.\"host.tick_wakeup_cost\"]\ndocumented = [\"0ns\", \"0ns\"]\nvalues = [\"0ns\"]\n",
       "inside the documented range"},
      {std::string(kOneConstraint) + "colour = 1\n", "unknown key 'colour'"},
  };
  std::string many;
  for (int i = 0; i < 17; ++i) many += "[[run]]\nid = \"r" + std::to_string(i) + "\"\nscenario = \"" VTICK_SOURCE_DIR "/scenarios/default.toml\"\n";
  bad.push_back({many + kOneConstraint, "at most 16"});
  for (const auto& b : bad) {
    std::string f = target_file("bad-target.toml", b.body);
    auto r = test::run_cli("explain " + f + " --out " + test::temp_path("bad-out"));
    INFO(b.body << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find(b.says) != std::string::npos);
    CHECK(r.output.find("bad-target.toml") != std::string::npos);
  }
  auto r = test::run_cli("explain " + kMini + " --budget huge");
  CHECK(r.status == 2);
  r = test::run_cli("explain " + kMini + " --slurm --collect");
  CHECK(r.status == 2);
}

TEST_CASE("explain --list-space prints every factor with its range on each run and its source") {
  auto r = test::run_cli("explain " VTICK_SOURCE_DIR "/scenarios/targets/sysbench-2026.toml --list-space");
  REQUIRE(r.status == 0);
  CHECK(r.output.find("host.costs.vmexit_ns") != std::string::npos);
  CHECK(r.output.find("a1.flex.2: 200 .. 6000 (log)") != std::string::npos);
  CHECK(r.output.find("[EST]") != std::string::npos);
  CHECK(r.output.find("guest.sched.nohz_balance") != std::string::npos);
  CHECK(r.output.find("guest.background.preset") != std::string::npos);
}

TEST_CASE("explain: a search killed (files lost, SIGKILL mid-write) and resumed, and one run through pending.json and --index, give the same report") {
  std::string a = test::temp_path("explain-a"), b = test::temp_path("explain-b");
  test::shell("rm -rf " + a + " " + b);
  auto r = test::run_cli("explain " + kMini + " --out " + a + " --quiet --jobs 2");
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const char* f : {"/explain.md", "/explain.json", "/figures/sensitivity.svg", "/figures/best.svg"})
    CHECK(!test::read_file(a + f).empty());
  auto first = report(a);
  CHECK(first["ranking"].size() == 3);
  CHECK(first["best"].size() == 2);
  CHECK(first["departures"][0]["tried"].size() == 2);
  const int n = run_files(a);
  CHECK(n == first["runs"].get<int>());
  // again: nothing to run, the same report
  r = test::run_cli("explain " + kMini + " --out " + a + " --quiet");
  REQUIRE(r.status == 0);
  CHECK(run_files(a) == n);
  CHECK(report(a) == first);
  // lose a third of the runs (a kill before they were written): they are run again
  auto files = test::files_ending(a + "/runs", ".json");
  for (std::size_t i = 0; i < files.size(); i += 3) std::remove(files[i].c_str());
  r = test::run_cli("explain " + kMini + " --out " + a + " --collect");
  CHECK(r.status == 75);
  CHECK(r.output.find("not in") != std::string::npos);
  r = test::run_cli("explain " + kMini + " --out " + a + " --quiet");
  REQUIRE(r.status == 0);
  CHECK(report(a) == first);

  // killed (SIGKILL) while writing: every run's file, then the report
  std::string c = test::temp_path("explain-c");
  test::shell("rm -rf " + c);
  r = test::run_cli("explain " + kMini + " --out " + c + " --quiet", {"VTICK_FAULT_KILL='*.json:1'"});
  CHECK(r.status == 1);
  CHECK(run_files(c) == 0);
  r = test::run_cli("explain " + kMini + " --out " + c + " --quiet", {"VTICK_FAULT_KILL=explain.json:1"});
  CHECK(r.status != 0);
  CHECK(access((c + "/explain.json").c_str(), F_OK) != 0);
  r = test::run_cli("explain " + kMini + " --out " + c + " --quiet");
  REQUIRE(r.status == 0);
  CHECK(report(c) == first);

  // the Slurm path without Slurm: each round's array tasks run by hand
  int rounds = 0;
  for (;; ++rounds) {
    REQUIRE(rounds < 20);
    r = test::run_cli("explain " + kMini + " --out " + b + " --slurm");
    if (r.status == 0) break;
    INFO(r.output);
    REQUIRE(r.status == 75);
    auto p = nlohmann::json::parse(test::read_file(b + "/pending.json"));
    int tasks = (static_cast<int>(p["runs"].size()) + p["batch"].get<int>() - 1) / p["batch"].get<int>();
    CHECK(test::read_file(b + "/explain.sbatch").find("#SBATCH --array=0-" + std::to_string(tasks - 1)) != std::string::npos);
    for (int i = 0; i < tasks; ++i) REQUIRE(test::run_cli("explain " + kMini + " --out " + b + " --index " + std::to_string(i)).status == 0);
    CHECK(test::run_cli("explain " + kMini + " --out " + b + " --index " + std::to_string(tasks)).status == 2);
  }
  CHECK(rounds >= 3);  // screening, design, refinement steps, best sets, departures
  CHECK(report(b) == first);
}

TEST_CASE("a vCPU asked to yield by a wake-up preemption promises no local stretch (found by explain's screening)") {
  // before the fix: WARN_ON at 21.08 ms, a doorbell ring inside the stretch, both schedulers
  for (const char* sched : {"vtick", "simgrid"}) {
    auto r = test::run_cli("run " VTICK_SOURCE_DIR "/tests/data/preempt-promise.toml --quiet --set run.scheduler=" + std::string(sched));
    INFO(sched << ": " << r.output);
    CHECK(r.status == 0);
    CHECK(r.output.find("local stretch") == std::string::npos);
  }
}
