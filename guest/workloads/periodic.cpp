// N tasks each alternating work and sleep (a cyclictest-like load, rt-app's run/sleep).
#include "guest/workloads/kinds.hpp"

namespace vtick {

namespace {
class Periodic final : public Workload {
 public:
  void install(GuestKernel& k, const WorkloadSpec& w, std::uint64_t seed) override {
    const int n = k.nr_cpus();
    bool pinned = w.geti("pinned") != 0;
    for (int i = 0; i < count_or_vcpus(w, "tasks", n); ++i) {
      int cpu = i % n;
      Rng rng(seed, "workload/periodic/task" + std::to_string(i));
      Task& t = add_task(k, "periodic-" + std::to_string(i),
                         {{PhaseKind::Run, w.getd("work"), -1, w.get("jitter")}, {PhaseKind::Sleep, w.getd("sleep"), -1, w.get("jitter")}},
                         cpu, pinned ? only_cpu(cpu) : all_cpus(n));
      k.delay_start(t, rng.uniform(0, w.getd("work") + w.getd("sleep") - 1));
    }
  }
};
}  // namespace

WorkloadKind periodic_kind() {
  return {WorkloadKindId::Periodic, "N tasks each alternating work W and sleep S from a random phase", "loops",
          {{"tasks", 'i', 0, 0, 4096, "number of tasks (0: one per vCPU), task i starts on CPU i mod vCPUs"},
           {"work", 'd', 300 * US, 1, 10 * S, "CPU work per loop"},
           {"sleep", 'd', 700 * US, 1, 10 * S, "sleep per loop (nanosleep, with timer slack)"},
           {"jitter", 'f', 0.1, 0, 1, "work and sleep vary uniformly by +/- this fraction"},
           {"pinned", 'i', 1, 0, 1, "1: each task pinned to its CPU; 0: free to move"}},
          factory<Periodic>()};
}

}  // namespace vtick
