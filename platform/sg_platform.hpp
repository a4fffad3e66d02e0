// The host machine as SimGrid sees it: one SimGrid host per hardware thread.
#pragma once
#include <memory>
#include <vector>

#include "platform/arch.hpp"
#include "platform/hw_thread.hpp"
#include "platform/topology.hpp"

namespace vtick {

// Builds the SimGrid platform (must run after the Engine exists and before actors):
// each hardware thread is a host of nominal speed 1e9 flop/s, so one flop is one ns
// of work at nominal speed; SMT threads get three pstates (sibling idle / busy /
// spinning) switched by their sibling's HwThread::set_activity. A star zone with
// zero-latency links carries the notifications (doorbells) between threads.
struct Machine {
  std::unique_ptr<Topology> topology;
  ArchCosts costs;
  std::vector<std::unique_ptr<HwThread>> threads;  // by OS index
};

inline constexpr double kNominalFlops = 1e9;

std::unique_ptr<Machine> build_machine(int cores, int threads_per_core, const ArchCosts& costs);

}  // namespace vtick
