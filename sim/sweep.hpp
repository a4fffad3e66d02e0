// Sweep files: a base scenario and axes of scenario keys whose product is the grid of runs.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace vtick {

// One axis: one key, or several keys that vary together ([[zip]]).
// The most grid points a sweep file may make (an axis' A..B range too).
inline constexpr long kMaxSweepPoints = 100000;

struct SweepAxis {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;  // values[i][k]: value i of keys[k], as --set text
  std::vector<std::string> where;                // values[i]'s file:line:column
};

struct SweepSpec {
  std::string source;    // the sweep file
  std::string scenario;  // the base scenario, resolved against the sweep file's directory
  std::vector<std::string> sets;  // [set]: fixed overrides, as key=value
  std::vector<SweepAxis> axes;    // sorted by first key, run.seed last; the last varies fastest
  std::vector<std::map<std::string, std::string>> excludes;  // [[exclude]]: points matching all pairs are dropped
};

struct SweepPoint {
  int index;                                                 // position in the grid
  std::vector<std::pair<std::string, std::string>> values;   // key -> value, in column order
  std::vector<std::string> sets() const;                     // as key=value
};

// Reads and checks a sweep file (InputError names file, line, key and what is allowed).
// Every point's scenario is validated too, so a bad value fails before anything runs.
SweepSpec load_sweep(const std::string& path);
std::vector<std::string> sweep_columns(const SweepSpec& s);  // every swept key, in grid order
std::vector<SweepPoint> sweep_grid(const SweepSpec& s);       // after exclusions, indices 0..n-1

}  // namespace vtick
