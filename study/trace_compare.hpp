// vtick trace-compare: a real guest's trace.dat against vtick's, row by row, and the
// bands a model change must meet (docs/cli.md, "trace-compare").
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "study/trace_intervals.hpp"

namespace vtick {

// One figure on both sides: an interval's rate or quantile, a count's rate, a CPU's idle
// share. `statistic`: rate (per second of the window), p10, p50, p90 (µs), share (0..1).
struct CompareRow {
  std::string name;       // pre_hlt_window, halts, idle_share.cpu0, msr_write.0x6e0, ...
  std::string statistic;
  double real = 0, sim = 0;
  double ratio() const;   // sim / real; NaN when either is NaN or real is 0
};

// Every row of the two files: intervals (rate, p10, p50, p90), counts and MSR writes (rate),
// idle shares of the CPUs both files have. InputError when they have no CPU in common.
std::vector<CompareRow> compare_traces(const TraceSummary& real, const TraceSummary& sim);

// A bands file: [[band]] tables with `interval` (a row name), `statistic` and either
// `within = X` (sim/real in [1/X, X]) or `ratio = [LO, HI]`; optionally a [throughput]
// table with `within`, which trace-compare checks and leaves to the baseline script (a
// trace.dat carries no throughput).
struct Band {
  std::string interval, statistic;
  double lo = 0, hi = 0;
  std::string where;  // file:line of the band
};
// InputError naming the file, line and key on anything else.
std::vector<Band> load_bands(const std::string& path);

// A band a row misses: why, as one line. A row that is 0, or has no samples, on both
// sides meets its band.
struct BandMiss {
  Band band;
  std::string why;
};
std::vector<BandMiss> check_bands(const std::vector<CompareRow>& rows, const std::vector<Band>& bands);

std::string compare_table(const TraceSummary& real, const TraceSummary& sim, const std::vector<CompareRow>& rows);
nlohmann::json compare_json(const TraceSummary& real, const TraceSummary& sim, const std::vector<CompareRow>& rows,
                            const std::vector<Band>& bands, const std::vector<BandMiss>& misses);

}  // namespace vtick
