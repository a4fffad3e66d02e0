// The 2026 nohz_full idle=poll series' own test: sleep/work loops on the nohz_full CPU,
// then a test device whose interrupts make the CPU queue timer-wheel timers while it
// polls in idle (do they fire on time?).
#include "guest/workloads/kinds.hpp"

namespace vtick {

namespace {
class NohzFullTest final : public Workload {
 public:
  void install(GuestKernel& k, const WorkloadSpec& w, std::uint64_t) override {
    int never = k.add_event();
    cpu_ = w.geti("cpu");
    loops_ = w.geti("loops");
    task_ = &add_task(k, "nohz-test", {{PhaseKind::Sleep, w.getd("sleep"), -1}, {PhaseKind::Run, w.getd("work"), -1},
                                       {PhaseKind::Loop, loops_, 0}, {PhaseKind::Wait, 0, never}}, cpu_, only_cpu(cpu_));
    // two probe requests: one timer 5 ms out, then two timers 2 ms apart
    probe1_ = k.add_request([this](GuestCpu& c) { queue_probe_timers(c, 1, 5 * NSEC_PER_MSEC); });
    probe2_ = k.add_request([this](GuestCpu& c) { queue_probe_timers(c, 2, 2 * NSEC_PER_MSEC); });
  }
  // the two checks, 90 ms and 50 ms before the end of the run
  void start_devices(TestDevice& d) override {
    d.start([this, &d] {
      d.sleep_until(d.run_end() - 90 * NSEC_PER_MSEC);
      d.raise(cpu_, probe1_);
      d.sleep_until(d.run_end() - 50 * NSEC_PER_MSEC);
      d.raise(cpu_, probe2_);
    });
  }
  std::uint64_t ops(const GuestKernel&) const override {  // iterations done: the Loop phase (index 2) counts down
    const Task& t = *task_;
    if (t.ops > 0 || t.pc == 3) return static_cast<std::uint64_t>(loops_);
    sim_ns left = t.loop_left.size() > 2 ? t.loop_left[2] : 0;
    return left ? static_cast<std::uint64_t>(loops_ - left) : 0;
  }
  void report(const GuestKernel& k, sim_ns now, const Report& out) const override {
    Workload::report(k, now, out);
    for (std::size_t i = 0; i < probes_.size(); ++i) {
      const Probe& p = probes_[i];
      const std::string n = "probe.timer" + std::to_string(i) + ".";
      out(n + "expiry_ns", static_cast<double>(p.expiry), false);
      out(n + "fired_ns", static_cast<double>(p.fired), false);
      out(n + "lateness_ns", static_cast<double>(p.fired >= 0 ? p.fired - p.expiry : now - p.expiry), false);
    }
  }

 private:
  struct Probe {
    sim_ns expiry;      // when it was asked to fire
    sim_ns fired = -1;  // when it ran (-1: not by the end of the run)
  };
  // The probe device's interrupt handler queues `count` timers `delay` apart.
  void queue_probe_timers(GuestCpu& c, int count, sim_ns delay) {
    for (int i = 1; i <= count; ++i) {
      std::size_t idx = probes_.size();
      probes_.push_back({c.now() + i * delay});
      c.add_timer(i * delay, [this, idx](GuestCpu& on, const WheelTimer&) { probes_[idx].fired = on.now(); });
    }
  }
  int cpu_ = 0, loops_ = 0;
  const Task* task_ = nullptr;
  std::uint64_t probe1_ = 0, probe2_ = 0;
  std::vector<Probe> probes_;
};
}  // namespace

WorkloadKind nohz_full_test_kind() {
  return {WorkloadKindId::NohzFullTest, "the 2026 nohz_full idle=poll series' test (sleep/work loops, then probe timers)", "loops",
          {{"cpu", 'i', 2, 0, 511, "the nohz_full CPU under test"},
           {"work", 'd', 10 * MS, 1, 10 * S, "user work per loop"},
           {"sleep", 'd', 100 * US, 1, 10 * S, "sleep per loop"},
           {"loops", 'i', 200, 1, 1e6, "sleep/work iterations"}},
          factory<NohzFullTest>()};
}

}  // namespace vtick
