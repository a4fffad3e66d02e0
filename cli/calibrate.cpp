// vtick calibrate: fits the host model to a vtick-probe profile (docs/probe.md). The
// shape comes from the profile's environment; the host costs and choices that the figures
// identify are fitted within their declared ranges (calibrate_fit.cpp), minimising the
// squared log error of every figure over its uncertainty.
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

#include "study/calibrate_fit.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "sim/fork_pool.hpp"
#include "sim/probe_profile.hpp"
#include "sim/scenario.hpp"
#include "sim/toml_text.hpp"
#include "sim/simulation.hpp"

namespace vtick {

using json = nlohmann::ordered_json;

namespace {

// The default search: the exit and the wake path's costs, the host's C-state exits, and
// the choices the figures are staircases in: the halt-poll window (between the probe's
// gaps), timer advance (x86) and the host's idle governor.
const char* kFitKeys[] = {"host.costs.vmexit_ns",      "host.costs.ipi_send_ns", "host.costs.vcpu_wakeup_ns",
                          "host.costs.halt_resume_ns", "host.costs.c1_exit_ns",  "host.costs.c6_exit_ns",
                          "host.kvm.halt_poll_ns",     "host.kvm.lapic_timer_advance", "host.idle_governor"};

std::string fmt_ns(double v);

// The halt-poll window's levels: off, and one per interval between the profile's wake
// gaps up to 1 ms (of its 0 .. 10 ms range): a window anywhere inside an interval polls
// the same gaps, so the figures cannot tell its values apart. Each level is the default
// when the default lies inside it, else the interval's geometric middle.
void halt_poll_levels(FitParam& f, const Profile& p) {
  std::vector<double> gaps;
  for (const auto& fig : p.figures)
    if ((fig.exp == ProbeExperiment::WakeSpin || fig.exp == ProbeExperiment::WakeSleep) && fig.arg < f.hi)
      gaps.push_back(static_cast<double>(fig.arg));
  std::sort(gaps.begin(), gaps.end());
  gaps.erase(std::unique(gaps.begin(), gaps.end()), gaps.end());
  gaps.push_back(f.hi);
  f.levels = {"0"};
  f.level_text = {"0 (off)"};
  double lo = 0, dflt_level = 0;
  for (double g : gaps) {
    bool holds_default = f.dflt > lo && f.dflt <= g;
    double v = holds_default ? f.dflt : lo > 0 ? std::sqrt(lo * g) : g / 2;
    if (holds_default) dflt_level = static_cast<double>(f.levels.size());
    f.levels.push_back(std::to_string(std::llround(v)));
    f.level_text.push_back(fmt_ns(v) + " (" + (lo > 0 ? fmt_ns(lo) : "0") + " .. " + fmt_ns(g) + ")");
    lo = g;
  }
  f.dflt = dflt_level;  // from here on a level index, as for every choice
}

// The parameters searched: the default list (the keys of the profile's architecture), or
// --fit's (numeric keys with a range, booleans, enums).
std::vector<FitParam> fit_params(const Profile& p, const std::vector<std::string>& keys) {
  PCtx ctx{p.isa, p.arch};
  std::vector<std::string> want = keys;
  if (want.empty())
    for (const char* k : kFitKeys)
      for (const auto& par : scenario_params())
        if (par.key == k && par.applies(ctx)) want.push_back(k);
  std::vector<FitParam> v;
  for (size_t i = 0; i < want.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (want[i] == want[j]) throw InputError("--fit " + want[i] + ": listed twice");
  for (const auto& k : want) {
    bool found = false;
    for (const auto& par : scenario_params()) {
      if (par.key != k) continue;
      if (!par.applies(ctx)) throw InputError("--fit " + k + ": not a key of " + p.isa + " (this profile's architecture)");
      found = true;
      PValue d = par.default_for(ctx);
      if (par.kind == PKind::Bool || par.kind == PKind::Enum) {
        FitParam f{par.key, par.unit, 0, 0, 0, false, false, {}, {}};
        std::vector<std::string> names = par.kind == PKind::Bool ? std::vector<std::string>{"false", "true"} : par.choices;
        for (const auto& n : names) {
          PValue pv = par.kind == PKind::Bool ? PValue{n == "true"} : PValue{n};
          if (!par.check_value(pv, ctx).empty()) continue;
          if (pvalue_text(pv) == pvalue_text(d)) f.dflt = static_cast<double>(f.levels.size());
          f.levels.push_back(n);
          f.level_text.push_back(n);
        }
        v.push_back(f);
        continue;
      }
      if (!par.has_range() || (par.kind != PKind::Int && par.kind != PKind::Float && par.kind != PKind::Duration))
        throw InputError("--fit " + k + ": not a numeric key with a range, a boolean or a choice");
      auto [lo, hi] = par.range_for(ctx);
      FitParam f{par.key, par.unit, pvalue_number(d), lo, hi, lo > 0, par.kind == PKind::Duration, {}, {}};
      if (par.key == "host.kvm.halt_poll_ns") {
        f.hi = std::min(hi, 1e6);
        halt_poll_levels(f, p);
      }
      v.push_back(f);
    }
    if (!found) throw InputError("--fit " + k + ": no such key (vtick list params)");
  }
  return v;
}


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
    for (size_t i = 0; i < params.size(); ++i) s.push_back(params[i].set_text(x[i]));
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

std::string fmt_ns(double v) {
  char b[64];
  if (!std::isfinite(v)) return "n/a";
  if (std::fabs(v) >= 1e6) std::snprintf(b, sizeof b, "%.3g ms", v / 1e6);
  else if (std::fabs(v) >= 1e3) std::snprintf(b, sizeof b, "%.3g us", v / 1e3);
  else std::snprintf(b, sizeof b, "%.0f ns", v);
  return b;
}

std::string uncertainty_text(const FitParam& f, const FitResult& r, size_t j) {
  char b[160];
  if (f.discrete()) {
    if (r.runner_up[j] < 0) return "the only level";
    std::snprintf(b, sizeof b, "%s: next %s at delta chi2 %.1f", r.identifiable[j] ? "identified" : "not identifiable",
                  f.level_text[static_cast<size_t>(r.runner_up[j])].c_str(), r.delta_chi2[j]);
    return b;
  }
  if (!r.identifiable[j]) return "not identifiable from this profile";
  if (f.log) std::snprintf(b, sizeof b, "x/ %.2f", std::exp(r.sigma_ln[j]));
  else std::snprintf(b, sizeof b, "+- %s", fmt_ns(r.sigma_ln[j]).c_str());
  return b;
}

// A value as a scenario file writes it.
std::string toml_value(const FitParam& f, double x) {
  if (f.discrete()) {
    const std::string& v = f.levels[static_cast<size_t>(x)];
    bool bare = v == "true" || v == "false" || v.find_first_not_of("0123456789") == std::string::npos;
    return bare ? v : "\"" + v + "\"";
  }
  return f.duration ? "\"" + std::to_string(std::llround(x)) + "ns\"" : std::to_string(std::llround(x));
}

// What the fit says about the VM: calibrated, outside the model's ranges, or outside its
// structure (the figures it misses most).
std::string verdict(const FitResult& fr, const std::vector<std::string>& edges) {
  if (fr.consistent) return "calibrated: vtick reproduces the fitted figures within their noise";
  std::string v = "outside the model: the best fit misses the figures beyond their noise";
  if (!edges.empty()) {
    v += ", with " + std::to_string(edges.size()) + " parameter(s) at the edge of the documented range (";
    for (size_t i = 0; i < edges.size(); ++i) v += (i ? ", " : "") + edges[i];
    v += "): this host is not one the ranges describe (a nested or emulated host, or a cost the model lacks); the "
         "scenario written is the nearest model, not a calibration";
  } else {
    v += " with every parameter inside its range: a path of this host that the model lacks";
  }
  return v;
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
  // the experiments add their own [workload] (and [run]): a scenario with one would make
  // every experiment's TOML invalid
  for (const char* table : {"workload", "run"}) {
    toml::table t = parse_toml_file(o.synthesize);
    if (t.contains(table))
      throw InputError(o.synthesize + ": --synthesize needs a scenario without [" + table +
                       "] (the machine only, as vtick calibrate writes it): each figure's experiment adds its own");
  }
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
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]) && cat[i].exp != ProbeExperiment::IrqRate) {
      spdlog::error("calibrate --synthesize {}: the experiment of figure {} gave no value; no profile written", o.synthesize, cat[i].id);
      return 1;
    }
  auto stats = [](double x) {
    return json{{"unit", "ns"}, {"n", 200}, {"min", x}, {"p10", x}, {"p50", x}, {"p90", x}, {"p99", x}, {"max", x}, {"mean", x}};
  };
  json fig;
  // the guest's own speed as the scenario declares it: a calibration of this profile writes it back
  const auto sys = static_cast<double>(sc.guest.costs.syscall_ns);
  const double nobody = sys + static_cast<double>(sc.guest.costs.futex_wake_ns);  // a FUTEX_WAKE of nobody
  fig["exit_cost"] = {{"method", "vtick"},
                      {"syscall_ns", stats(sys)},
                      {"sched_yield_ns", stats(sys + static_cast<double>(sc.guest.costs.schedule_noswitch_ns))},
                      {"sched_yield_switch_ns", stats(sys + static_cast<double>(sc.guest.costs.schedule_ns))},
                      {"cpuid_ns", stats(v[0] + sys)}};
  fig["pingpong"] = {{"method", "vtick"}, {"round_trip_ns", stats(v[1])}};
  json wp = json::array(), tp = json::array();
  for (size_t i = 2; i < cat.size(); ++i) {
    const ProbeFigure& f = cat[i];
    if (f.exp == ProbeExperiment::FutexWake)
      fig["futex_wake"] = {{"method", "vtick"},
                           {"gap_ns", f.arg},
                           {"remote_ns", stats(v[i])},
                           {"local_ns", stats(sys + static_cast<double>(sc.guest.costs.ttwu_ns))},
                           {"local_hot_ns", stats(nobody + static_cast<double>(sc.guest.costs.ttwu_ns))},
                           {"local_nobody_ns", stats(nobody)}};
    else if (f.exp == ProbeExperiment::IrqRate)
      continue;
    else if (f.exp == ProbeExperiment::WakeSpin || f.exp == ProbeExperiment::WakeSleep)
      wp.push_back({{"mode", f.exp == ProbeExperiment::WakeSpin ? "spin" : "sleep"}, {"gap_ns", f.arg},
                    {"round_trip_ns", stats(v[i])}, {"one_way_ns", stats(v[i] / 2)}});
    else
      tp.push_back({{"busy", f.exp == ProbeExperiment::TimerBusy}, {"slack_ns", f.slack}, {"length_ns", f.arg},
                    {"overshoot_ns", stats(v[i])}});
  }
  json irq = {{"method", "vtick"}, {"window_s", 1}};
  for (size_t i = 2; i < cat.size(); ++i) {
    const ProbeFigure& f = cat[i];
    if (f.exp != ProbeExperiment::IrqRate) continue;
    auto [w, k] = irq_rate_path(f);
    irq[w]["cpu"] = f.window == IrqWindow::Busy ? 1 : 0;
    irq[w][k] = v[i];
    irq[w]["tlb_per_s"] = 0;
    irq[w]["steal_pct"] = 0;
  }
  fig["irq_rates"] = irq;
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
  try {
    Scenario check = load_scenario(ev.base_path, o.sets);  // the shape and the user's --set are valid
    (void)check;
  } catch (const InputError& e) {
    // name the profile, not the temporary file the scenario was written to
    std::string why = e.what();
    if (why.rfind(ev.base_path, 0) == 0) why = "the scenario written from it" + why.substr(ev.base_path.size());
    std::filesystem::remove_all(tmpl);
    throw InputError(p.path + ": " + why);
  }
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
  for (size_t i = 0; i < ev.figs.size(); ++i) use[i] = !ev.figs[i].compared && (!o.check || ev.figs[i].fit);
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
    ev.user_sets.push_back(pinned->set_text(pinned_x));
    std::printf("host.costs.vmexit_ns from the exit figure: %s (CPUID %s over getppid(), less %s of entry mitigations)%s\n",
                fmt_ns(pinned_x).c_str(), fmt_ns(ev.figs[i].value).c_str(), fmt_ns(mit).c_str(),
                pinned_x != pinned_raw ? ", clamped to its documented range" : "");
  }
  std::printf("fitting %zu parameters on %d of %zu figures%s (a mixed Latin hypercube, then NLopt's BOBYQA on the costs and sweeps of the "
              "choices; at most %d evaluations)\n",
              ev.params.size(), used, ev.figs.size(), o.check ? " (--check: the rest are predicted)" : "", o.max_evals);
  FitObjective ob{ev.params, [&](const std::vector<double>& x) { return ev.residuals(x, use); }, [&] { return ev.evals; },
                  o.quiet};
  FitResult fr = fit(ob, o.max_evals);
  if (pinned) {  // back in its place, for the tables
    auto at = static_cast<long>(pin_at);
    ev.params.insert(ev.params.begin() + at, *pinned);
    ev.user_sets.pop_back();
    fr.x.insert(fr.x.begin() + at, pinned_x);
    fr.sigma_ln.insert(fr.sigma_ln.begin() + at, std::log1p(pinned_sigma));
    fr.identifiable.insert(fr.identifiable.begin() + at, pinned_x > pinned->lo && pinned_x < pinned->hi);
    fr.level_chi2.insert(fr.level_chi2.begin() + at, std::vector<double>{});
    fr.runner_up.insert(fr.runner_up.begin() + at, -1);
    fr.delta_chi2.insert(fr.delta_chi2.begin() + at, NAN);
  }
  auto sim = ev.figures(fr.x, std::vector<bool>(ev.figs.size(), true));
  for (size_t i = 0; i < ev.figs.size(); ++i) std::remove(ev.fig_paths[i].c_str());
  std::remove(ev.base_path.c_str());
  rmdir(ev.dir.c_str());

  std::printf("\n%-28s %-22s %-22s %-44s %s\n", "parameter", "default", "fitted", "uncertainty (1 sigma)", "range searched");
  std::vector<std::string> edges;
  for (size_t j = 0; j < ev.params.size(); ++j) {
    const FitParam& f = ev.params[j];
    bool edge = !f.discrete() && (f.to_u(fr.x[j]) < 0.01 || f.to_u(fr.x[j]) > 0.99);
    if (edge) edges.push_back(f.key);
    std::string unc = uncertainty_text(f, fr, j);
    if (pinned && j == pin_at && edge) unc = "outside its range (exit: " + fmt_ns(pinned_raw) + ")";
    std::string range = f.discrete() ? std::to_string(f.levels.size()) + " levels"
                                     : fmt_ns(f.lo) + " .. " + fmt_ns(f.hi);
    std::string dflt = f.discrete() ? f.level_text[static_cast<size_t>(f.dflt)] : fmt_ns(f.dflt);
    std::string val = f.discrete() ? f.level_text[static_cast<size_t>(fr.x[j])] : fmt_ns(fr.x[j]);
    std::printf("%-28s %-22s %-22s %-44s %s%s\n", f.key.c_str(), dflt.c_str(), val.c_str(), unc.c_str(), range.c_str(),
                edge ? " (at its edge)" : "");
  }
  std::printf("\n%-28s %-10s %-10s %-9s %s\n", "figure (p50)", "measured", "vtick", "error", "role");
  double chi_fit = 0, chi_held = 0;
  int n_held = 0;
  json figs = json::array();
  for (size_t i = 0; i < ev.figs.size(); ++i) {
    const ProbeFigure& f = ev.figs[i];
    double err = f.value != 0 ? 100.0 * (sim[i] - f.value) / f.value : NAN;
    const char* role = f.compared ? "compared" : use[i] ? "fit" : "predicted";
    if (!f.compared) {
      double r = Evaluator::residual(f, sim[i]);
      (use[i] ? chi_fit : chi_held) += r * r;
      n_held += !use[i];
    }
    auto show = [&](double v) {
      if (f.unit == "ns") return fmt_ns(v);
      char b[32];
      std::snprintf(b, sizeof b, "%.1f%s", v, f.unit.c_str());
      return std::string(b);
    };
    char e[32] = "n/a";
    if (std::isfinite(err)) std::snprintf(e, sizeof e, "%+7.1f %%", err);
    std::printf("%-28s %-10s %-10s %-9s  %s\n", f.id.c_str(), show(f.value).c_str(), show(sim[i]).c_str(), e, role);
    figs.push_back({{"id", f.id}, {"unit", f.unit}, {"measured", f.value}, {"vtick", sim[i]},
                    {"error_pct", std::isfinite(err) ? json(err) : json()}, {"rel_sigma", f.rel_sigma}, {"role", role}});
  }
  std::string ver = verdict(fr, edges);
  std::printf("\nverdict: %s (chi2 %.0f; consistent up to %.0f)%s\n", ver.c_str(), fr.chi2, fr.chi2_consistent,
              fr.consistent ? "" : "; the intervals above are the local ones, scaled by chi2 per degree of freedom");
  std::printf("\nchi2 %.1f over %d fitted figures", chi_fit, used);
  if (o.check && n_held) std::printf("; held back: chi2 %.1f over %d predicted figures", chi_held, n_held);
  std::printf(" (%d evaluations)\n", ev.evals);

  json params = json::array();
  std::ostringstream toml;
  toml << base;
  std::map<std::string, std::string> tables;  // [host.costs], [host.kvm], [host]: the fitted keys
  for (size_t j = 0; j < ev.params.size(); ++j) {
    const FitParam& f = ev.params[j];
    json pj{{"key", f.key}, {"unit", f.unit}, {"identifiable", bool(fr.identifiable[j])}};
    if (f.discrete()) {
      json levels = json::array();
      for (size_t l = 0; l < f.levels.size(); ++l)
        levels.push_back({{"value", f.levels[l]}, {"text", f.level_text[l]},
                          {"chi2", l < fr.level_chi2[j].size() ? json(fr.level_chi2[j][l]) : json()}});
      pj.update({{"default", f.levels[static_cast<size_t>(f.dflt)]}, {"fitted", f.levels[static_cast<size_t>(fr.x[j])]},
                 {"fitted_text", f.level_text[static_cast<size_t>(fr.x[j])]}, {"levels", levels},
                 {"runner_up", fr.runner_up[j] >= 0 ? json(f.levels[static_cast<size_t>(fr.runner_up[j])]) : json()},
                 {"delta_chi2", std::isfinite(fr.delta_chi2[j]) ? json(fr.delta_chi2[j]) : json()}});
    } else {
      pj.update({{"default", f.dflt}, {"fitted", fr.x[j]}, {"sigma", fr.identifiable[j] ? json(fr.sigma_ln[j]) : json()},
                 {"log_scale", f.log}, {"lo", f.lo}, {"hi", f.hi}});
    }
    params.push_back(pj);
    size_t dot = f.key.rfind('.');
    tables[f.key.substr(0, dot)] += f.key.substr(dot + 1) + " = " + toml_value(f, fr.x[j]) + "  # " + uncertainty_text(f, fr, j) + "\n";
  }
  for (const auto& [table, lines] : tables) toml << "\n[" << table << "]  # fitted by vtick calibrate\n" << lines;
  toml << "\n# [workload]: the built-in default; add your own, or run with --set workload.kind=...\n";
  if (!o.out.empty() && !write_output("-o", o.out, toml.str())) return 1;
  if (!o.json_path.empty()) {
    json rep{{"profile", p.path}, {"check", o.check}, {"evaluations", ev.evals}, {"chi2_fit", chi_fit},
             {"consistent", fr.consistent}, {"chi2_consistent", fr.chi2_consistent}, {"verdict", ver},
             {"chi2_predicted", chi_held}, {"parameters", params}, {"figures", figs}};
    if (!write_output("--json", o.json_path, rep.dump(2) + "\n")) return 1;
  }
  if (!o.out.empty()) std::printf("wrote %s: vtick run %s; vtick compare %s --policies legacy,got_tick,loehle\n", o.out.c_str(),
                                  o.out.c_str(), o.out.c_str());
  return 0;
}

}  // namespace

}  // namespace vtick
