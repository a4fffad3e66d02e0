// vtick explain: is there a set of mechanisms and costs, inside their documented ranges,
// that reproduces every reported fact (a target file), and if not, what is the smallest
// departure that does? Morris screening, a Latin hypercube over the influential factors,
// NLopt refinements from the best points, the best sets confirmed with more seeds, then
// the departures. Every evaluation is runs of the model: content-addressed run files in
// DIR/runs, so a killed search resumes where it stopped, and the same plan runs locally
// (--jobs), as a Slurm job array or through GNU parallel (--slurm, --index).
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <nlopt.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/explain.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "core/rng.hpp"
#include "sim/fork_pool.hpp"
#include "sim/manifest.hpp"
#include "sim/results.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"

namespace vtick {

using json = nlohmann::ordered_json;

namespace {

// small: ~5 minutes on 2 cores for the shipped target; full: ~40 minutes there, minutes on a
// cluster (--slurm).
const ExplainBudget kBudgets[] = {
    {"small", "500ms", 1, 2, 4, false, 12, 6, 2, 10, 3, 3, 8},
    {"full", "1s", 2, 4, 4, false, 32, 8, 3, 20, 5, 3, 4},
};

constexpr int kPendingExit = 75;  // EX_TEMPFAIL: runs are still to do (--slurm, --collect)
const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string hex64(std::uint64_t h) {
  char b[20];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

// The identity of a run: this vtick, the scenario file and every override (each ended by
// a 0xff byte, which no text holds).
std::string run_hash(const std::string& scenario, const std::vector<std::string>& sets) {
  std::uint64_t h = kFnv1aBasis;
  auto mix = [&](const std::string& s) { h = fnv1a64("\xff", fnv1a64(s, h)); };
  mix(vtick_git_revision());
  mix(scenario);
  for (const auto& s : sets) mix(s);
  return hex64(h);
}

std::string absolute(const std::string& p) {
  if (!p.empty() && p[0] == '/') return p;
  char b[4096];
  return getcwd(b, sizeof b) ? std::string(b) + "/" + p : p;
}


struct RunReq {
  std::string scenario;
  std::vector<std::string> sets;
  std::string hash;
};

class Explainer {
 public:
  Explainer(const ExplainTarget& t, const ExplainBudget& b, std::string dir, const std::vector<Scenario>& sc, const Space& sp)
      : t_(t), b_(b), dir_(std::move(dir)), sc_(sc), sp_(sp) {}

  // The whole plan from what is in DIR/runs; false when runs are missing (pending()).
  bool plan(ExplainResult& r);
  const std::vector<RunReq>& pending() const { return pending_; }
  void forget_missing() {
    pending_.clear();
    pending_set_.clear();
    missing_.clear();
  }
  std::string run_file(const std::string& hash) const { return dir_ + "/runs/" + hash + ".json"; }
  int runs_seen() const { return static_cast<int>(cache_.size()); }

 private:
  bool evaluate(Evaluated& e);
  bool evaluate_all(std::vector<Evaluated>& es) {
    bool ok = true;
    for (auto& e : es) ok = evaluate(e) && ok;
    return ok;
  }
  bool metric(const RunReq& q, double& out);
  RunReq request(std::size_t run, const Evaluated& e, const std::string& key, const std::string& value, int seed) const;
  Evaluated point(const std::string& phase, std::vector<double> u, int seeds) const {
    Evaluated e;
    e.phase = phase;
    e.u = std::move(u);
    e.seeds = seeds;
    return e;
  }
  void refine(ExplainResult& r, bool& complete);

  const ExplainTarget& t_;
  const ExplainBudget& b_;
  std::string dir_;
  const std::vector<Scenario>& sc_;
  const Space& sp_;
  std::map<std::string, double> cache_;  // run hash -> metric (NaN: the run failed)
  std::set<std::string> missing_;
  std::vector<RunReq> pending_;
  std::set<std::string> pending_set_;
};

RunReq Explainer::request(std::size_t run, const Evaluated& e, const std::string& key, const std::string& value, int seed) const {
  RunReq q;
  q.scenario = t_.runs[run].scenario;
  q.sets = t_.runs[run].sets;
  for (std::size_t f = 0; f < sp_.factors.size(); ++f) {
    if (!std::isfinite(e.u[f])) continue;
    std::string v = factor_value(sp_.factors[f], e.u[f], sc_[run]);
    if (!v.empty()) q.sets.push_back(sp_.factors[f].key + "=" + v);
  }
  for (const auto& x : e.extra) q.sets.push_back(x);
  q.sets.push_back(key + "=" + value);
  q.sets.push_back("run.duration=" + b_.duration);
  q.sets.push_back("run.seed=" + std::to_string(seed));
  q.hash = run_hash(q.scenario, q.sets);
  return q;
}

bool Explainer::metric(const RunReq& q, double& out) {
  auto it = cache_.find(q.hash);
  if (it == cache_.end() && !missing_.count(q.hash)) {
    std::ifstream f(run_file(q.hash));
    json j = f ? json::parse(f, nullptr, false) : json();
    if (j.is_object() && j.contains("status") && j.contains("metric")) {
      double v = j["status"] == "ok" && j["metric"].is_number() ? j["metric"].get<double>() : kNaN;
      it = cache_.emplace(q.hash, v).first;
    } else missing_.insert(q.hash);
  }
  if (it != cache_.end()) {
    out = it->second;
    return true;
  }
  if (pending_set_.insert(q.hash).second) pending_.push_back(q);
  return false;
}

bool Explainer::evaluate(Evaluated& e) {
  bool complete = true;
  e.change.assign(t_.constraints.size(), SampleStats{});
  e.miss.assign(t_.constraints.size(), kNaN);
  std::vector<std::vector<double>> ch(t_.constraints.size());
  for (std::size_t c = 0; c < t_.constraints.size(); ++c) {
    const auto& k = t_.constraints[c];
    std::size_t run = 0;
    while (t_.runs[run].id != k.run) ++run;
    for (int s = 1; s <= e.seeds; ++s) {
      double base = kNaN, var = kNaN;
      bool have = metric(request(run, e, k.key, k.base, s), base);
      have = metric(request(run, e, k.key, k.variant, s), var) && have;
      complete = complete && have;
      if (have) ch[c].push_back(std::isfinite(base) && std::isfinite(var) && base > 0 ? 100.0 * (var - base) / base : kNaN);
    }
  }
  if (!complete) return false;
  double ss = 0;
  e.meets = e.meets_noise = true;
  for (std::size_t c = 0; c < t_.constraints.size(); ++c) {
    const auto& k = t_.constraints[c];
    e.change[c] = sample_stats(ch[c]);
    double m = e.change[c].mean, half = (k.hi - k.lo) / 2;
    if (e.change[c].n == 0) {
      e.miss[c] = 10;  // every run failed: as far as a point can be
      e.meets = e.meets_noise = false;
    } else {
      e.miss[c] = std::max({0.0, k.lo - m, m - k.hi}) / half;
      double ci = std::isfinite(e.change[c].ci95) ? e.change[c].ci95 : 0;
      e.meets = e.meets && e.miss[c] == 0;
      e.meets_noise = e.meets_noise && m + ci >= k.lo && m - ci <= k.hi;
    }
    ss += e.miss[c] * e.miss[c];
  }
  e.distance = std::sqrt(ss / static_cast<double>(t_.constraints.size()));
  return true;
}

bool same_point(const Evaluated& a, const Evaluated& b) {
  if (a.extra != b.extra || a.u.size() != b.u.size()) return false;
  for (std::size_t i = 0; i < a.u.size(); ++i)
    if (!(a.u[i] == b.u[i] || (std::isnan(a.u[i]) && std::isnan(b.u[i])))) return false;
  return true;
}

// The local refinements, replayed from the start on each call: NLopt's derivative-free
// methods are deterministic, so the evaluations already in DIR/runs return at once and
// the first missing one of each start stops it (its runs join the pending batch).
void Explainer::refine(ExplainResult& r, bool& complete) {
  std::vector<int> cont;
  for (int f : r.searched)
    if (!sp_.factors[static_cast<std::size_t>(f)].choice) cont.push_back(f);
  if (cont.empty() || b_.starts <= 0) return;
  std::vector<const Evaluated*> cand;
  for (const auto& e : r.evaluated)
    if (e.phase == "design" || e.phase == "screen") cand.push_back(&e);
  std::stable_sort(cand.begin(), cand.end(), [](const Evaluated* a, const Evaluated* b) { return a->distance < b->distance; });
  std::vector<Evaluated> starts;
  for (const Evaluated* e : cand) {
    if (static_cast<int>(starts.size()) >= b_.starts) break;
    if (std::none_of(starts.begin(), starts.end(), [&](const Evaluated& s) { return same_point(s, *e); })) starts.push_back(*e);
  }
  std::vector<Evaluated> found;
  for (const auto& st : starts) {
    nlopt::srand(1);
    nlopt::opt opt(cont.size() > 1 ? nlopt::LN_BOBYQA : nlopt::LN_SBPLX, static_cast<unsigned>(cont.size()));
    opt.set_lower_bounds(std::vector<double>(cont.size(), 0.0));
    opt.set_upper_bounds(std::vector<double>(cont.size(), 1.0));
    opt.set_initial_step(0.15);
    opt.set_xtol_abs(0.01);
    opt.set_maxeval(b_.evals_per_start);
    struct Ctx {
      Explainer* self;
      const Evaluated* start;
      const std::vector<int>* cont;
      std::vector<Evaluated>* found;
      bool* complete;
    } ctx{this, &st, &cont, &found, &complete};
    opt.set_min_objective(
        [](unsigned n, const double* x, double*, void* data) -> double {
          auto* c = static_cast<Ctx*>(data);
          Evaluated e = *c->start;
          e.phase = "refine";
          for (unsigned i = 0; i < n; ++i) e.u[static_cast<std::size_t>((*c->cont)[i])] = std::clamp(x[i], 0.0, 1.0);
          if (!c->self->evaluate(e)) {
            *c->complete = false;
            throw nlopt::forced_stop();
          }
          c->found->push_back(e);
          return e.distance;
        },
        &ctx);
    std::vector<double> x;
    for (int f : cont) x.push_back(st.u[static_cast<std::size_t>(f)]);
    double best = 0;
    try {
      opt.optimize(x, best);
    } catch (const nlopt::forced_stop&) {
    } catch (const std::exception& e) {
      spdlog::debug("nlopt: {}", e.what());
    }
  }
  for (auto& e : found) r.evaluated.push_back(std::move(e));
}

bool Explainer::plan(ExplainResult& r) {
  const std::size_t k = sp_.factors.size();
  const std::vector<double> none(k, kNaN);
  r.baseline = point("baseline", none, b_.confirm_seeds);
  bool complete = evaluate(r.baseline);

  // screening
  std::vector<MorrisTrajectory> design = morris_design(r.group_of, b_.morris_r, b_.levels, 0x6d6f72726973ULL);
  std::vector<std::vector<double>> yd(design.size());
  std::vector<std::vector<std::vector<double>>> yc(t_.constraints.size(), std::vector<std::vector<double>>(design.size()));
  std::vector<Evaluated> screen;
  for (const auto& tr : design)
    for (const auto& p : tr.points) screen.push_back(point("screen", p, b_.screen_seeds));
  complete = evaluate_all(screen) && complete;
  if (!complete) return false;
  std::size_t i = 0;
  for (std::size_t tr = 0; tr < design.size(); ++tr)
    for (std::size_t j = 0; j < design[tr].points.size(); ++j, ++i) {
      yd[tr].push_back(screen[i].distance);
      for (std::size_t c = 0; c < t_.constraints.size(); ++c) yc[c][tr].push_back(screen[i].change[c].mean);
    }
  const int groups = static_cast<int>(r.groups.size());
  std::vector<MorrisEffect> ed = morris_effects(design, yd, groups, b_.levels);
  std::vector<std::vector<MorrisEffect>> ec;
  for (std::size_t c = 0; c < t_.constraints.size(); ++c) ec.push_back(morris_effects(design, yc[c], groups, b_.levels));
  r.ranking.clear();
  for (int g = 0; g < groups; ++g) {
    FactorRank fr;
    fr.factor = g;
    fr.on_distance = ed[static_cast<std::size_t>(g)];
    for (auto& e : ec) fr.on_constraint.push_back(e[static_cast<std::size_t>(g)]);
    r.ranking.push_back(fr);
  }
  // most influential on the distance first; a tie (no effect at all) in declaration order
  std::stable_sort(r.ranking.begin(), r.ranking.end(), [](const FactorRank& a, const FactorRank& b) {
    double x = std::isfinite(a.on_distance.mu_star) ? a.on_distance.mu_star : -1;
    double y = std::isfinite(b.on_distance.mu_star) ? b.on_distance.mu_star : -1;
    return x > y;
  });
  r.searched.clear();
  for (const auto& fr : r.ranking) {
    if (!(fr.on_distance.mu_star > 0)) break;
    for (std::size_t f = 0; f < k; ++f)
      if (r.group_of[f] == fr.factor && static_cast<int>(r.searched.size()) < b_.top) r.searched.push_back(static_cast<int>(f));
  }
  for (auto& e : screen) r.evaluated.push_back(std::move(e));

  // a space-filling design over the influential factors, the others as the scenario has them
  if (!r.searched.empty()) {
    std::vector<Evaluated> lhs;
    for (const auto& p : latin_hypercube(b_.lhs_points, static_cast<int>(r.searched.size()), 0x6c6873ULL)) {
      std::vector<double> u = none;
      for (std::size_t d = 0; d < p.size(); ++d) u[static_cast<std::size_t>(r.searched[d])] = p[d];
      lhs.push_back(point("design", u, b_.screen_seeds));
    }
    complete = evaluate_all(lhs) && complete;
    if (!complete) return false;
    for (auto& e : lhs) r.evaluated.push_back(std::move(e));
    refine(r, complete);
    if (!complete) return false;
  }

  // the best sets, confirmed with more seeds
  std::vector<const Evaluated*> order;
  for (const auto& e : r.evaluated) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](const Evaluated* a, const Evaluated* b) { return a->distance < b->distance; });
  r.best.clear();
  for (const Evaluated* e : order) {
    if (static_cast<int>(r.best.size()) >= b_.best_sets) break;
    if (std::any_of(r.best.begin(), r.best.end(), [&](const Evaluated& b) { return same_point(b, *e); })) continue;
    Evaluated c = point("best", e->u, b_.confirm_seeds);
    c.extra = e->extra;
    r.best.push_back(c);
  }
  complete = evaluate_all(r.best) && complete;
  if (!complete) return false;
  std::stable_sort(r.best.begin(), r.best.end(), [](const Evaluated& a, const Evaluated& b) { return a.distance < b.distance; });

  // departures from the documented ranges, from the best set inside them
  r.departures.clear();
  for (const auto& d : t_.departures) {
    DepartureResult dr;
    dr.departure = d;
    for (const auto& v : d.values) {
      Evaluated e = point("departure", r.best.empty() ? none : r.best.front().u, b_.confirm_seeds);
      e.extra = {d.key + "=" + v};
      dr.tried.push_back(e);
    }
    complete = evaluate_all(dr.tried) && complete;
    r.departures.push_back(dr);
  }
  if (!complete) return false;
  for (auto& dr : r.departures)
    for (std::size_t v = 0; v < dr.tried.size() && dr.smallest < 0; ++v)
      if (dr.tried[v].meets) dr.smallest = static_cast<int>(v);
  r.runs = runs_seen();
  return true;
}

// pending.json: what an array task (--index) runs, written with the sbatch script.
std::string pending_json(const std::vector<RunReq>& p, const std::string& target, const std::string& budget, int batch) {
  json j;
  j["target"] = target;
  j["budget"] = budget;
  j["batch"] = batch;
  json runs = json::array();
  for (const auto& q : p) runs.push_back({{"hash", q.hash}, {"scenario", q.scenario}, {"sets", q.sets}});
  j["runs"] = runs;
  return j.dump(1) + "\n";
}

int run_one(const RunReq& q, const std::string& file, const std::string& metric) {
  Scenario sc;
  try {
    sc = load_scenario(q.scenario, q.sets);
  } catch (const InputError& e) {
    spdlog::error("{}", e.what());
    return 2;
  }
  RunResult res = run_simulation(sc);
  json r = json::parse(results_json(sc, res, false), nullptr, false);
  json out;
  out["scenario"] = q.scenario;
  out["sets"] = q.sets;
  out["git_revision"] = vtick_git_revision();
  out["status"] = res.failed ? "failed" : "ok";
  if (res.failed) out["error"] = res.error;
  const json* m = r.is_object() && r.contains("summary") && r["summary"].contains(metric) ? &r["summary"][metric] : nullptr;
  out["metric"] = m && m->is_number() ? *m : json();
  out["summary"] = r.is_object() && r.contains("summary") ? r["summary"] : json::object();
  if (!write_output("--out", file, out.dump() + "\n")) return 1;
  return res.failed ? 1 : 0;
}

int run_index(const ExplainOptions& o, const std::string& dir, const std::string& metric) {
  std::ifstream f(dir + "/pending.json");
  json j = f ? json::parse(f, nullptr, false) : json();
  if (!j.is_object() || !j.contains("runs") || !j["runs"].is_array() || !j.contains("batch") || !j["batch"].is_number_integer()) {
    spdlog::error("--index: {}/pending.json is missing or not vtick explain's (run vtick explain ... --slurm first)", dir);
    return 2;
  }
  if (j.value("target", "") != absolute(o.target)) {
    spdlog::error("--index: {}/pending.json was written for the target {}, not {}", dir, j.value("target", "?"), absolute(o.target));
    return 2;
  }
  const int batch = j["batch"].get<int>();
  const int n = static_cast<int>(j["runs"].size());
  const int tasks = batch > 0 ? (n + batch - 1) / batch : 0;
  if (o.index >= tasks) {
    spdlog::error("--index {}: {}/pending.json has array tasks 0 .. {}", o.index, dir, tasks - 1);
    return 2;
  }
  std::vector<RunReq> todo;
  for (int i = o.index * batch; i < std::min(n, (o.index + 1) * batch); ++i) {
    const json& q = j["runs"][static_cast<std::size_t>(i)];
    RunReq r{q.value("scenario", ""), q.value("sets", std::vector<std::string>{}), q.value("hash", "")};
    if (access((dir + "/runs/" + r.hash + ".json").c_str(), F_OK) != 0) todo.push_back(r);  // else done by an earlier attempt
  }
  // one process per run, one at a time: a SimGrid engine is once per process
  int rc = 0;
  run_forked(static_cast<int>(todo.size()), 1,
             [&](int i) { return run_one(todo[static_cast<std::size_t>(i)], dir + "/runs/" + todo[static_cast<std::size_t>(i)].hash + ".json", metric); },
             [&](int, int status) { rc = std::max(rc, status == 0 ? 0 : status == 2 ? 2 : 1); });
  return rc;
}

}  // namespace

const ExplainBudget* find_budget(const std::string& name) {
  for (const auto& b : kBudgets)
    if (b.name == name) return &b;
  return nullptr;
}

int cmd_explain(const ExplainOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const ExplainBudget* budget = find_budget(o.budget);  // then the target's [budget] (res.budget)
  if (!budget) {
    spdlog::error("--budget {}: allowed small, full", o.budget);
    return 2;
  }
  ExplainTarget target;
  std::vector<Scenario> scenarios;
  Space space;
  try {
    target = load_target(o.target);
    for (const auto& r : target.runs) scenarios.push_back(load_scenario(r.scenario, r.sets));
    space = build_space(target, scenarios);
  } catch (const InputError& e) {
    spdlog::error("{}", e.what());
    return 2;
  }
  if (o.list_space) {
    std::printf("%-36s %-5s %s\n", "factor", "mech", "range on each run (coordinate 0 .. 1), source");
    for (const auto& f : space.factors) {
      std::printf("%-36s %-5s", f.key.c_str(), f.mechanism.c_str());
      std::string prev;
      for (std::size_t i = 0; i < scenarios.size(); ++i) {
        std::string r = factor_range_text(f, scenarios[i]);
        if (r.empty() || r == prev) continue;
        std::printf(" %s: %s;", target.runs[i].id.c_str(), r.c_str());
        prev = r;
      }
      std::printf("  [%s]\n", f.source.c_str());
    }
    std::printf("%zu factors; constraints compare %zu pairs of runs over %zu scenarios\n", space.factors.size(),
                target.constraints.size(), target.runs.size());
    return 0;
  }
  if (space.factors.empty()) {
    spdlog::error("{}: the space is empty ([space] only/exclude leave no factor)", o.target);
    return 2;
  }
  std::string dir = o.out;
  if (dir.empty()) {
    std::string stem = o.target.substr(o.target.rfind('/') + 1);
    dir = "results/explain-" + stem.substr(0, stem.rfind('.'));
  }
  if (!make_dirs(dir + "/runs")) {
    spdlog::error("--out {}: cannot create {}/runs: {}", dir, dir, std::strerror(errno));
    return 2;
  }
  if (o.index >= 0) return run_index(o, dir, target.metric);

  ExplainResult res;
  res.target = target;
  res.space = space;
  res.budget = *budget;
  if (!target.budget_duration.empty()) res.budget.duration = target.budget_duration;
  for (const auto& [k, v] : target.budget_ints) {
    ExplainBudget& b = res.budget;
    int* f = k == "screen_seeds" ? &b.screen_seeds : k == "morris_r" ? &b.morris_r : k == "lhs_points" ? &b.lhs_points
           : k == "top" ? &b.top : k == "starts" ? &b.starts : k == "evals_per_start" ? &b.evals_per_start
           : k == "confirm_seeds" ? &b.confirm_seeds : k == "best_sets" ? &b.best_sets : &b.batch;
    *f = v;
  }
  budget = &res.budget;
  for (std::size_t f = 0; f < space.factors.size(); ++f) {
    std::string g = budget->grouped ? space.factors[f].mechanism : space.factors[f].key;
    auto it = std::find(res.groups.begin(), res.groups.end(), g);
    if (it == res.groups.end()) it = res.groups.insert(res.groups.end(), g);
    res.group_of.push_back(static_cast<int>(it - res.groups.begin()));
  }
  {
    // the plan's size before planning it: each point of each stage is run on every distinct
    // (run, base or variant) of the constraints, with its seeds; the plan is held in memory
    std::set<std::string> pairs;
    for (const auto& c : target.constraints) {
      pairs.insert(c.run + "\n" + c.key + "=" + c.base);
      pairs.insert(c.run + "\n" + c.key + "=" + c.variant);
    }
    double departures = 0;
    for (const auto& d : target.departures) departures += static_cast<double>(d.values.size());
    const ExplainBudget& b = *budget;
    double points = b.screen_seeds * (static_cast<double>(b.morris_r) * static_cast<double>(res.groups.size() + 1) + b.lhs_points +
                                      static_cast<double>(b.starts) * b.evals_per_start) +
                    b.confirm_seeds * (1.0 + b.best_sets + departures);
    double runs = points * static_cast<double>(pairs.size());
    constexpr double kMaxPlanRuns = 1e6;  // ~1 KB of plan a run: a plan past this would not fit a 2-core machine's memory
    if (runs > kMaxPlanRuns) {
      spdlog::error("{}: budget {} with its [budget] overrides plans about {:.3g} runs, more than {:.0f} (screen_seeds x (morris_r x "
                    "{} factors + lhs_points + starts x evals_per_start) + confirm_seeds x (1 + best_sets + departures), each on "
                    "{} run/policy pairs): lower lhs_points, starts, evals_per_start or the seeds",
                    o.target, budget->name, runs, kMaxPlanRuns, res.groups.size() + 1, pairs.size());
      return 2;
    }
  }
  if (!o.quiet)
    spdlog::info("explain: {} factors, {} constraints over {} runs, budget {} ({} per run, results in {})", space.factors.size(),
                 target.constraints.size(), target.runs.size(), budget->name, budget->duration, dir);
  Explainer ex(target, *budget, dir, scenarios, space);
  for (int round = 1;; ++round) {
    ExplainResult r = res;
    if (ex.plan(r)) {
      res = r;
      break;
    }
    const auto& p = ex.pending();
    if (o.collect || o.slurm) {
      if (o.slurm) {
        const int tasks = (static_cast<int>(p.size()) + budget->batch - 1) / budget->batch;
        if (!make_dirs(dir + "/slurm")) {
          spdlog::error("--out {}: cannot create {}/slurm", dir, dir);
          return 1;
        }
        char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        std::string exe = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : "vtick";
        std::string script = "#!/bin/sh\n# vtick explain: the pending runs of " + absolute(o.target) + " (" +
                             std::to_string(p.size()) + " runs, " + std::to_string(budget->batch) +
                             " per task). Submit, then run the same vtick explain --slurm again.\n"
                             "#SBATCH --job-name=vtick-explain\n#SBATCH --array=0-" + std::to_string(tasks - 1) +
                             "\n#SBATCH --cpus-per-task=1\n#SBATCH --output=" + absolute(dir) + "/slurm/%A_%a.out\nexec " + exe +
                             " explain " + absolute(o.target) + " --out " + absolute(dir) + " --budget " + budget->name +
                             " --index \"$SLURM_ARRAY_TASK_ID\" --quiet\n";
        if (!write_output("--out", dir + "/pending.json", pending_json(p, absolute(o.target), budget->name, budget->batch)) ||
            !write_output("--out", dir + "/explain.sbatch", script))
          return 1;
        spdlog::info("explain: {} runs to do, as {} array tasks: sbatch {}/explain.sbatch (or: seq 0 {} | parallel {} explain {} --out {} "
                     "--index {{}}), then the same vtick explain --slurm again",
                     p.size(), tasks, dir, tasks - 1, exe, o.target, dir);
      } else {
        spdlog::error("explain --collect: {} runs of the plan are not in {}/runs yet (run them: without --collect, or --slurm)", p.size(), dir);
      }
      return kPendingExit;
    }
    if (!o.quiet) spdlog::info("explain: round {}: {} runs", round, p.size());
    std::vector<RunReq> todo = p;
    Progress bar(static_cast<int>(todo.size()), o.quiet);
    std::vector<int> rcs = run_forked(
        static_cast<int>(todo.size()), o.jobs > 0 ? o.jobs : default_jobs(),
        [&](int i) {
          const RunReq& q = todo[static_cast<std::size_t>(i)];
          return run_one(q, ex.run_file(q.hash), target.metric);
        },
        [&](int i, int rc) { bar.step("run " + todo[static_cast<std::size_t>(i)].hash.substr(0, 8), rc == 0); });
    for (std::size_t i = 0; i < rcs.size(); ++i)
      if (rcs[i] == 2 || access(ex.run_file(todo[i].hash).c_str(), F_OK) != 0) {
        spdlog::error("explain: run {} ({}) ended with status {} and left no result: stopping",
                      todo[i].hash, todo[i].scenario, rcs[i]);
        return 1;
      }
    ex.forget_missing();
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<std::uint64_t> seeds;
  for (int s = 1; s <= budget->confirm_seeds; ++s) seeds.push_back(static_cast<std::uint64_t>(s));
  json man = manifest_json(scenarios.front(), seeds);
  res.verdict = explain_verdict(res);
  if (!write_explain_report(res, scenarios, dir, man.dump())) return 1;
  if (!o.quiet) spdlog::info("explain: {} runs, {}; {}/explain.md", res.runs, hms(wall), dir);
  std::printf("%s\n", res.verdict.c_str());
  return 0;
}

}  // namespace vtick
