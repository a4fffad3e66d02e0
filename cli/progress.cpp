#include "cli/progress.hpp"

#include <cstdio>
#include <unistd.h>

#include "cli/log.hpp"

namespace vtick {

std::string hms(double s) {
  char b[32];
  long t = static_cast<long>(s + 0.5);
  if (t >= 3600) std::snprintf(b, sizeof b, "%ldh%02ldm", t / 3600, (t / 60) % 60);
  else if (t >= 60) std::snprintf(b, sizeof b, "%ldm%02lds", t / 60, t % 60);
  else std::snprintf(b, sizeof b, "%lds", t);
  return b;
}

Progress::Progress(int total, bool quiet)
    : total_(total), quiet_(quiet || !progress_enabled()), tty_(isatty(2)), t0_(std::chrono::steady_clock::now()) {}

void Progress::step(const std::string& what, bool ok) {
  ++done_;
  if (!ok) ++failed_;
  if (quiet_) return;
  double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  double rate = el > 0 ? done_ / el : 0;  // finished runs per wall second, parallelism included
  std::string eta = rate > 0 ? hms((total_ - done_) / rate) : "?";
  if (tty_) {
    int w = 30, fill = total_ ? w * done_ / total_ : w;
    std::fprintf(stderr, "\r[%s%s] %d/%d runs  %.2f runs/s  ETA %s%s   ", std::string(static_cast<size_t>(fill), '#').c_str(),
                 std::string(static_cast<size_t>(w - fill), '.').c_str(), done_, total_, rate, eta.c_str(),
                 failed_ ? (" " + std::to_string(failed_) + " failed").c_str() : "");
    if (done_ == total_) std::fprintf(stderr, "\n");
  } else {
    std::fprintf(stderr, "[%d/%d] %s %s (%.2f runs/s, ETA %s)\n", done_, total_, what.c_str(), ok ? "done" : "FAILED", rate,
                 eta.c_str());
  }
}

RunProgress::RunProgress(sim_ns duration) : duration_(duration), t0_(std::chrono::steady_clock::now()) {}

void RunProgress::update(sim_ns t) {
  double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  if (el < 2.0 || t <= 0) return;
  double frac = static_cast<double>(t) / static_cast<double>(duration_);
  std::fprintf(stderr, "\r%3.0f%% of %s simulated, %s wall, ETA %s   ", 100.0 * frac, format_duration(duration_).c_str(),
               hms(el).c_str(), hms(el / frac - el).c_str());
  shown_ = true;
}

void RunProgress::clear() {
  if (shown_) std::fprintf(stderr, "\r\033[K");
  shown_ = false;
}

}  // namespace vtick
