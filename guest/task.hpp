// Guest tasks: programs of phases interpreted by the guest scheduler on a vCPU.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

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
};

enum class TaskState { Runnable, Running, Sleeping, Blocked };

struct Task {
  int pid = 0;
  std::string comm;
  std::vector<Phase> program;  // repeated forever; one pass is one "op"
  std::uint64_t allowed = ~0ULL;  // cpumask (bit per CPU)
  int cpu = 0;                    // CPU it runs or last ran on

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

// A futex-backed counting event (the userspace side of a semaphore / eventfd).
struct WaitEvent {
  int count = 0;
  std::deque<Task*> waiters;
};

}  // namespace vtick
