// Target files of `vtick explain`: what was reported, as constraints on runs of the model,
// and the space of parameters to search for a set that meets them (docs/cli.md).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace vtick {

// Each evaluation runs every constraint's base and variant on every seed: these bound it.
inline constexpr std::size_t kMaxTargetRuns = 16, kMaxTargetConstraints = 64;

// One scenario the constraints run: a scenario file and fixed overrides (a shape).
struct TargetRun {
  std::string id;
  std::string scenario;           // resolved against the target file's directory
  std::vector<std::string> sets;  // key=value
};

// The change of `metric` from `base` to `variant` (values of `key`) on one run, in %,
// must fall in [lo, hi]; "no regression" is a band around zero.
struct TargetConstraint {
  std::string id;
  std::string run;      // a TargetRun id
  std::string key;      // "guest.tick_policy" unless the constraint says otherwise
  std::string base, variant;
  double lo = 0, hi = 0;
  bool has_reported = false;
  double reported = 0;  // the reported change, %, when there is one
  std::string why;      // where the fact comes from
};

// A factor the target adds to the space, or a declared one it restricts: a numeric
// range, or choices (text values as --set takes them).
struct TargetFactor {
  std::string key;
  std::string where;               // file:line:column
  bool numeric = false;
  double lo = 0, hi = 0;           // numeric (durations in ns)
  std::vector<std::string> choices;
  std::string source;              // why this range ("[EST] ...")
};

// A knob searched outside what upstream KVM and the documentation say: its documented
// value range and the values to try beyond it (the "smallest departure").
struct TargetDeparture {
  std::string key;
  std::string where;
  double documented_lo = 0, documented_hi = 0;  // ns for durations
  std::vector<std::string> values;             // tried in order, smallest departure first
  std::vector<double> numbers;                 // the same, as numbers (ns for durations)
  std::string why;
};

struct ExplainTarget {
  std::string source;
  std::string title;
  std::string metric = "ops_per_s";  // a summary field of the run JSON
  std::vector<TargetRun> runs;
  std::vector<TargetConstraint> constraints;
  std::vector<std::string> exclude;  // key patterns ("host.kvm.ple_*", "workload.*")
  std::vector<std::string> only;     // non-empty: only these patterns
  std::vector<TargetFactor> add;     // extra factors / narrower ranges
  std::vector<TargetDeparture> departures;
  // [budget]: overrides of the chosen --budget's figures ("duration" = "200ms", "morris_r" = 1, ...)
  std::string budget_duration;
  std::vector<std::pair<std::string, int>> budget_ints;
};

// The [budget] integers a target may override, with their allowed ranges.
struct BudgetKey {
  const char* key;
  int lo, hi;
};
const std::vector<BudgetKey>& budget_keys();

// Reads and checks a target file (InputError naming file, line, key and what is allowed);
// every run's scenario is loaded, so a bad shape or key fails before anything runs.
ExplainTarget load_target(const std::string& path);

// "host.kvm.*" matches every key under host.kvm; otherwise the key itself.
bool key_matches(const std::string& pattern, const std::string& key);

}  // namespace vtick
