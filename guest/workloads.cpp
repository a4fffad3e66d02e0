#include "guest/workloads.hpp"

#include "core/rng.hpp"
#include "guest/kernel.hpp"

namespace vtick {

static std::uint64_t only(int cpu) { return 1ULL << cpu; }

WorkloadInfo install_workload(GuestKernel& k, const WorkloadSpec& w, std::uint64_t seed) {
  if (w.kind == "idle") return {"ops"};  // no tasks: the idle VM itself is the subject
  if (w.kind == "periodic") {
    // N tasks, each alternating work W and sleep S, starting at a random phase.
    for (int i = 0; i < w.tasks; ++i) {
      int cpu = i % k.nr_cpus();
      Rng rng(seed, "workload/periodic/task" + std::to_string(i));
      Task& t = k.add_task("periodic-" + std::to_string(i),
                           {{PhaseKind::Run, w.work, -1, w.jitter}, {PhaseKind::Sleep, w.sleep, -1, w.jitter}}, cpu, only(cpu));
      k.delay_start(t, rng.uniform(0, w.work + w.sleep - 1));
    }
    return {"loops"};
  }
  // pingpong: two tasks on different CPUs hand a token back and forth through
  // futex-style wait/wake; each does W of work per turn.
  int ping = k.add_event(), pong = k.add_event();
  k.add_task("ping", {{PhaseKind::Run, w.work, -1, w.jitter}, {PhaseKind::Wake, 0, pong}, {PhaseKind::Wait, 0, ping}}, w.cpu_a, only(w.cpu_a));
  k.add_task("pong", {{PhaseKind::Wait, 0, pong}, {PhaseKind::Run, w.work, -1, w.jitter}, {PhaseKind::Wake, 0, ping}}, w.cpu_b, only(w.cpu_b));
  return {"round trips"};
}

std::uint64_t workload_ops(GuestKernel& k, const WorkloadSpec& w) {
  if (w.kind == "idle") return 0;
  if (w.kind == "pingpong") return k.tasks().front()->ops;
  std::uint64_t n = 0;
  for (const auto& t : k.tasks()) n += t->ops;
  return n;
}

}  // namespace vtick
