// Guest tasks: programs of phases interpreted by the guest scheduler on a vCPU.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/time.hpp"
#include "guest/hrtimer.hpp"

namespace vtick {

enum class PhaseKind {
  Run,    // user-space work of `ns`
  Sleep,  // nanosleep(ns): an hrtimer with the task's timer slack
  Wait,   // futex wait on `event` (consumes one post, or blocks)
  Wake,   // futex wake on `event` (wakes one waiter, or posts)
};

struct Phase {
  PhaseKind kind = PhaseKind::Run;
  sim_ns ns = 0;
  int event = -1;
  double jitter = 0;  // Run/Sleep: length drawn uniformly in ns * [1 - jitter, 1 + jitter]
};

enum class TaskState { Runnable, Running, Sleeping, Blocked };

struct Task {
  int pid = 0;
  std::string comm;
  std::vector<Phase> program;  // repeated forever; one pass is one "op"
  std::uint64_t allowed = ~0ULL;  // cpumask (bit per CPU)
  int cpu = 0;                    // CPU it runs or last ran on

  Rng rng{0, "task"};            // the task's own random stream (phase lengths)

  // interpreter state
  std::size_t pc = 0;
  sim_ns left = 0;                // work left in the current Run phase
  TaskState state = TaskState::Runnable;
  Hrtimer sleep_timer;
  sim_ns woken_at = -1;           // for wake-up latency

  // results
  std::uint64_t ops = 0;
  std::uint64_t wakeups = 0;
  std::uint64_t migrations = 0;
  sim_ns runtime = 0;
};

// A phase's length, with its jitter drawn from the task's stream.
inline sim_ns phase_length(Task& t, const Phase& ph) {
  if (ph.jitter <= 0) return ph.ns;
  double f = 1.0 + ph.jitter * (2.0 * t.rng.uniform01() - 1.0);
  sim_ns v = static_cast<sim_ns>(static_cast<double>(ph.ns) * f);
  return v > 0 ? v : 1;
}

// A futex-backed counting event (the userspace side of a semaphore / eventfd).
struct WaitEvent {
  int count = 0;
  std::deque<Task*> waiters;
};

}  // namespace vtick
