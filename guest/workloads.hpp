// Guest workloads built from task programs (the foundation's two: periodic and pingpong).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/time.hpp"

namespace vtick {

class GuestKernel;

struct WorkloadSpec {
  std::string kind = "pingpong";  // periodic | pingpong
  int tasks = 0;                  // periodic: number of tasks (default: one per vCPU)
  sim_ns work = 50 * NSEC_PER_USEC;
  sim_ns sleep = 200 * NSEC_PER_USEC;
  int cpu_a = 0, cpu_b = 1;       // pingpong: the two CPUs
  double jitter = 0.1;            // work (and sleep) lengths vary uniformly by +/- this fraction
  int cpu = 2;                    // nohz_full_test: the nohz_full CPU under test
  int loops = 200;                // nohz_full_test: sleep/work iterations
};

// The kinds and, for each, the [workload] keys it takes (besides kind).
const std::vector<std::pair<std::string, std::vector<std::string>>>& workload_kind_keys();

// nohz_full_test probes: device interrupts on the nohz_full CPU whose handlers queue
// timer-wheel timers, as in the 2026 series' own test.
struct TimerProbe {
  int cpu;
  sim_ns queued_at;
  sim_ns expiry;      // when it was asked to fire
  sim_ns fired = -1;  // when it ran (-1: not by the end of the run)
};
// The device interrupt token asking the handler to queue `count` timers spaced `delay`.
std::uint64_t timer_probe_token(int count, sim_ns delay);
bool is_timer_probe_token(std::uint64_t t);

struct WorkloadInfo {
  std::string metric_name;  // what one op is, e.g. "loops" or "round trips"
};

// Creates the workload's tasks in `k`. Random start phases come from `seed`.
WorkloadInfo install_workload(GuestKernel& k, const WorkloadSpec& w, std::uint64_t seed);

// Ops completed so far (the headline counter whose rate is the workload metric).
std::uint64_t workload_ops(GuestKernel& k, const WorkloadSpec& w);

}  // namespace vtick
