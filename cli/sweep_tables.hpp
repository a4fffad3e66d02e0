// The tables of a sweep directory, built from its run files alone: runs.csv (one row per
// run), summary.csv (per grid point over seeds), delta.csv (each tick policy against the
// first, paired by seed), timing.csv (wall time, the only column that is not reproducible).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "sim/sweep.hpp"

namespace vtick {

// Returns the exit status: 0, or 1 when a run failed or is missing.
int write_sweep_tables(const SweepSpec& spec, const std::vector<SweepPoint>& grid, const std::string& dir,
                       const std::function<std::string(int)>& run_file, bool quiet);

// A CSV field: quoted when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& s);

}  // namespace vtick
