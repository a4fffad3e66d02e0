// What a run reports: headline numbers, the JSON results file and the stdout table.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "sim/scenario.hpp"
#include "sim/simulation.hpp"

namespace vtick {

// A headline number: VM-wide, normalised per second of measured time or as a share.
struct Headline {
  std::string key;    // JSON key in "summary"
  std::string label;  // for tables
  std::string unit;
  double value;
  bool optional = false;  // shown only where it is not zero
};

std::vector<Headline> headlines(const Scenario& sc, const RunResult& r);
// Every key a run's summary may have (what headlines() gives when each optional row is
// there): what a metric named in an input may be.
std::vector<std::string> summary_keys();

// The results document. Wall-clock fields (which differ run to run) are included
// only with `timing`, so that the same scenario and seed give byte-identical files.
// `extra`: further top-level sections as JSON text ("\"proc_stat\": {...}"), each on one
// line after the histograms (vtick run --proc-stat).
std::string results_json(const Scenario& sc, const RunResult& r, bool timing, const std::vector<std::string>& extra = {});

void print_run_table(std::FILE* out, const Scenario& sc, const RunResult& r);

std::string version_line();  // "vtick 0.1.0 (git abc, SimGrid 3.32)"

}  // namespace vtick
