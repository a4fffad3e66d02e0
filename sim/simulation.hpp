// Assembly of one simulation (platform, KVM, guest, workload) and its run.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/log_histogram.hpp"
#include "core/sg_counts.hpp"
#include "core/time.hpp"
#include "sim/metrics.hpp"
#include "sim/scenario.hpp"

namespace vtick {

struct RunResult {
  Metrics metrics;             // over the measured window (after warm-up)
  std::string ops_name;        // what one workload op is
  sim_ns measured_ns = 0;
  LogHistogram wake_latency;  // guest task wake-up latencies in the window (ns)
  LogHistogram op_latency;    // the workload's measured ops in the window (ns)
  double wall_seconds = 0;
  std::uint64_t sg_events = 0; // SimGrid waits + executions + notifications (0 under the vtick scheduler)
  SgEventCounts sg_detail;     // the model's blocking calls, hand-offs and the like (core/sg_counts.hpp)
  bool input_error = false;  // the run could not start as asked (a SimGrid option, the address space): exit 2
  std::vector<std::string> invariants_checked;  // sim/invariants.cpp, at the end of a complete run
  bool failed = false;
  std::string error;
};

class GuestKernel;
struct Machine;
class EventSink;
class Kvm;

// Extension points for tests and tools: extra guest tasks, extra actors, an event sink.
struct SimHooks {
  std::function<void(GuestKernel&)> guest_setup;
  std::function<void(Machine&)> host_setup;
  std::function<void(Kvm&, GuestKernel&)> vm_setup;  // e.g. an actor driving devices
  EventSink* sink = nullptr;
  // Called with the simulated time each time it passes another 1% of run.duration, from
  // SimGrid's clock-advance signal: no actor, no event, nothing the model can see.
  std::function<void(sim_ns)> progress;
  // SimGrid configuration options, KEY:VALUE (vtick run --sg-cfg), set after vtick's own:
  // e.g. contexts/factory:thread, under which AddressSanitizer follows the actors.
  std::vector<std::string> sg_cfg;
};

// Runs `sc` to its end. One simulation per process (SimGrid's engine is a singleton).
RunResult run_simulation(const Scenario& sc, const SimHooks& hooks = {});

}  // namespace vtick
