// CONFIG_VIRT_CPU_ACCOUNTING_GEN on nohz_full CPUs (issue 17): user time measured by
// context tracking, not sampled by a tick that is stopped while one task runs.
#include <catch2/catch.hpp>

#include "core/sg.hpp"
#include "guest/kernel.hpp"
#include "helpers.hpp"
#include "host/kvm.hpp"

using namespace vtick;

namespace {

struct Seen {
  Kcpustat old1{}, new1{}, old0{};
  std::uint64_t user_ticks1 = 0;
};

// CPU 1 is nohz_full and runs one task's user work (10 ms a loop, a 20 us syscall-free
// gap between) for the measured 500 ms; CPU 0 runs the same on a ticking CPU.
Seen run(const std::string& cmdline) {
  Scenario sc = test::scenario("[platform]\nshape = \"VM.Standard.A1.Flex.2\"\n[guest]\nhz = 250\ncmdline = \"" + cmdline +
                               "\"\n[workload]\nkind = \"idle\"\n[run]\nduration = \"600ms\"\nwarmup = \"100ms\"\n");
  Seen s;
  SimHooks hooks;
  hooks.guest_setup = [](GuestKernel& k) {
    k.add_task("user1", {{PhaseKind::Run, 10000000, -1}, {PhaseKind::Sleep, 20000, -1}}, 1, 1ULL << 1);
    k.add_task("user0", {{PhaseKind::Run, 10000000, -1}, {PhaseKind::Sleep, 20000, -1}}, 0, 1ULL << 0);
  };
  hooks.vm_setup = [&s](Kvm& vm, GuestKernel& k) {
    spawn_actor("reader", vm.machine().threads[0]->host(), [&s, &k, &vm] {
      sleep_until(590000000);  // before the run ends (600 ms)
      s.old1 = k.cpu(1).cputime().proc_stat_old(true, now());
      s.new1 = k.cpu(1).cputime().proc_stat_new(now(), vm.vcpu(1).steal_clock());
      s.old0 = k.cpu(0).cputime().proc_stat_old(true, now());
    });
  };
  RunResult r = run_simulation(sc, hooks);
  REQUIRE_FALSE(r.failed);
  return s;
}

constexpr auto U = static_cast<std::size_t>(Cputime::User);

}  // namespace

TEST_CASE("vtime: a nohz_full CPU running user work shows it as user time in /proc/stat, in both schemes") {
  Seen s = run("nohz_full=1");
  // ~588 ms of the 590 ms in user space (the sleeps are 20 us each): was 0 (no tick ran)
  CHECK(s.old1[U] > 550000000);
  CHECK(s.old1[U] <= 590000000);
  CHECK(s.new1[U] == s.old1[U]);
  // the ticking CPU samples the same work at whole ticks
  CHECK(s.old0[U] > 550000000);
  CHECK(s.old0[U] <= 600000000);  // whole ticks: up to one over
}
