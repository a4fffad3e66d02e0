// Progress on stderr: for many runs (compare, sweep) a bar redrawn in place on a terminal
// and plain lines otherwise (logs, CI, Slurm); for one long run a line on a terminal only.
// All of it is info-level output (off with -q or --quiet).
#pragma once
#include <chrono>
#include <string>

#include "core/time.hpp"

namespace vtick {

std::string hms(double seconds);  // "42s", "3m07s", "2h05m"

// Finished runs of a batch: rate and ETA from the wall time the finished runs took.
class Progress {
 public:
  Progress(int total, bool quiet);
  void step(const std::string& what, bool ok);  // one run finished ("point 3", "legacy seed 2")

 private:
  int total_, done_ = 0, failed_ = 0;
  bool quiet_, tty_;
  std::chrono::steady_clock::time_point t0_;
};

// One run in process: shown on a terminal once it has taken more than 2 s of wall time.
class RunProgress {
 public:
  explicit RunProgress(sim_ns duration);
  void update(sim_ns simulated);  // from SimHooks::progress
  void clear();                   // erase the line before the table

 private:
  sim_ns duration_;
  std::chrono::steady_clock::time_point t0_;
  bool shown_ = false;
};

}  // namespace vtick
