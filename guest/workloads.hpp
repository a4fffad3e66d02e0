// Guest workloads built from task programs (the foundation's two: periodic and pingpong).
#pragma once
#include <cstdint>
#include <string>

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
};

struct WorkloadInfo {
  std::string metric_name;  // what one op is, e.g. "loops" or "round trips"
};

// Creates the workload's tasks in `k`. Random start phases come from `seed`.
WorkloadInfo install_workload(GuestKernel& k, const WorkloadSpec& w, std::uint64_t seed);

// Ops completed so far (the headline counter whose rate is the workload metric).
std::uint64_t workload_ops(GuestKernel& k, const WorkloadSpec& w);

}  // namespace vtick
