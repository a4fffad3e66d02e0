#include "guest/workloads.hpp"

#include "core/rng.hpp"
#include "guest/kernel.hpp"

namespace vtick {

static std::uint64_t only(int cpu) { return 1ULL << cpu; }

const std::vector<std::pair<std::string, std::vector<std::string>>>& workload_kind_keys() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> k = {
      {"idle", {}},
      {"periodic", {"workload.tasks", "workload.work", "workload.sleep", "workload.jitter"}},
      {"pingpong", {"workload.work", "workload.jitter", "workload.cpu_a", "workload.cpu_b"}},
      {"nohz_full_test", {"workload.cpu", "workload.work", "workload.sleep", "workload.loops"}},
  };
  return k;
}

std::uint64_t timer_probe_token(int count, sim_ns delay) {
  return (1ULL << 63) | (static_cast<std::uint64_t>(count) << 32) | static_cast<std::uint64_t>(delay / 1000);
}
bool is_timer_probe_token(std::uint64_t t) { return t >> 63; }

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
  if (w.kind == "nohz_full_test") {
    // the series' test: on a nohz_full CPU, 100 us sleeps alternating with 10 ms of
    // user work, `loops` times; then the task waits for good and the CPU polls.
    int never = k.add_event();
    k.add_task("nohz-test", {{PhaseKind::Sleep, w.sleep, -1}, {PhaseKind::Run, w.work, -1},
                             {PhaseKind::Loop, w.loops, 0}, {PhaseKind::Wait, 0, never}}, w.cpu, only(w.cpu));
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
  if (w.kind == "nohz_full_test") {  // iterations done: the Loop phase (index 2) counts down
    const Task& t = *k.tasks().front();
    if (t.ops > 0 || t.pc == 3) return static_cast<std::uint64_t>(w.loops);
    sim_ns left = t.loop_left.size() > 2 ? t.loop_left[2] : 0;
    return left ? static_cast<std::uint64_t>(w.loops - left) : 0;
  }
  if (w.kind == "pingpong") return k.tasks().front()->ops;
  std::uint64_t n = 0;
  for (const auto& t : k.tasks()) n += t->ops;
  return n;
}

}  // namespace vtick
