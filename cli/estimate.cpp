// vtick validate's estimate for a large scenario: a short pilot run of the scenario itself,
// extrapolated to run.duration (events and wall time scale with simulated time; memory
// does not: latencies go into bounded histograms, docs/performance.md).
#include <algorithm>
#include <cstdio>
#include <sys/resource.h>

#include "cli/commands.hpp"
#include "core/time.hpp"
#include "sim/simulation.hpp"

namespace vtick {

constexpr sim_ns kPilot = 10000000;  // 10 ms

bool is_large_scenario(const Scenario& sc) {
  double vcpu_seconds = sc.vcpus * static_cast<double>(sc.run.duration) / 1e9;
  return sc.vcpus >= 16 || sc.run.duration >= 60000000000LL || vcpu_seconds >= 120;
}

int print_estimate(const Scenario& full) {
  Scenario pilot = full;
  pilot.run.duration = std::min(full.run.duration, kPilot);
  pilot.run.warmup = 0;
  RunResult r = run_simulation(pilot);
  if (r.failed) {
    std::fprintf(stderr, "vtick: %s\n", r.error.c_str());
    return r.input_error ? 2 : 1;
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double scale = static_cast<double>(full.run.duration) / static_cast<double>(pilot.run.duration);
  const double wall = r.wall_seconds * scale, steps = static_cast<double>(r.sg_detail.steps) * scale;
  const double sg = static_cast<double>(r.sg_events) * scale;
  std::printf("estimate: a %s pilot run extrapolated to run.duration %s (%d vCPUs)\n", format_duration(pilot.run.duration).c_str(),
              format_duration(full.run.duration).c_str(), full.vcpus);
  std::printf("  model steps       %.3g (%.3g per simulated second)\n", steps, steps / (full.run.duration / 1e9));
  std::printf("  SimGrid events    %.3g\n", sg);
  if (full.run.scheduler == StepScheduler::Vtick)  // its actors are fibers: a hand-off is a stack switch
    std::printf("  hand-offs         %.3g\n", static_cast<double>(r.sg_detail.handoffs) * scale);
  if (wall >= 3600) std::printf("  wall time         about %.1f h on this machine, one core\n", wall / 3600);
  else std::printf("  wall time         about %.0f s on this machine, one core\n", wall);
  std::printf("  peak memory       about %.0f MiB (the pilot's peak RSS: memory does not grow with simulated time)\n",
              ru.ru_maxrss / 1024.0);
  std::printf("  --trace/--ftrace  kept in memory until written: about %.0f MB per traced vCPU-second of OLTP, so "
              "--trace-window spans of at most %.0f vCPU-seconds\n",
              kTraceMbPerVcpuSecond, kMaxTracedVcpuSeconds);
  return 0;
}

}  // namespace vtick
