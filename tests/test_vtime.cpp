// CONFIG_VIRT_CPU_ACCOUNTING_GEN on nohz_full CPUs (issue 17): user time measured by
// context tracking, not sampled by a tick that is stopped while one task runs.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

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

TEST_CASE("run --proc-stat samples every CPU's /proc/stat line into the JSON and a CSV, and changes no result") {
  std::string a = test::temp_path("ps-a.json"), b = test::temp_path("ps-b.json"), csv = test::temp_path("ps.csv");
  const std::string run = "run " VTICK_SOURCE_DIR "/scenarios/default.toml --duration 50ms --quiet ";
  REQUIRE(test::run_cli(run + "--json " + a).status == 0);
  auto r = test::run_cli(run + "--json " + b + " --proc-stat 10ms --proc-stat-csv " + csv);
  REQUIRE(r.status == 0);
  auto ja = nlohmann::json::parse(test::read_file(a)), jb = nlohmann::json::parse(test::read_file(b));
  const auto& ps = jb["proc_stat"];
  CHECK(ps["scheme"] == "old");
  CHECK(ps["interval_ns"] == 10000000);
  CHECK(ps["columns"][2] == "user_ns");
  CHECK(ps["columns"][5] == "idle_ns");
  REQUIRE(ps["samples"].size() == 8);  // 10, 20, 30, 40 ms x 2 CPUs
  CHECK(ps["samples"][7][0] == 40000000);
  CHECK(ps["samples"][7][1] == 1);
  std::string text = test::read_file(csv);
  CHECK(text.rfind("t_ns,cpu,user_ns,nice_ns,system_ns,idle_ns,iowait_ns,irq_ns,softirq_ns,steal_ns,idle_task_ns\n", 0) == 0);
  CHECK(ps["columns"][10] == "idle_task_ns");
  // the model's idle-task time: within the sample's elapsed time, and at least the old
  // scheme's idle deltas (taken inside it)
  for (const auto& row : ps["samples"]) {
    CHECK(row[10].get<double>() <= row[0].get<double>());
    CHECK(row[10].get<double>() >= row[5].get<double>() + row[6].get<double>());
  }
  CHECK(std::count(text.begin(), text.end(), '\n') == 9);
  // an observer: every counter as without it
  CHECK(ja["metrics"] == jb["metrics"]);
  CHECK(ja["summary"] == jb["summary"]);
  for (const char* bad : {"--proc-stat 0", "--proc-stat 10", "--proc-stat 1ns", "--proc-stat-csv x.csv", "--proc-stat 10ns"}) {
    INFO(bad);
    CHECK(test::run_cli(run + bad).status == 2);
  }
}
