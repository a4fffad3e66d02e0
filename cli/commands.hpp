// vtick subcommands; each returns the process exit status (0 ok, 1 failure, 2 bad input).
#pragma once
#include <set>
#include <string>
#include <vector>

namespace vtick {

struct Scenario;

// write_output() of cli/output.hpp for a caller that names no option: "-" is stdout, a
// regular file is written through a temporary file and a rename, a FIFO or device in place.
bool write_file_atomic(const std::string& path, const std::string& text);

struct RunOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::string json_path;
  std::string events_path;  // model events as text lines
  std::string trace_path;   // Chrome/Perfetto trace-event JSON
  std::string ftrace_path;  // ftrace text
  std::string trace_dat_path;  // trace.dat of the host (the guest's beside it)
  std::string trace_window; // START:END
  std::vector<std::string> sg_cfg;  // SimGrid options KEY:VALUE
  std::string proc_stat;      // sampling interval of every CPU's /proc/stat line ("" off)
  std::string proc_stat_csv;  // those samples as CSV
  bool quiet = false;
  bool timing = false;
  std::set<std::string> given;  // output options on the command line (--json "" is refused, not ignored)
};

int cmd_run(const RunOptions& o);
int cmd_validate(const std::string& scenario, const std::vector<std::string>& sets, bool estimate);
// vtick validate's resource estimate (cli/estimate.cpp): printed for large scenarios.
bool is_large_scenario(const Scenario& sc);
// The traced span's bound (docs/cli.md, "Limits"): the trace writers hold the trace until
// the end, about kTraceMbPerVcpuSecond of Chrome JSON per vCPU-second of OLTP (measured).
inline constexpr double kMaxTracedVcpuSeconds = 20, kTraceMbPerVcpuSecond = 25;
int print_estimate(const Scenario& sc);
int cmd_list(const std::string& what);
// Renders a trace written by `vtick run --trace` as an SVG timeline.
int cmd_timeline(const std::string& trace, const std::string& svg, const std::string& window);

struct CompareOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::vector<std::string> policies;  // values of `key`
  std::string key = "guest.tick_policy";
  int seeds = 1;
  int jobs = 0;  // 0: number of cores
  std::string json_path;
  bool json_given = false;
  bool quiet = false;
  bool ablate = false;
};
int cmd_compare(const CompareOptions& o);

struct SweepOptions {
  std::string file;
  std::string out;     // "": results/<sweep file stem>
  int jobs = 0;        // 0: number of cores
  int index = -1;      // >= 0: run this grid point only (Slurm arrays)
  bool list = false;   // print the grid with indices
  bool resume = false; // run only the points without a result
  bool collect = false;// only rebuild the tables from the results there
  bool force = false;  // --collect / --resume: accept run files of another revision or scenario
  bool quiet = false;
};
int cmd_sweep(const SweepOptions& o);

// vtick explain: search the parameter space for sets that reproduce a target's signature.
struct ExplainOptions {
  std::string target;        // the target file (TOML)
  std::string out;           // "": results/explain-<target file stem>
  std::string budget = "small";
  int jobs = 0;              // 0: number of cores
  int index = -1;            // >= 0: run array task N of DIR/pending.json only (Slurm, GNU parallel)
  bool list_space = false;   // print the space and exit
  bool slurm = false;        // write the pending runs as a job array instead of running them
  bool collect = false;      // run nothing: report from the runs in --out
  bool quiet = false;
};
int cmd_explain(const ExplainOptions& o);

// vtick validate-suite: the published measurements of validation/*.toml against their bands.
struct SuiteOptions {
  std::string dir = "validation";
  bool fast = false;          // only the cases marked fast (make test's subset)
  std::string only;           // one case by its id (file name without .toml)
  int jobs = 0;               // 0: number of cores
  std::string json_path;      // every case's figures and verdict
  std::string markdown_path;  // the table of docs/validation.md
  bool quiet = false;
};
int cmd_validate_suite(const SuiteOptions& o);

// vtick calibrate: fit the host model to a vtick-probe profile (docs/probe.md).
struct CalibrateOptions {
  std::string profile;               // the vtick-probe JSON
  std::string out;                   // -o: the calibrated scenario
  std::string json_path;             // the fit as JSON
  bool check = false;                // fit on part of the figures, predict the rest
  int max_evals = 240;               // the fit's evaluations (each runs every figure)
  int jobs = 0;                      // 0: number of cores
  std::vector<std::string> sets;     // on top of the calibrated scenario
  std::vector<std::string> fit_keys; // --fit: the parameters searched (default: calibrate.cpp's list)
  std::string synthesize;            // a scenario: write the profile vtick computes for it to -o
  std::string scenarios_dir;         // write each figure's scenario there (and its sets as a comment)
  bool quiet = false;
};
int cmd_calibrate(const CalibrateOptions& o);

struct PlotOptions {
  std::string dir;                // a vtick sweep --out directory
  std::vector<std::string> at;    // KEY=VALUE: fix a swept key (default platform.vcpus=2 when swept)
  std::string policy = "got_tick";// the policy of the delta figure
  std::string counters;           // "A[,B]": the counters of the any-key figures
};
int cmd_plot(const PlotOptions& o);

// vtick trace-compare: a real guest's trace.dat against vtick's (study/trace_compare.hpp).
struct TraceCompareOptions {
  std::string real_path, sim_path;
  std::string bands_path;  // "": no bands
  std::string json_path;
};
int cmd_trace_compare(const TraceCompareOptions& o);

}  // namespace vtick
