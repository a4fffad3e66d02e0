// guest/hrtimer: the clock event device is written only when the earliest expiry changes.
#include <catch2/catch.hpp>

#include "guest/hrtimer.hpp"
#include "platform/vhw.hpp"

using namespace vtick;

namespace {
struct FakeCpu final : VirtualCpu {
  sim_ns t = 0;
  std::vector<std::pair<char, sim_ns>> writes;  // 'D' deadline, 'C' control
  int cpu_id() const override { return 0; }
  sim_ns clock() const override { return t; }
  sim_ns steal_clock() const override { return 0; }
  bool vcpu_is_preempted() const override { return false; }
  sim_ns run(sim_ns) override { return 0; }
  void local_irq_disable() override {}
  void local_irq_enable() override {}
  bool irqs_disabled() const override { return true; }
  void safe_halt() override {}
  void poll_wait(sim_ns) override {}
  void cpu_off() override {}
  void timer_write_deadline(sim_ns d) override { writes.push_back({'D', d}); }
  void timer_write_control(bool en) override { writes.push_back({'C', en}); }
  void send_ipi(int, IrqVector) override {}
  void write_poll_control(bool) override {}
  void io_submit(std::uint64_t) override {}
  void net_xmit(std::uint64_t) override {}
  std::vector<std::uint64_t> io_completions() override { return {}; }
  void notify_poller() override {}
  void promise_local(sim_ns) override {}
  bool promised_local() const override { return false; }
  void revoke_local() override {}
};
Hrtimer timer(const char* name, int* fired) {
  Hrtimer h;
  h.name = name;
  h.function = [fired](sim_ns) { ++*fired; return HrtimerRestart::NoRestart; };
  return h;
}
}  // namespace

TEST_CASE("hrtimer: x86 lapic-deadline writes follow the earliest expiry only") {
  FakeCpu cpu;
  VirtualCpu* hw = &cpu;
  ClockEventDevice dev(Isa::X86_64, hw);
  HrtimerBase base(dev, 0);
  int fa = 0, fb = 0, fc = 0;
  Hrtimer a = timer("a", &fa), b = timer("b", &fb), c = timer("c", &fc);

  base.start(a, 1000);  // device leaves ONESHOT_STOPPED: LVTT, then the deadline
  REQUIRE(cpu.writes == std::vector<std::pair<char, sim_ns>>{{'C', 1}, {'D', 1000}});
  base.start(b, 2000);  // later: no write
  CHECK(cpu.writes.size() == 2);
  base.start(c, 500);   // earlier: one deadline write
  CHECK(cpu.writes.back() == std::make_pair('D', sim_ns{500}));
  CHECK(cpu.writes.size() == 3);
  base.cancel(b);       // not the programmed one: no write
  CHECK(cpu.writes.size() == 3);
  base.cancel(c);       // the programmed one: reprogram for the next (a)
  CHECK(cpu.writes.back() == std::make_pair('D', sim_ns{1000}));
  base.start(a, 1500);  // restart of the earliest (force_local): one evaluation, one write
  CHECK(cpu.writes.back() == std::make_pair('D', sim_ns{1500}));
  CHECK(cpu.writes.size() == 5);
  base.cancel(a);       // last timer: ONESHOT_STOPPED = LVTT masked + TSC_DEADLINE 0
  CHECK(cpu.writes.size() == 7);
  CHECK(cpu.writes[5] == std::make_pair('C', sim_ns{0}));
  CHECK(cpu.writes[6] == std::make_pair('D', sim_ns{0}));
  CHECK(dev.stopped());
  CHECK(dev.stats().stop == 1);
  CHECK(dev.stats().restart == 1);
}

TEST_CASE("hrtimer: arm64 arch_timer programs CVAL then CTL, stops with CTL only") {
  FakeCpu cpu;
  VirtualCpu* hw = &cpu;
  ClockEventDevice dev(Isa::Arm64, hw);
  HrtimerBase base(dev, 0);
  int f = 0;
  Hrtimer a = timer("a", &f);
  base.start(a, 4000);
  CHECK(cpu.writes == std::vector<std::pair<char, sim_ns>>{{'D', 4000}, {'C', 1}});
  base.cancel(a);
  CHECK(cpu.writes.back() == std::make_pair('C', sim_ns{0}));
  CHECK(cpu.writes.size() == 3);
}

TEST_CASE("hrtimer_interrupt runs what expired (soft expiry with slack) and programs once") {
  FakeCpu cpu;
  VirtualCpu* hw = &cpu;
  ClockEventDevice dev(Isa::X86_64, hw);
  HrtimerBase base(dev, 0);
  int fa = 0, fb = 0, fc = 0;
  Hrtimer a = timer("a", &fa), b = timer("b", &fb), c = timer("c", &fc);
  base.start(a, 1000);
  base.start(b, 1100, 500);  // sleeps 1100..1600 (timer slack)
  base.start(c, 5000);
  cpu.writes.clear();
  cpu.t = 1200;  // a fires; b's soft expiry has passed, so it runs at the same interrupt
  base.interrupt([&] { return cpu.t; });
  CHECK(fa == 1);
  CHECK(fb == 1);
  CHECK(fc == 0);
  CHECK(cpu.writes == std::vector<std::pair<char, sim_ns>>{{'D', 5000}});
  CHECK(base.expires_next() == 5000);
}

TEST_CASE("hrtimer_forward moves past now by whole intervals") {
  Hrtimer h;
  h.set_expires(1000);
  CHECK(h.forward(500, 1000) == 0);  // not expired: unchanged
  CHECK(h.expires == 1000);
  CHECK(h.forward(1000, 1000) == 1);  // expired exactly: next grid point
  CHECK(h.expires == 2000);
  CHECK(h.forward(5500, 1000) == 4);
  CHECK(h.expires == 6000);
}
