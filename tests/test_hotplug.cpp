// CPU hotplug as kernel/cpu.c does it (issue 17): the tasks of a CPU going offline move
// to an online CPU they may run on (select_fallback_rq(), the affinity widened when none
// is left), that CPU is told at once, the dying CPU's hrtimers and wheel timers move to
// an online CPU, and the CPU comes back with its idle accounting running.
#include <catch2/catch.hpp>
#include <functional>
#include <map>

#include "core/sg.hpp"
#include "guest/kernel.hpp"
#include "helpers.hpp"
#include "host/kvm.hpp"

using namespace vtick;

namespace {

// A 4-vCPU arm64 guest (no SMT) with nothing but `prog` on CPU 2, allowed on `allowed`;
// CPU 2 offline at 50 ms and online at 150 ms. `probe` runs at each of `at` (ns).
struct Probe {
  std::map<sim_ns, std::uint64_t> ops;
  std::map<sim_ns, int> cpu;
  std::map<sim_ns, sim_ns> idle2;  // CPU 2's /proc/stat idle (new scheme)
  std::map<sim_ns, bool> wheel2_empty;
  std::uint64_t affinity_broken = 0, migrate_hotplug = 0;
  RunResult result;
};

Probe hotplug_run(std::vector<Phase> prog, std::uint64_t allowed, const std::vector<sim_ns>& at, double background_hz = 0) {
  Scenario sc = test::scenario(
      "[platform]\nshape = \"VM.Standard.A1.Flex.4\"\n[guest]\nhz = 250\ncpuidle_driver = \"none\"\n"
      "hotplug = \"2:offline@50ms 2:online@150ms\"\n[workload]\nkind = \"idle\"\n[run]\nduration = \"250ms\"\n",
      {"guest.timers.background_hz=" + std::to_string(background_hz)});
  Probe p;
  Task* task = nullptr;
  SimHooks hooks;
  hooks.guest_setup = [&](GuestKernel& k) { task = &k.add_task("worker", prog, 2, allowed); };
  hooks.vm_setup = [&](Kvm& vm, GuestKernel& k) {
    spawn_actor("probe", vm.machine().threads[0]->host(), [&, at] {
      for (sim_ns t : at) {
        sleep_until(t);
        p.ops[t] = task->ops;
        p.cpu[t] = task->cpu;
        p.idle2[t] = k.cpu(2).cputime().proc_stat_new(t, vm.vcpu(2).steal_clock())[static_cast<size_t>(Cputime::Idle)];
        p.wheel2_empty[t] = k.cpu(2).wheel().empty();
      }
      p.affinity_broken = k.sched_stats.affinity_broken;
      p.migrate_hotplug = k.sched_stats.migrate_hotplug;
    });
  };
  p.result = run_simulation(sc, hooks);
  return p;
}

const sim_ns MS = 1000000;

}  // namespace

TEST_CASE("hotplug: a task pinned to the CPU going offline keeps running (affinity widened) and after it comes back") {
  // 200 us of work then 800 us of sleep: about one loop per ms wherever it runs
  Probe p = hotplug_run({{PhaseKind::Run, 200000, -1}, {PhaseKind::Sleep, 800000, -1}}, 1ULL << 2,
                        {49 * MS, 60 * MS, 140 * MS, 160 * MS, 240 * MS});
  INFO(p.result.error);
  REQUIRE_FALSE(p.result.failed);
  CHECK(p.affinity_broken == 1);         // select_fallback_rq(): no online CPU in {2}
  CHECK(p.cpu[60 * MS] != 2);
  std::uint64_t offline_loops = p.ops[140 * MS] - p.ops[60 * MS];
  CHECK(offline_loops >= 70);            // 80 ms at ~1 loop/ms (was 0: the task never ran again)
  CHECK(p.ops[240 * MS] - p.ops[160 * MS] >= 70);
}

TEST_CASE("hotplug: a task allowed on the CPU going offline and another moves to the other one, its affinity kept") {
  Probe p = hotplug_run({{PhaseKind::Run, 200000, -1}, {PhaseKind::Sleep, 800000, -1}}, (1ULL << 2) | (1ULL << 3),
                        {60 * MS, 100 * MS, 140 * MS});
  REQUIRE_FALSE(p.result.failed);
  CHECK(p.affinity_broken == 0);
  for (sim_ns t : {60 * MS, 100 * MS, 140 * MS}) CHECK(p.cpu[t] == 3);
  CHECK(p.ops[140 * MS] - p.ops[60 * MS] >= 70);
}

TEST_CASE("hotplug: the CPU a running task moves to is rescheduled at once, even idle with its tick stopped") {
  // back-to-back 100 us loops: no sleep, so nothing but the move can bring it back
  Probe p = hotplug_run({{PhaseKind::Run, 100000, -1}}, ~0ULL, {50 * MS, 53 * MS});
  REQUIRE_FALSE(p.result.failed);
  CHECK(p.ops[53 * MS] - p.ops[50 * MS] >= 20);  // 3 ms: ~30 loops, none lost waiting for a tick
}

TEST_CASE("hotplug: a task asleep on the CPU going offline wakes on time (its hrtimer moved to an online CPU)") {
  // 10 us of work, 30 ms asleep: it sleeps from ~30 ms to ~60 ms, across the offline at 50 ms
  Probe p = hotplug_run({{PhaseKind::Run, 10000, -1}, {PhaseKind::Sleep, 30000000, -1}}, ~0ULL,
                        {49 * MS, 59 * MS, 62 * MS, 149 * MS});
  REQUIRE_FALSE(p.result.failed);
  // ops counts the sleeps begun (at 0, 30, 60, ... ms)
  CHECK(p.ops[49 * MS] == 2);
  CHECK(p.ops[62 * MS] == 3);                  // woke at ~60 ms (was: never, its timer died with CPU 2)
  CHECK(p.ops[149 * MS] == 5);                 // and every 30 ms after
}

TEST_CASE("hotplug: the dying CPU's wheel timers move, and back online its idle time grows again") {
  Probe p = hotplug_run({{PhaseKind::Run, 10000, -1}, {PhaseKind::Sleep, 5000000, -1}}, 1ULL << 3,
                        {49 * MS, 51 * MS, 140 * MS, 160 * MS, 240 * MS}, 200);
  REQUIRE_FALSE(p.result.failed);
  CHECK(p.wheel2_empty[51 * MS]);                 // timers_dead_cpu(): nothing left on the dead CPU
  CHECK(p.idle2[140 * MS] == p.idle2[51 * MS]);   // offline: no idle time
  CHECK(p.idle2[240 * MS] - p.idle2[160 * MS] > 70 * MS);  // online, idle, accounted (80 ms window)
  CHECK(p.result.invariants_checked.size() > 0);  // the end-of-run checks ran (hotplug accounting)
}
