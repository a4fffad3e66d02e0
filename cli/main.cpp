// The vtick command line.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <tuple>

#include "cli/commands.hpp"
#include "cli/log.hpp"
#include "cli/output.hpp"
#include "sim/manifest.hpp"
#include "sim/results.hpp"

using namespace vtick;

namespace {
// Files vtick writes, whose empty name check_output() reports itself (with what to give).
bool is_output_option(const std::string& name) {
  for (const char* o : {"--json", "--events", "--trace", "--ftrace", "--trace-dat", "--proc-stat-csv", "--svg"})
    if (name == o) return true;
  return false;
}
}  // namespace

int main(int argc, char** argv) {
  init_logging();
  set_command_line(argc, argv);  // for the manifest of every JSON written
  CLI::App app{"vtick: guest tick/idle policies on a KVM host, co-simulated with SimGrid"};
  app.set_version_flag("--version", version_line());
  app.require_subcommand(1);

  RunOptions run;
  std::string seed, duration;
  auto* r = app.add_subcommand("run", "run one scenario and print its results");
  r->add_option("scenario", run.scenario, "scenario file (TOML)")->required();
  r->add_option("--set", run.sets, "override a key: section.key=value (repeatable)");
  r->add_option("--seed", seed, "random seed (run.seed)");
  r->add_option("--duration", duration, "simulated time, e.g. 10s (run.duration)");
  r->add_option("--json", run.json_path, "write every counter and the manifest to FILE (- for stdout)");
  r->add_flag("--quiet", run.quiet, "print nothing on success");
  r->add_option("--events", run.events_path, "write every model event (kvm_exit, nohz_stop, halt, ...) with its fields as text lines");
  r->add_flag("--timing", run.timing, "add wall-clock figures to the JSON manifest (not reproducible)");
  r->add_option("--trace", run.trace_path, "write a Chrome/Perfetto trace-event JSON of the run to FILE");
  r->add_option("--ftrace", run.ftrace_path, "write the run as ftrace text (kernel and KVM tracepoints, trace marks) to FILE");
  r->add_option("--trace-dat", run.trace_dat_path,
                "write the run as trace.dat files for trace-cmd report / KernelShark: FILE (host) and FILE-vm0 (guest)");
  r->add_option("--trace-window", run.trace_window, "trace only START:END of simulated time, e.g. 10ms:30ms");
  r->add_option("--proc-stat", run.proc_stat,
                "sample every CPU's /proc/stat line (the configured guest.cputime scheme) every INTERVAL, e.g. 10ms, into the JSON");
  r->add_option("--proc-stat-csv", run.proc_stat_csv, "write the --proc-stat samples as CSV to FILE (ns columns)");
  r->add_option("--sg-cfg", run.sg_cfg,
                "a SimGrid configuration option KEY:VALUE (repeatable), e.g. contexts/factory:thread for sanitizer runs");

  std::string tl_trace, tl_svg, tl_window;
  auto* tl = app.add_subcommand("timeline", "render a trace written by vtick run --trace as an SVG timeline");
  tl->add_option("trace", tl_trace, "trace JSON written by vtick run --trace")->required();
  tl->add_option("--svg", tl_svg, "the SVG file to write")->required();
  tl->add_option("--window", tl_window, "show only START:END, e.g. 2ms:3ms");

  std::string vscenario;
  std::vector<std::string> vsets;
  auto* v = app.add_subcommand("validate", "check a scenario file and print its resolved configuration");
  v->add_option("scenario", vscenario, "scenario file (TOML)")->required();
  v->add_option("--set", vsets, "override a key: section.key=value (repeatable)");
  bool vestimate = false;
  v->add_flag("--estimate", vestimate,
              "also estimate model steps, wall time and memory from a 10 ms pilot run (done anyway for 16+ vCPUs, 60 s+ or 120+ vCPU-seconds)");

  std::string what;
  auto* l = app.add_subcommand("list", "list shapes, policies, workloads, keys, costs or metrics");
  l->add_option("what", what, "shapes | policies | workloads | keys | costs | metrics | params (markdown)")
      ->required()
      ->check(CLI::IsMember({"shapes", "policies", "workloads", "keys", "costs", "metrics", "params"}));

  CompareOptions cmp;
  std::string policies, vary;
  auto* c = app.add_subcommand("compare", "run a scenario under several tick policies (or values of any key) and seeds, side by side");
  c->add_option("scenario", cmp.scenario, "scenario file (TOML)")->required();
  auto* pol = c->add_option("--policies", policies, "comma-separated guest.tick_policy values; the first is the baseline");
  auto* var = c->add_option("--vary", vary, "KEY=V1,V2,...: compare values of any scenario key instead");
  pol->excludes(var);
  var->excludes(pol);
  c->add_option("--seeds", cmp.seeds, "seeds per policy (1..N)")->check(CLI::Range(1, 1000));
  c->add_option("--jobs", cmp.jobs, "parallel processes (default: cores)")->check(CLI::Range(1, 256));
  c->add_option("--json", cmp.json_path, "write the comparison to FILE");
  c->add_option("--set", cmp.sets, "override a key: section.key=value (repeatable)");
  c->add_flag("--quiet", cmp.quiet, "no progress lines");
  c->add_flag("--ablate", cmp.ablate, "also rerun with each mechanism switched off in turn (the ablation table)");

  SweepOptions sw;
  auto* w = app.add_subcommand("sweep", "run the grid of a sweep file (axes of scenario keys) and tabulate it with statistics");
  w->add_option("sweep", sw.file, "sweep file (TOML): scenario, [set], [axes], [[zip]], [[exclude]]")->required();
  w->add_option("--out", sw.out, "results directory (default: results/<sweep file name>)");
  w->add_option("--jobs", sw.jobs, "parallel processes (default: cores)")->check(CLI::Range(1, 256));
  w->add_option("--index", sw.index, "run grid point N only (e.g. $SLURM_ARRAY_TASK_ID); see --list")->check(CLI::NonNegativeNumber);
  w->add_flag("--list", sw.list, "print the grid points with their indices and exit");
  w->add_flag("--resume", sw.resume, "run only the points without a complete result in --out");
  w->add_flag("--collect", sw.collect, "run nothing: rebuild runs.csv, summary.csv, delta.csv from the results in --out");
  w->add_flag("--quiet", sw.quiet, "no progress");
  w->add_flag("--force", sw.force, "--collect / --resume: use run files of another vtick revision or scenario anyway");

  ExplainOptions ex;
  auto* xp = app.add_subcommand("explain", "search every mechanism and parameter for what reproduces a reported regression (a target file)");
  xp->add_option("target", ex.target, "target file (TOML): [[run]], [[constraint]], [space], [departure] (docs/cli.md)")->required();
  xp->add_option("--out", ex.out, "results directory (default: results/explain-<target file name>)");
  xp->add_option("--budget", ex.budget, "small (minutes on 2 cores) or full (hours: --jobs on a big machine, or --slurm)")
      ->check(CLI::IsMember({"small", "full"}));
  xp->add_option("--jobs", ex.jobs, "parallel processes (default: cores)")->check(CLI::Range(1, 256));
  xp->add_option("--index", ex.index, "run array task N of DIR/pending.json only ($SLURM_ARRAY_TASK_ID)")->check(CLI::NonNegativeNumber);
  xp->add_flag("--list-space", ex.list_space, "print the factors searched, their ranges and sources, and exit");
  xp->add_flag("--slurm", ex.slurm, "write the runs still to do as a Slurm job array (DIR/explain.sbatch) and exit 75; rerun after it");
  xp->add_flag("--collect", ex.collect, "run nothing: write the report from the runs in --out (exit 75 while some are missing)");
  xp->add_flag("--quiet", ex.quiet, "no progress");

  PlotOptions po;
  auto* pl = app.add_subcommand("plot", "draw a sweep's figures (SVG and PNG, with gnuplot) into DIR/plots");
  pl->add_option("dir", po.dir, "a vtick sweep --out directory")->required();
  pl->add_option("--at", po.at, "KEY=VALUE: fix a swept key (default platform.vcpus=2 when swept, else its first value)");
  pl->add_option("--counters", po.counters, "A[,B]: summary metrics drawn against any swept key (default exits_per_s,halt_poll_time_pct)");
  pl->add_option("--policy", po.policy, "the policy of the change-by-vCPU-count figure (default got_tick)");

  SuiteOptions vs;
  auto* su = app.add_subcommand("validate-suite", "run the validation suite (validation/*.toml: published KVM measurements) against its bands");
  su->add_option("--dir", vs.dir, "the suite's directory (default validation)");
  su->add_flag("--fast", vs.fast, "only the fast cases (the subset make test runs)");
  su->add_option("--case", vs.only, "run one case (its file name without .toml)");
  su->add_option("--jobs", vs.jobs, "parallel processes (default: cores)")->check(CLI::Range(1, 256));
  su->add_option("--json", vs.json_path, "write every case with its figure and verdict to FILE");
  su->add_option("--markdown", vs.markdown_path, "write the table for docs/validation.md to FILE");
  su->add_flag("--quiet", vs.quiet, "no progress lines");

  CalibrateOptions cal;
  auto* ca = app.add_subcommand("calibrate", "fit the host model to a vtick-probe profile and write the VM's scenario (docs/probe.md)");
  ca->add_option("profile", cal.profile, "the profile vtick-probe wrote (JSON, schema vtick-probe/1)");
  ca->add_option("-o,--out", cal.out, "write the calibrated scenario (TOML) to FILE");
  ca->add_option("--json", cal.json_path, "write the fit (parameters, uncertainties, every figure) to FILE");
  ca->add_flag("--check", cal.check, "fit on part of the figures and predict the others");
  ca->add_option("--max-evals", cal.max_evals, "most evaluations of the fit (each runs every figure; default 240)")->check(CLI::Range(10, 10000));
  ca->add_option("--jobs", cal.jobs, "parallel processes (default: cores)")->check(CLI::Range(1, 256));
  ca->add_option("--set", cal.sets, "KEY=VALUE on top of the calibrated scenario (repeatable)");
  ca->add_option("--synthesize", cal.synthesize, "instead: compute the profile of SCENARIO with vtick and write it to -o");
  ca->add_option("--fit", cal.fit_keys, "the keys to fit, comma-separated: numeric keys with a range, booleans, choices (default: the exit and wake-path costs, C-state exits, halt-poll window, timer advance, idle governor)")->delimiter(',');
  ca->add_option("--scenarios", cal.scenarios_dir, "write the scenario of every figure's experiment into DIR");
  ca->add_flag("--quiet", cal.quiet, "no progress lines");

  TraceCompareOptions tc;
  auto* tcc = app.add_subcommand("trace-compare", "pair the same named intervals in a real guest's trace.dat and vtick's, with rates, quantiles and bands");
  tcc->add_option("real", tc.real_path, "the real guest's trace.dat (scripts/record-guest-trace.sh)")->required();
  tcc->add_option("sim", tc.sim_path, "vtick's guest trace.dat (vtick run --trace-dat FILE writes it as FILE-vm0)")->required();
  tcc->add_option("--bands", tc.bands_path, "a bands file (TOML [[band]]: interval, statistic, within or ratio): exit 1 listing each row outside its band");
  tcc->add_option("--json", tc.json_path, "write the rows, bands and misses as JSON to FILE (- for stdout)");

  LogOptions log;
  for (CLI::App* sub : {r, tl, v, l, c, w, xp, pl, su, ca, tcc}) add_log_options(sub, log);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  if (int rc = apply_log_options(log)) return rc;
  // An empty value given is an error, never the default (--seed '' ran with run.seed = 1,
  // `vtick validate ""` the built-in scenario); output paths say more themselves (check_output).
  for (const CLI::App* sub : app.get_subcommands())
    for (const CLI::Option* o : sub->get_options()) {
      if (o->get_type_size() == 0 || o->count() == 0) continue;
      for (const std::string& v : o->results())
        if (v.empty() && !is_output_option(o->get_name())) {
          spdlog::error("{}: empty value ({})", o->get_name(), o->get_description());
          return 2;
        }
    }
  try {
    if (*r) {
      for (const char* opt : {"--json", "--events", "--trace", "--ftrace", "--trace-dat", "--proc-stat", "--proc-stat-csv"})
        if (r->count(opt)) run.given.insert(opt);
      for (auto [opt, key, val] : {std::tuple{"--seed", "run.seed", &seed}, std::tuple{"--duration", "run.duration", &duration}})
        if (!val->empty()) {
          check_option_value(opt, key, *val);
          run.sets.push_back(std::string(key) + "=" + *val);
        }
      return cmd_run(run);
    }
    if (*v) return cmd_validate(vscenario, vsets, vestimate);
    if (*tl) {
      if (int rc = check_output("--svg", tl_svg)) return rc;
      return cmd_timeline(tl_trace, tl_svg, tl_window);
    }
    if (*l) return cmd_list(what);
    if (*w) return cmd_sweep(sw);
    if (*xp) {
      if ((ex.slurm || ex.collect) && (ex.index >= 0 || ex.list_space)) {
        spdlog::error("explain: --index and --list-space go alone, without --slurm or --collect");
        return 2;
      }
      if (ex.slurm && ex.collect) {
        spdlog::error("explain: --slurm runs nothing and writes the job array; --collect runs nothing and reports: give one");
        return 2;
      }
      return cmd_explain(ex);
    }
    if (*pl) return cmd_plot(po);
    if (*su) return cmd_validate_suite(vs);
    if (*tcc) return cmd_trace_compare(tc);
    if (*ca) {
      if (cal.synthesize.empty() == cal.profile.empty()) {
        spdlog::error("calibrate: give a PROFILE, or --synthesize SCENARIO -o PROFILE");
        return 2;
      }
      if (!cal.synthesize.empty() && cal.out.empty()) {
        spdlog::error("calibrate: --synthesize needs -o PROFILE");
        return 2;
      }
      for (const char* opt : {"--out", "--json"}) {
        const std::string& path = std::string(opt) == "--out" ? cal.out : cal.json_path;
        if (ca->count(opt))
          if (int rc = check_output(opt, path)) return rc;
      }
      return cmd_calibrate(cal);
    }
    if (*c) {
      if (policies.empty() && vary.empty()) {
        spdlog::error("compare: give --policies a,b,... or --vary KEY=V1,V2,...");
        return 2;
      }
      cmp.json_given = c->count("--json") > 0;
      if (!vary.empty()) {
        auto eq = vary.find('=');
        if (eq == std::string::npos || eq == 0) {
          spdlog::error("compare: --vary expects KEY=V1,V2,...");
          return 2;
        }
        cmp.key = vary.substr(0, eq);
        policies = vary.substr(eq + 1);
      }
      std::size_t start = 0;
      while (start <= policies.size()) {
        std::size_t comma = policies.find(',', start);
        std::string p = policies.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!p.empty()) cmp.policies.push_back(p);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      return cmd_compare(cmp);
    }
  } catch (const InputError& e) {
    spdlog::error("{}", e.what());
    return 2;
  } catch (const std::exception& e) {
    spdlog::critical("internal error: {}", e.what());
    return 1;
  }
  return 0;
}
