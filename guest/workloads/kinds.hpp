// The workload kinds, one file each; guest/workloads.cpp registers them in
// WorkloadKindId order.
#pragma once
#include <memory>

#include "core/rng.hpp"
#include "guest/kernel.hpp"
#include "guest/workloads.hpp"

namespace vtick {

inline constexpr double US = 1e3, MS = 1e6, S = 1e9;
inline std::uint64_t only_cpu(int cpu) { return 1ULL << cpu; }
inline std::uint64_t all_cpus(int n) { return n >= 64 ? ~0ULL : (1ULL << n) - 1; }
// A "one per vCPU" key: 0 means the vCPU count.
inline int count_or_vcpus(const WorkloadSpec& w, const char* key, int n) { return w.geti(key) > 0 ? w.geti(key) : n; }

WorkloadKind idle_kind();
WorkloadKind periodic_kind();
WorkloadKind pingpong_kind();
WorkloadKind nohz_full_test_kind();
WorkloadKind sysbench_threads_kind();
WorkloadKind oltp_kind();
WorkloadKind hackbench_kind();
WorkloadKind script_kind();

template <class W>
std::function<std::unique_ptr<Workload>()> factory() {
  return [] { return std::make_unique<W>(); };
}

}  // namespace vtick
