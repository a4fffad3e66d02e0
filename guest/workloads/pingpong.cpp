// Two tasks on two CPUs hand a token back and forth by futex wait/wake (a context-switch
// ping-pong, as perf bench sched pipe does with a pipe).
#include "guest/workloads/kinds.hpp"

namespace vtick {

namespace {
class Pingpong final : public Workload {
 public:
  void install(GuestKernel& k, const WorkloadSpec& w, std::uint64_t) override {
    int ping = k.add_event(), pong = k.add_event();
    int a = w.geti("cpu_a"), b = w.geti("cpu_b");
    double j = w.get("jitter");
    ping_ = &add_task(k, "ping", {{PhaseKind::Run, w.getd("work"), -1, j}, {PhaseKind::Wake, 0, pong}, {PhaseKind::Wait, 0, ping}}, a,
                      only_cpu(a));
    add_task(k, "pong", {{PhaseKind::Wait, 0, pong}, {PhaseKind::Run, w.getd("work"), -1, j}, {PhaseKind::Wake, 0, ping}}, b, only_cpu(b));
  }
  std::uint64_t ops(const GuestKernel&) const override { return ping_->ops; }  // round trips

 private:
  const Task* ping_ = nullptr;
};
}  // namespace

WorkloadKind pingpong_kind() {
  return {WorkloadKindId::Pingpong, "two tasks on two CPUs hand a token back and forth by futex wait/wake", "round trips",
          {{"work", 'd', 50 * US, 1, 10 * S, "CPU work per turn"},
           {"jitter", 'f', 0.1, 0, 1, "work varies uniformly by +/- this fraction"},
           {"cpu_a", 'i', 0, 0, 511, "CPU of the first task"},
           {"cpu_b", 'i', 1, 0, 511, "CPU of the second task"}},
          factory<Pingpong>()};
}

}  // namespace vtick
