// guest/fair_nohz.cpp, fair_wakeup.cpp, background.cpp: stats kicks, vcpu_is_preempted,
// the background presets.
#include <catch2/catch.hpp>

#include "guest/kernel.hpp"
#include "helpers.hpp"

using namespace vtick;

namespace {
constexpr std::uint64_t kAll = ~0ULL;

RunResult run_with(const std::string& toml, const std::vector<std::string>& sets, SimHooks hooks = {}) {
  RunResult r = run_simulation(test::scenario(toml, sets), hooks);
  INFO(r.error);
  REQUIRE_FALSE(r.failed);
  return r;
}
}  // namespace

TEST_CASE("a stats kick reaches an idle CPU beside a busy one once per LOAD_AVG_PERIOD while it has blocked load") {
  // vCPU0 spins; a task pinned on vCPU1 works 50 ms, then sleeps for good: vCPU1 idles
  // with its tick stopped (legacy) and 50 ms of blocked load that decays by half every
  // 32 ms; vCPU0's busy ticks kick it with NOHZ_STATS_KICK every 32 jiffies until the
  // load is below 1 (about 10 half-lives)
  test::Recorder rec;
  SimHooks hooks;
  hooks.sink = &rec;
  hooks.guest_setup = [](GuestKernel& k) {
    k.add_task("spin", {{PhaseKind::Run, 1000000, -1}}, 0, 1);
    int never = k.add_event();
    k.add_task("once", {{PhaseKind::Run, 50000000, -1}, {PhaseKind::Wait, 0, never}}, 1, 2);
  };
  RunResult r = run_with("[workload]\nkind = \"idle\"\n[run]\nduration = \"600ms\"\nwarmup = \"0ns\"\n",
                         {"guest.tick_policy=legacy"}, hooks);
  std::vector<sim_ns> stats;
  for (const auto& e : rec.events)
    if (e.id == EventId::NohzKick && (e.nohz_kick.flags & GuestKernel::NOHZ_STATS_KICK)) {
      CHECK(e.cpu == 0);
      CHECK(e.nohz_kick.ilb_cpu == 1);
      stats.push_back(e.t);
    }
  REQUIRE(stats.size() >= 8);
  CHECK(stats.size() <= 14);
  CHECK(stats.front() >= 50 * NSEC_PER_MSEC);  // not before vCPU1 idles
  for (std::size_t i = 1; i < stats.size(); ++i) {
    INFO("kick " << i);
    sim_ns gap = stats[i] - stats[i - 1];
    CHECK(gap >= 32 * NSEC_PER_MSEC);
    CHECK(gap <= 34 * NSEC_PER_MSEC);  // the first busy tick after next_blocked
  }
  CHECK(stats.back() < 500 * NSEC_PER_MSEC);  // the load has decayed: they stop
  CHECK(r.metrics.get("sched.ilb_kicks.stats") + r.metrics.get("sched.ilb_kicks.balance") >= stats.size());
}

TEST_CASE("a wake-up passes over an idle vCPU whose thread the host preempted (vcpu_is_preempted)") {
  // idle=poll: vCPU1 idles without halting, so its thread stays runnable and a host thread
  // preempts it (a halted vCPU blocks instead and is not "preempted"); a task that wakes on
  // the busy vCPU0 wakes a task that last ran on vCPU1 and finds vCPU1 idle but preempted
  // (KVM_VCPU_PREEMPTED) some of the time
  RunResult r = run_with("[guest]\ncmdline = \"idle=poll\"\n[workload]\nkind = \"idle\"\n[run]\nduration = \"200ms\"\n",
                         {"host.noise.threads=1", "host.noise.hz=2000", "host.noise.work=200us", "host.noise.cpus=1"}, [] {
                           SimHooks h;
                           h.guest_setup = [](GuestKernel& k) {
                             k.add_task("spin", {{PhaseKind::Run, 1000000, -1}}, 0, 1);
                             int ev = k.add_event();
                             k.add_task("waker", {{PhaseKind::Sleep, 300000, -1}, {PhaseKind::Wake, 0, ev}}, 0, 1);
                             k.add_task("wakee", {{PhaseKind::Wait, 0, ev}, {PhaseKind::Run, 20000, -1}}, 1, kAll);
                           };
                           return h;
                         }());
  CHECK(r.metrics.get("sched.wake_preempted_skipped") >= 1);
  CHECK(r.metrics.get("vcpu1.host.preemptions") >= 1);
}

TEST_CASE("background preset measured: its tasks run, and the workload's ops leave them out") {
  RunResult bg = run_with("[workload]\nkind = \"sysbench_threads\"\n[run]\nduration = \"1s\"\n", {"guest.background.preset=measured"});
  CHECK(bg.metrics.get("task.4.kdamond.0.ops") >= 1);
  CHECK(bg.metrics.get("task.5.agent.ops") >= 10);       // ~20/s
  CHECK(bg.metrics.get("task.5.agent.ops") <= 30);
  CHECK(bg.metrics.get("task.6.kworker/0.ops") >= 1);    // per-CPU, pinned
  double events = bg.metrics.get("workload.ops");
  CHECK(events == bg.metrics.get("task.2.sysbench-0.ops") + bg.metrics.get("task.3.sysbench-1.ops"));
  CHECK(bg.metrics.get("sched.switches") >= 2 * 20);  // each agent wake-up switches in and out
}

TEST_CASE("background scale 0 installs nothing") {
  RunResult r = run_with("[workload]\nkind = \"idle\"\n[run]\nduration = \"100ms\"\n",
                         {"guest.background.preset=cloud", "guest.background.scale=0"});
  CHECK(r.metrics.get("sched.switches") == 0);
}
