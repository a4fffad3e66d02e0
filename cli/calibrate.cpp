// vtick calibrate: fits the host model to a vtick-probe profile (docs/probe.md). The
// shape comes from the profile's environment; the host costs that the figures identify are
// fitted by a Latin hypercube and NLopt's Sbplx within their declared ranges, on a log scale, minimising the
// squared log error of every figure over its uncertainty; the uncertainty of each fitted
// value comes from the Jacobian at the optimum.
#include <nlopt.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "sim/fork_pool.hpp"
#include "sim/probe_profile.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"

namespace vtick {

using json = nlohmann::ordered_json;

namespace {

// A fitted parameter: its key, the range searched (the declared one, except the halt-poll
// window: 0 .. 1 ms of its 0 .. 10 ms, where the probe's gaps can see it).
struct FitParam {
  std::string key, unit;
  double dflt, lo, hi;
  bool log;  // log scale (lo > 0)
  bool duration = false;  // written with its unit
  double to_x(double u) const { return log ? lo * std::pow(hi / lo, u) : lo + (hi - lo) * u; }
  double to_u(double x) const { return log ? std::log(x / lo) / std::log(hi / lo) : (x - lo) / (hi - lo); }
};

const char* kFitKeys[] = {"host.costs.vmexit_ns",      "host.costs.ipi_send_ns", "host.costs.vcpu_wakeup_ns",
                          "host.costs.halt_resume_ns", "host.costs.c1_exit_ns",  "host.costs.c6_exit_ns",
                          "host.kvm.halt_poll_ns"};

// The parameters searched: the default list, or --fit's (numeric keys with a range).
std::vector<FitParam> fit_params(const Profile& p, const std::vector<std::string>& keys) {
  PCtx ctx{p.isa, p.arch};
  std::vector<std::string> want = keys;
  if (want.empty())
    for (const char* k : kFitKeys) want.push_back(k);
  std::vector<FitParam> v;
  for (size_t i = 0; i < want.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (want[i] == want[j]) throw InputError("--fit " + want[i] + ": listed twice");
  for (const auto& k : want) {
    bool found = false;
    for (const auto& par : scenario_params()) {
      if (par.key != k) continue;
      if (!par.applies(ctx)) throw InputError("--fit " + k + ": not a key of " + p.isa + " (this profile's architecture)");
      if (!par.has_range() || (par.kind != PKind::Int && par.kind != PKind::Float && par.kind != PKind::Duration))
        throw InputError("--fit " + k + ": not a numeric key with a range");
      found = true;
      auto [lo, hi] = par.range_for(ctx);
      double d = pvalue_number(par.default_for(ctx));
      if (par.key == "host.kvm.halt_poll_ns") hi = std::min(hi, 1e6);
      v.push_back({par.key, par.unit, d, lo, hi, lo > 0, par.kind == PKind::Duration});
    }
    if (!found) throw InputError("--fit " + k + ": no such key (vtick list params)");
  }
  return v;
}

std::string sets_value(const FitParam& f, double x) { return f.key + "=" + std::to_string(std::llround(x)) + (f.duration ? "ns" : ""); }

// One null exit as KVM charges it: the world switch and the entry mitigations (vmx.c).
double exit_round_trip(const Scenario& sc) {
  return static_cast<double>(sc.costs.vmexit_ns) + (sc.host.mds_clear ? static_cast<double>(sc.costs.mds_clear_ns) : 0) +
         (sc.host.l1d_flush == L1dFlush::Always ? static_cast<double>(sc.costs.l1d_flush_ns) : 0);
}

// value(i) for each i of `which`, each in a forked child (one SimGrid engine per process),
// `jobs` at a time; the children hand their number back through a file in `dir`.
std::vector<double> forked_values(const std::vector<size_t>& which, size_t n, int jobs, const std::string& dir,
                                  const std::function<double(size_t)>& value) {
  auto path = [&](size_t i) { return dir + "/fig" + std::to_string(i) + ".val"; };
  run_forked(static_cast<int>(which.size()), jobs,
             [&](int w) {
               size_t i = which[static_cast<size_t>(w)];
               try {
                 double v = value(i);
                 FILE* o = std::fopen(path(i).c_str(), "w");
                 if (!o) return 1;
                 std::fprintf(o, "%.17g\n", v);
                 return std::fclose(o) == 0 ? 0 : 1;
               } catch (const std::exception& e) {
                 std::fprintf(stderr, "vtick calibrate: %s\n", e.what());
                 return 2;
               }
             },
             [](int, int) {});
  std::vector<double> out(n, NAN);
  for (size_t i : which) {
    FILE* f = std::fopen(path(i).c_str(), "r");
    if (f && std::fscanf(f, "%lf", &out[i]) != 1) out[i] = NAN;
    if (f) std::fclose(f);
    std::remove(path(i).c_str());
  }
  return out;
}

struct Evaluator {
  const Profile& p;
  std::vector<ProbeFigure> figs;
  std::vector<FitParam> params;
  std::vector<std::string> user_sets;
  std::string dir, base_path;
  std::vector<std::string> fig_paths;
  int jobs;
  bool quiet;
  int evals = 0;
  std::map<std::vector<long long>, std::vector<double>> cache;

  std::vector<std::string> sets_for(const std::vector<double>& x) const {
    std::vector<std::string> s = user_sets;
    for (size_t i = 0; i < params.size(); ++i) s.push_back(sets_value(params[i], x[i]));
    return s;
  }

  // vtick's figures at parameter values x (one forked run per figure; the exit is computed).
  // (only the figures of `use`; the others are NaN)
  std::vector<double> figures(const std::vector<double>& x, const std::vector<bool>& use) {
    std::vector<long long> k;
    for (double v : x) k.push_back(std::llround(v));
    for (bool b : use) k.push_back(b);
    if (auto it = cache.find(k); it != cache.end()) return it->second;
    ++evals;
    std::vector<std::string> sets = sets_for(x);
    std::vector<size_t> which;
    for (size_t i = 0; i < figs.size(); ++i)
      if (use[i]) which.push_back(i);
    std::vector<double> out = forked_values(which, figs.size(), jobs, dir, [&](size_t i) {
      const ProbeFigure& f = figs[i];
      if (f.exp == ProbeExperiment::ExitCost) return exit_round_trip(load_scenario(base_path, sets));
      std::vector<std::string> s = sets;
      std::vector<std::string> fs = figure_sets(f);  // the scenario file is written once
      s.insert(s.end(), fs.begin(), fs.end());
      return figure_value(f, run_simulation(load_scenario(fig_paths[i], s)));
    });
    cache[k] = out;
    return out;
  }

  // residual of figure i: log error over its uncertainty
  static double residual(const ProbeFigure& f, double sim) {
    if (!std::isfinite(sim)) return 10.0 / f.rel_sigma;
    return std::log(std::max(sim, 100.0) / std::max(f.value, 100.0)) / f.rel_sigma;
  }
  std::vector<double> residuals(const std::vector<double>& x, const std::vector<bool>& use) {
    auto v = figures(x, use);
    std::vector<double> r;
    for (size_t i = 0; i < figs.size(); ++i)
      if (use[i]) r.push_back(residual(figs[i], v[i]));
    return r;
  }
};

struct FitResult {
  std::vector<double> x, sigma_ln;  // sigma of ln x (log params) or of x (linear); NaN: not identifiable
  std::vector<bool> identifiable;
  double chi2 = 0;
  double chi2_consistent = 0;  // the largest chi2 consistent with the profile's noise
  bool consistent = false;     // the best point is
  int n = 0;
};

// Gauss-Jordan inverse of a small symmetric matrix; false if singular.
bool invert(std::vector<std::vector<double>>& a) {
  size_t n = a.size();
  std::vector<std::vector<double>> inv(n, std::vector<double>(n, 0));
  for (size_t i = 0; i < n; ++i) inv[i][i] = 1;
  for (size_t c = 0; c < n; ++c) {
    size_t piv = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[piv][c])) piv = r;
    if (std::fabs(a[piv][c]) < 1e-12) return false;
    std::swap(a[c], a[piv]);
    std::swap(inv[c], inv[piv]);
    double d = a[c][c];
    for (size_t k = 0; k < n; ++k) a[c][k] /= d, inv[c][k] /= d;
    for (size_t r = 0; r < n; ++r)
      if (r != c) {
        double f = a[r][c];
        for (size_t k = 0; k < n; ++k) a[r][k] -= f * a[c][k], inv[r][k] -= f * inv[c][k];
      }
  }
  a = inv;
  return true;
}

FitResult fit(Evaluator& ev, const std::vector<bool>& use, int max_evals) {
  size_t k = ev.params.size();
  auto to_x = [&](const std::vector<double>& uu) {
    std::vector<double> x(k);
    for (size_t i = 0; i < k; ++i) x[i] = ev.params[i].to_x(std::clamp(uu[i], 0.0, 1.0));
    return x;
  };
  double best_seen = INFINITY;
  std::vector<std::pair<double, std::vector<double>>> seen;  // every point evaluated
  auto chi2_at = [&](const std::vector<double>& uv) {
    double chi2 = 0;
    for (double r : ev.residuals(to_x(uv), use)) chi2 += r * r;
    seen.push_back({chi2, uv});
    best_seen = std::min(best_seen, chi2);
    if (!ev.quiet && (isatty(2) || ev.evals % 10 == 0))
      std::fprintf(stderr, isatty(2) ? "\rvtick calibrate: evaluation %d, chi2 %.1f (best %.1f)   "
                                     : "vtick calibrate: evaluation %d, chi2 %.1f (best %.1f)\n",
                   ev.evals, chi2, best_seen);
    return chi2;
  };
  // 1. a space-filling start: the defaults and a Latin hypercube of 6k points (seeded:
  //    the same profile gives the same fit), half of the evaluations at most
  std::vector<std::pair<double, std::vector<double>>> starts;
  std::vector<double> u0(k);
  for (size_t i = 0; i < k; ++i) u0[i] = std::clamp(ev.params[i].to_u(ev.params[i].dflt), 0.0, 1.0);
  starts.push_back({chi2_at(u0), u0});
  int n_lhs = std::min<int>(static_cast<int>(6 * k), max_evals / 2);
  std::mt19937_64 gen(1);
  auto unit = [&] { return static_cast<double>(gen() >> 11) * 0x1.0p-53; };
  std::vector<std::vector<int>> perm(k);
  for (auto& pm : perm) {
    for (int i = 0; i < n_lhs; ++i) pm.push_back(i);
    for (int i = n_lhs - 1; i > 0; --i) std::swap(pm[static_cast<size_t>(i)], pm[static_cast<size_t>(gen() % static_cast<unsigned>(i + 1))]);
  }
  for (int s = 0; s < n_lhs; ++s) {
    std::vector<double> u(k);
    for (size_t i = 0; i < k; ++i) u[i] = (perm[i][static_cast<size_t>(s)] + unit()) / n_lhs;
    starts.push_back({chi2_at(u), u});
  }
  std::sort(starts.begin(), starts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // 2. Sbplx from the three best starts, the rest of the evaluations shared
  std::function<double(const std::vector<double>&)> objective = chi2_at;
  std::vector<double> best_u = starts[0].second;
  double best = starts[0].first;
  int left = max_evals - ev.evals;
  const size_t n_local = std::min<size_t>(3, starts.size());
  for (size_t s = 0; k > 0 && s < n_local && left > static_cast<int>(k) + 2; ++s) {
    std::vector<double> u = starts[s].second;
    nlopt::opt opt(nlopt::LN_SBPLX, static_cast<unsigned>(k));
    opt.set_lower_bounds(std::vector<double>(k, 0.0));
    opt.set_upper_bounds(std::vector<double>(k, 1.0));
    opt.set_maxeval(left / static_cast<int>(n_local - s));
    opt.set_xtol_abs(0.0005);
    opt.set_initial_step(std::vector<double>(k, 0.1));
    opt.set_min_objective(
        [](unsigned n, const double* uu, double*, void* data) {
          auto* f = static_cast<std::function<double(const std::vector<double>&)>*>(data);
          return (*f)(std::vector<double>(uu, uu + n));
        },
        &objective);
    double minf = INFINITY;
    int before = ev.evals;
    try {
      opt.optimize(u, minf);
    } catch (const std::exception& e) {  // a stop at the evaluation limit or a roundoff limit keeps the point
      spdlog::debug("nlopt: {}", e.what());
    }
    left -= ev.evals - before;
    double c = chi2_at(u);
    if (c < best) best = c, best_u = u;
  }
  std::vector<double> u = best_u;
  if (!ev.quiet && isatty(2)) std::fprintf(stderr, "\n");
  FitResult fr;
  fr.x = to_x(u);
  auto r0 = ev.residuals(fr.x, use);
  for (double r : r0) fr.chi2 += r * r;
  fr.n = static_cast<int>(r0.size());
  // Jacobian in u, forward (backward at the upper bound) differences
  // central differences over a tenth of each range (one-sided at a bound): the figures
  // are staircases in some costs (a C-state or a poll window crossing a gap), so a step
  // that spans a stair measures the slope that matters
  const double h = 0.1;
  std::vector<std::vector<double>> J(r0.size(), std::vector<double>(k));
  std::vector<double> colnorm(k, 0);
  for (size_t j = 0; j < k; ++j) {
    std::vector<double> up = u, down = u;
    up[j] = std::min(1.0, u[j] + h / 2);
    down[j] = std::max(0.0, u[j] - h / 2);
    auto r1 = ev.residuals(to_x(up), use), r2 = ev.residuals(to_x(down), use);
    for (size_t i = 0; i < r0.size(); ++i) {
      J[i][j] = (r1[i] - r2[i]) / (up[j] - down[j]);
      colnorm[j] += J[i][j] * J[i][j];
    }
    colnorm[j] = std::sqrt(colnorm[j]);
  }
  // parameters that move no figure are not identifiable; the rest get (J^T J)^-1
  std::vector<size_t> idx;
  for (size_t j = 0; j < k; ++j)
    if (colnorm[j] > 0.5) idx.push_back(j);
  fr.sigma_ln.assign(k, NAN);
  fr.identifiable.assign(k, false);
  double dof = std::max(1.0, fr.n - static_cast<double>(idx.size()));
  double scale = std::max(1.0, fr.chi2 / dof);
  fr.chi2_consistent = dof + 2 * std::sqrt(2 * dof);
  fr.consistent = fr.chi2 <= fr.chi2_consistent;
  while (!idx.empty()) {
    std::vector<std::vector<double>> A(idx.size(), std::vector<double>(idx.size(), 0));
    for (size_t a = 0; a < idx.size(); ++a)
      for (size_t b = 0; b < idx.size(); ++b)
        for (size_t i = 0; i < r0.size(); ++i) A[a][b] += J[i][idx[a]] * J[i][idx[b]];
    if (invert(A)) {
      for (size_t a = 0; a < idx.size(); ++a) {
        size_t j = idx[a];
        double su = std::sqrt(std::max(0.0, A[a][a]) * scale);
        const FitParam& f = ev.params[j];
        // 4. every point evaluated that is consistent with the profile (chi2 within the
        //    ~95 % range of its chi2 distribution, dof + 2 sqrt(2 dof)) and puts this
        //    parameter elsewhere widens its interval to half that distance: the local
        //    slope alone is overconfident where figures are staircases in the costs
        if (fr.consistent)
          for (const auto& [c, us] : seen)
            if (c <= fr.chi2_consistent) su = std::max(su, std::fabs(us[j] - u[j]) / 2);
        fr.sigma_ln[j] = f.log ? su * std::log(f.hi / f.lo) : su * (f.hi - f.lo);
        fr.identifiable[j] = su < 0.2;  // the 1-sigma interval spans < 1/5 of the range searched
      }
      break;
    }
    // singular: drop the weakest column and try again
    size_t weakest = 0;
    for (size_t a = 1; a < idx.size(); ++a)
      if (colnorm[idx[a]] < colnorm[idx[weakest]]) weakest = a;
    idx.erase(idx.begin() + static_cast<long>(weakest));
  }
  return fr;
}

std::string fmt_ns(double v) {
  char b[64];
  if (!std::isfinite(v)) return "n/a";
  if (std::fabs(v) >= 1e6) std::snprintf(b, sizeof b, "%.3g ms", v / 1e6);
  else if (std::fabs(v) >= 1e3) std::snprintf(b, sizeof b, "%.3g us", v / 1e3);
  else std::snprintf(b, sizeof b, "%.0f ns", v);
  return b;
}

std::string uncertainty_text(const FitParam& f, const FitResult& r, size_t j) {
  if (!r.identifiable[j]) return "not identifiable from this profile";
  char b[64];
  if (f.log) std::snprintf(b, sizeof b, "x/ %.2f", std::exp(r.sigma_ln[j]));
  else std::snprintf(b, sizeof b, "+- %s", fmt_ns(r.sigma_ln[j]).c_str());
  return b;
}

int calibrate(const CalibrateOptions& o, const Profile& p);

// A profile computed by vtick itself (the identifiability test's input): the scenario's
// environment and the catalogue's figures, with no statistics but the p50.
int synthesize(const CalibrateOptions& o) {
  Scenario sc = load_scenario(o.synthesize, o.sets);
  std::ifstream in(o.synthesize);
  std::stringstream text;
  text << in.rdbuf();
  std::string base = text.str();
  json prof;
  prof["schema"] = "vtick-probe/1";
  prof["probe_version"] = "vtick calibrate --synthesize";
  prof["started"] = "1970-01-01T00:00:00Z";
  prof["quick"] = true;
  bool x86 = sc.costs.isa == Isa::X86_64;
  json env;
  env["arch"] = x86 ? "x86_64" : "aarch64";
  env["kernel"] = "vtick";
  env["cmdline"] = sc.guest.cmdline;
  env["cpu_model"] = {{"name", sc.costs.name}, {"vendor", sc.costs.name == "milan" ? "AuthenticAMD" : x86 ? "GenuineIntel" : "0x41"},
                      {"tsc_deadline_timer", x86}};
  env["hypervisor"] = {{"signature", "KVMKVMKVM"}};
  env["config"] = {{"source", "vtick"}, {"CONFIG_HZ", std::to_string(sc.guest.hz)}, {"CONFIG_NO_HZ_IDLE", "y"}, {"CONFIG_NO_HZ_FULL", "n"}};
  int n = sc.shape.cores * sc.shape.threads_per_core;
  env["online_cpus"] = n;
  json cpus = json::array();
  for (int c = 0; c < n; ++c) {
    int t = sc.shape.threads_per_core;
    int first = c / t * t;
    cpus.push_back({{"cpu", c}, {"online", true}, {"core_id", c / t}, {"package_id", 0},
                    {"thread_siblings", t > 1 ? std::to_string(first) + "-" + std::to_string(first + t - 1) : std::to_string(c)}});
  }
  env["cpus"] = cpus;
  std::string drv = sc.guest.cpuidle.driver == CpuidleDriver::Haltpoll ? "haltpoll" : "none";
  json hp = json::object();
  if (drv == "haltpoll") hp["guest_halt_poll_ns"] = std::to_string(sc.guest.cpuidle.haltpoll.guest_halt_poll_ns);
  env["cpuidle"] = {{"driver", drv == "none" ? json() : json(drv)}, {"governor", drv == "none" ? json() : json("haltpoll")},
                    {"states", json::array()}, {"haltpoll", hp}};
  env["clocksource"] = "tsc";
  env["clockevent"] = x86 ? "lapic-deadline" : "arch_sys_timer";
  env["timer_slack_ns"] = 50000;
  env["user_hz"] = 100;
  env["vulnerabilities"] = {{"mds", sc.host.mds_clear ? "Mitigation: Clear CPU buffers" : "Not affected"},
                            {"l1tf", sc.host.l1d_flush == L1dFlush::Never ? "Not affected" : "Mitigation: PTE Inversion"}};
  env["cpu_a"] = 0;
  env["cpu_b"] = 1;
  prof["environment"] = env;

  std::vector<ProbeFigure> cat = probe_figure_catalogue();
  for (auto& f : cat)
    if (f.slack == -1) f.slack = 50000;
  char tmpl[] = "/tmp/vtick-synth-XXXXXX";
  if (!mkdtemp(tmpl)) return 1;
  std::string dir = tmpl;
  std::vector<size_t> all(cat.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::vector<double> v = forked_values(all, cat.size(), o.jobs > 0 ? o.jobs : default_jobs(), dir, [&](size_t i) {
    const ProbeFigure& f = cat[i];
    if (f.exp == ProbeExperiment::ExitCost) return exit_round_trip(sc);
    ProbeRun r = figure_run(base, f);
    std::string path = dir + "/s" + std::to_string(i) + ".toml";
    std::ofstream(path) << r.toml;
    std::vector<std::string> s = o.sets;
    s.insert(s.end(), r.sets.begin(), r.sets.end());
    RunResult res = run_simulation(load_scenario(path, s));
    std::remove(path.c_str());
    return figure_value(f, res);
  });
  rmdir(dir.c_str());
  auto stats = [](double x) {
    return json{{"unit", "ns"}, {"n", 200}, {"min", x}, {"p10", x}, {"p50", x}, {"p90", x}, {"p99", x}, {"max", x}, {"mean", x}};
  };
  json fig;
  fig["exit_cost"] = {{"method", "vtick"}, {"syscall_ns", stats(100)}, {"cpuid_ns", stats(v[0] + 100)}};
  fig["pingpong"] = {{"method", "vtick"}, {"round_trip_ns", stats(v[1])}};
  json wp = json::array(), tp = json::array();
  for (size_t i = 2; i < cat.size(); ++i) {
    const ProbeFigure& f = cat[i];
    if (f.exp == ProbeExperiment::WakeSpin || f.exp == ProbeExperiment::WakeSleep)
      wp.push_back({{"mode", f.exp == ProbeExperiment::WakeSpin ? "spin" : "sleep"}, {"gap_ns", f.arg},
                    {"round_trip_ns", stats(v[i])}, {"one_way_ns", stats(v[i] / 2)}});
    else
      tp.push_back({{"busy", f.exp == ProbeExperiment::TimerBusy}, {"slack_ns", f.slack}, {"length_ns", f.arg},
                    {"overshoot_ns", stats(v[i])}});
  }
  fig["wake_after_idle"] = {{"method", "vtick"}, {"points", wp}};
  fig["timer_overshoot"] = {{"method", "vtick"}, {"cpu", 1}, {"default_slack_ns", 50000}, {"points", tp}};
  prof["figures"] = fig;
  prof["steal"] = {{"method", "vtick"}, {"cpus", json::array()}};
  prof["duration_s"] = 1;
  return write_output("-o", o.out, prof.dump(2) + "\n") ? 0 : 1;
}

}  // namespace

int cmd_calibrate(const CalibrateOptions& o) {
  try {
    if (!o.synthesize.empty()) return synthesize(o);
    Profile p = load_profile(o.profile);
    return calibrate(o, p);
  } catch (const InputError& e) {
    spdlog::error("{}", e.what());
    return 2;
  }
}

namespace {
int calibrate(const CalibrateOptions& o, const Profile& p) {
  std::string base = profile_base_toml(p);
  char tmpl[] = "/tmp/vtick-calibrate-XXXXXX";
  if (!mkdtemp(tmpl)) {
    spdlog::error("calibrate: cannot create a temporary directory");
    return 1;
  }
  Evaluator ev{p, p.figures, fit_params(p, o.fit_keys), o.sets, tmpl, std::string(tmpl) + "/base.toml", {}, o.jobs > 0 ? o.jobs : default_jobs(), o.quiet, 0, {}};
  std::ofstream(ev.base_path) << base;
  for (size_t i = 0; i < ev.figs.size(); ++i) {
    ev.fig_paths.push_back(ev.dir + "/f" + std::to_string(i) + ".toml");
    std::ofstream(ev.fig_paths.back()) << figure_run(base, ev.figs[i]).toml;
  }
  Scenario check = load_scenario(ev.base_path, o.sets);  // the shape and the user's --set are valid
  (void)check;
  if (!o.scenarios_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.scenarios_dir, ec);
    if (ec) {
      spdlog::error("--scenarios {}: cannot create the directory ({})", o.scenarios_dir, ec.message());
      return 2;
    }
    for (const auto& f : ev.figs) {
      if (f.exp == ProbeExperiment::ExitCost) continue;
      ProbeRun r = figure_run(base, f);
      std::string text = "# vtick calibrate: the experiment of figure " + f.id + " (its p50; run with";
      for (const auto& s : r.sets) text += " --set " + s;
      text += ")\n" + r.toml;
      if (!write_output("--scenarios", o.scenarios_dir + "/" + f.id + ".toml", text)) return 2;
    }
    std::printf("wrote %zu scenarios to %s\n", ev.figs.size() - 1, o.scenarios_dir.c_str());
  }
  std::vector<bool> use(ev.figs.size(), true);
  if (o.check)
    for (size_t i = 0; i < ev.figs.size(); ++i) use[i] = ev.figs[i].fit;
  int used = 0;
  for (bool b : use) used += b;
  std::printf("vtick calibrate: %s (%s, kernel %s; %d vCPUs as %d x %d, HZ=%d from %s, cpuidle %s)\n", p.path.c_str(),
              p.cpu_name.c_str(), p.kernel.c_str(), p.cores * p.threads_per_core, p.cores, p.threads_per_core, p.hz,
              p.hz_from.c_str(), p.cpuidle_driver.c_str());
  for (const auto& n : p.notes) std::printf("  assumed: %s\n", n.c_str());
  // The exit figure is one null exit plus the entry mitigations: it gives vmexit_ns
  // directly (within its range), and the search runs over the others.
  std::optional<FitParam> pinned;
  double pinned_x = 0, pinned_sigma = 0, pinned_raw = 0;
  size_t pin_at = 0;
  while (pin_at < ev.params.size() && ev.params[pin_at].key != "host.costs.vmexit_ns") ++pin_at;
  for (size_t i = 0; i < ev.figs.size(); ++i) {
    if (ev.figs[i].exp != ProbeExperiment::ExitCost || !use[i] || pin_at == ev.params.size()) continue;
    Scenario sc = load_scenario(ev.base_path, o.sets);
    double mit = exit_round_trip(sc) - static_cast<double>(sc.costs.vmexit_ns);
    pinned = ev.params[pin_at];
    pinned_raw = ev.figs[i].value - mit;
    pinned_x = std::clamp(pinned_raw, pinned->lo, pinned->hi);
    pinned_sigma = ev.figs[i].rel_sigma * ev.figs[i].value / std::max(1.0, ev.figs[i].value - mit);
    ev.params.erase(ev.params.begin() + static_cast<long>(pin_at));
    ev.user_sets.push_back(sets_value(*pinned, pinned_x));
    std::printf("host.costs.vmexit_ns from the exit figure: %s (CPUID %s over getppid(), less %s of entry mitigations)%s\n",
                fmt_ns(pinned_x).c_str(), fmt_ns(ev.figs[i].value).c_str(), fmt_ns(mit).c_str(),
                pinned_x != pinned_raw ? ", clamped to its documented range" : "");
  }
  std::printf("fitting %zu parameters on %d of %zu figures%s (a Latin hypercube, then NLopt's Sbplx; at most %d evaluations)\n",
              ev.params.size(), used, ev.figs.size(), o.check ? " (--check: the rest are predicted)" : "", o.max_evals);
  FitResult fr = fit(ev, use, o.max_evals);
  if (pinned) {  // back in its place, for the tables
    auto at = static_cast<long>(pin_at);
    ev.params.insert(ev.params.begin() + at, *pinned);
    ev.user_sets.pop_back();
    fr.x.insert(fr.x.begin() + at, pinned_x);
    fr.sigma_ln.insert(fr.sigma_ln.begin() + at, std::log1p(pinned_sigma));
    fr.identifiable.insert(fr.identifiable.begin() + at, pinned_x > pinned->lo && pinned_x < pinned->hi);
  }
  auto sim = ev.figures(fr.x, std::vector<bool>(ev.figs.size(), true));
  for (size_t i = 0; i < ev.figs.size(); ++i) std::remove(ev.fig_paths[i].c_str());
  std::remove(ev.base_path.c_str());
  rmdir(ev.dir.c_str());

  std::printf("\n%-28s %-10s %-10s %-36s %s\n", "parameter", "default", "fitted", "uncertainty (1 sigma)", "range searched");
  for (size_t j = 0; j < ev.params.size(); ++j) {
    const FitParam& f = ev.params[j];
    bool edge = f.to_u(fr.x[j]) < 0.01 || f.to_u(fr.x[j]) > 0.99;
    std::string unc = uncertainty_text(f, fr, j);
    if (pinned && j == pin_at && edge) unc = "outside its range (exit: " + fmt_ns(pinned_raw) + ")";
    std::printf("%-28s %-10s %-10s %-36s %s .. %s%s\n", f.key.c_str(), fmt_ns(f.dflt).c_str(), fmt_ns(fr.x[j]).c_str(),
                unc.c_str(), fmt_ns(f.lo).c_str(), fmt_ns(f.hi).c_str(), edge ? " (at its edge)" : "");
  }
  std::printf("\n%-28s %-10s %-10s %-9s %s\n", "figure (p50)", "measured", "vtick", "error", o.check ? "role" : "");
  double chi_fit = 0, chi_held = 0;
  int n_held = 0;
  json figs = json::array();
  for (size_t i = 0; i < ev.figs.size(); ++i) {
    const ProbeFigure& f = ev.figs[i];
    double err = 100.0 * (sim[i] - f.value) / f.value;
    double r = Evaluator::residual(f, sim[i]);
    (use[i] ? chi_fit : chi_held) += r * r;
    n_held += !use[i];
    std::printf("%-28s %-10s %-10s %+7.1f %%  %s\n", f.id.c_str(), fmt_ns(f.value).c_str(), fmt_ns(sim[i]).c_str(), err,
                o.check ? (use[i] ? "fit" : "predicted") : "");
    figs.push_back({{"id", f.id}, {"measured_ns", f.value}, {"vtick_ns", sim[i]}, {"error_pct", err},
                    {"rel_sigma", f.rel_sigma}, {"role", use[i] ? "fit" : "predicted"}});
  }
  if (!fr.consistent)
    std::printf("\nThe best fit is not consistent with the profile's noise (chi2 %.0f > %.0f): vtick does not reproduce these "
                "figures within their uncertainty, and the intervals above are the local ones, scaled by chi2 per degree of "
                "freedom.\n", fr.chi2, fr.chi2_consistent);
  std::printf("\nchi2 %.1f over %d fitted figures", chi_fit, used);
  if (o.check && n_held) std::printf("; held back: chi2 %.1f over %d predicted figures", chi_held, n_held);
  std::printf(" (%d evaluations)\n", ev.evals);

  json params = json::array();
  std::ostringstream toml;
  toml << base << "\n[host.costs]  # fitted by vtick calibrate (1 sigma in the comments)\n";
  std::ostringstream kvm;
  for (size_t j = 0; j < ev.params.size(); ++j) {
    const FitParam& f = ev.params[j];
    params.push_back({{"key", f.key}, {"default", f.dflt}, {"fitted", fr.x[j]}, {"identifiable", bool(fr.identifiable[j])},
                      {"sigma", fr.identifiable[j] ? json(fr.sigma_ln[j]) : json()}, {"log_scale", f.log},
                      {"lo", f.lo}, {"hi", f.hi}});
    std::string line = f.key.substr(f.key.rfind('.') + 1) + " = " + std::to_string(std::llround(fr.x[j])) + "  # " +
                       uncertainty_text(f, fr, j) + "\n";
    if (f.key.rfind("host.costs.", 0) == 0) toml << line;
    else kvm << line;
  }
  toml << "\n[host.kvm]\n" << kvm.str();
  toml << "\n# [workload]: the built-in default; add your own, or run with --set workload.kind=...\n";
  if (!o.out.empty() && !write_output("-o", o.out, toml.str())) return 1;
  if (!o.json_path.empty()) {
    json rep{{"profile", p.path}, {"check", o.check}, {"evaluations", ev.evals}, {"chi2_fit", chi_fit},
             {"consistent", fr.consistent}, {"chi2_consistent", fr.chi2_consistent},
             {"chi2_predicted", chi_held}, {"parameters", params}, {"figures", figs}};
    if (!write_output("--json", o.json_path, rep.dump(2) + "\n")) return 1;
  }
  if (!o.out.empty()) std::printf("wrote %s: vtick run %s; vtick compare %s --policies legacy,got_tick,loehle\n", o.out.c_str(),
                                  o.out.c_str(), o.out.c_str());
  return 0;
}

}  // namespace

}  // namespace vtick
