// guest/tick_sched + idle: the stop/retain decisions of each policy and the tick itself.
#include <catch2/catch.hpp>

#include "guest/kernel.hpp"
#include "helpers.hpp"

using namespace vtick;

namespace {

// One idle episode of one CPU: its stop/retain decisions in order, and for each
// decision whether the halt before it was ended by the tick handler.
struct Episode {
  std::vector<bool> stops;          // true: tick_stop, false: tick_retain
  std::vector<bool> after_tick;     // the previous halt of this episode was a tick wake-up
};

std::vector<Episode> episodes(const test::Recorder& rec, int cpu) {
  std::vector<Episode> out;
  bool in = false, tick_in_halt = false, halted = false;
  for (const auto& e : rec.on_cpu(cpu)) {
    std::string w = e.what;
    if (w == "idle_enter") { out.emplace_back(); in = true; tick_in_halt = false; halted = false; }
    else if (!in) continue;
    else if (w == "idle_exit") in = false;
    else if (w == "halt") { halted = true; tick_in_halt = false; }
    else if (w == "tick" && halted && e.a) tick_in_halt = true;
    else if (w == "halt_end") halted = false;
    else if (w == "tick_stop" || w == "tick_retain") {
      out.back().stops.push_back(w == "tick_stop");
      out.back().after_tick.push_back(tick_in_halt);
      tick_in_halt = false;
    }
  }
  if (in) out.pop_back();  // cut by the end of the run
  return out;
}

// vCPU1 runs a task alternating 100 us of work with 3.5 ms sleeps: each idle episode
// spans about three ticks at HZ=1000.
std::vector<Episode> run_policy(const std::string& policy) {
  Scenario sc = test::scenario(R"(
[guest]
hz = 1000
timer_slack = "0ns"
[workload]
kind = "idle"
[run]
duration = "60ms"
)", {"guest.tick_policy=" + policy});
  test::Recorder rec;
  SimHooks hooks;
  hooks.sink = &rec;
  hooks.guest_setup = [](GuestKernel& k) {
    k.add_task("sleeper", {{PhaseKind::Run, 100000, -1}, {PhaseKind::Sleep, 3500000, -1}}, 1, 1ULL << 1);
  };
  RunResult r = run_simulation(sc, hooks);
  REQUIRE_FALSE(r.failed);
  return episodes(rec, 1);
}

}  // namespace

TEST_CASE("got_tick: the first HLT of an episode keeps the tick, the iteration after a tick wake-up stops it") {
  auto eps = run_policy("got_tick");
  REQUIRE(eps.size() >= 10);
  int stops_after_tick = 0;
  for (const auto& ep : eps) {
    REQUIRE_FALSE(ep.stops.empty());
    CHECK_FALSE(ep.stops.front());  // got_tick == false at every do_idle() entry
    for (std::size_t i = 1; i < ep.stops.size(); ++i) {
      if (ep.after_tick[i]) {
        CHECK(ep.stops[i]);
        ++stops_after_tick;
      }
    }
  }
  CHECK(stops_after_tick >= static_cast<int>(eps.size()) - 1);
}

TEST_CASE("legacy: every idle entry stops the tick") {
  auto eps = run_policy("legacy");
  REQUIRE(eps.size() >= 10);
  for (const auto& ep : eps) {
    REQUIRE(ep.stops.size() >= 1);
    for (bool s : ep.stops) CHECK(s);
  }
}

// (one simulation per test case: SimGrid's engine is a process singleton)
TEST_CASE("force_retain never stops the tick") {
  auto eps = run_policy("force_retain");
  REQUIRE(eps.size() >= 10);
  for (const auto& ep : eps) {
    CHECK_FALSE(ep.stops.empty());
    for (bool s : ep.stops) CHECK_FALSE(s);
  }
}

TEST_CASE("periodic (nohz=off) never decides at all") {
  auto per = run_policy("periodic");
  REQUIRE(per.size() >= 10);
  for (const auto& ep : per) CHECK(ep.stops.empty());
}

// A busy vCPU: the tick fires HZ times per second, on the tick grid, and it never halts.
static void busy_vcpu_ticks(const std::string& shape, int hz) {
  Scenario sc = test::scenario("[workload]\nkind = \"idle\"\n[run]\nduration = \"1s\"\n",
                               {"platform.shape=" + shape, "guest.hz=" + std::to_string(hz)});
  test::Recorder rec;
  SimHooks hooks;
  hooks.sink = &rec;
  hooks.guest_setup = [](GuestKernel& k) { k.add_task("spin", {{PhaseKind::Run, 10000000, -1}}, 0, 1); };
  RunResult r = run_simulation(sc, hooks);
  REQUIRE_FALSE(r.failed);
  double ticks = r.metrics.get("vcpu0.tick.ticks");
  CHECK(ticks >= hz - 1);
  CHECK(ticks <= hz + 1);
  CHECK(r.metrics.get("vcpu0.kvm.halt_exits") == 0);
  CHECK(r.metrics.get("vcpu0.idle.episodes") == 0);
  sim_ns tick_ns = NSEC_PER_SEC / hz;
  for (const auto& e : rec.on_cpu(0))
    if (std::string(e.what) == "tick") CHECK(e.b % tick_ns == 0);
}

TEST_CASE("a busy vCPU at HZ=250 takes 250 +/- 1 ticks per second and no HLT exit (x86)") {
  busy_vcpu_ticks("VM.Standard2.1", 250);
}

TEST_CASE("a busy vCPU at HZ=250 takes 250 +/- 1 ticks per second and no WFI exit (arm64)") {
  busy_vcpu_ticks("VM.Standard.A1.Flex.2", 250);
}

TEST_CASE("a restarted tick lands on the original tick grid") {
  test::Recorder rec;
  Scenario sc = test::scenario("[workload]\nkind = \"periodic\"\nwork = \"2ms\"\nsleep = \"2300us\"\n[run]\nduration = \"100ms\"\n",
                               {"guest.hz=300"});
  SimHooks hooks;
  hooks.sink = &rec;
  RunResult r = run_simulation(sc, hooks);
  REQUIRE_FALSE(r.failed);
  REQUIRE(r.metrics.get("vcpu0.tick.restarts") > 10);
  sim_ns tick_ns = sc.guest.tick_nsec();
  int ticks = 0;
  for (const auto& e : rec.events)
    if (std::string(e.what) == "tick") {
      ++ticks;
      CHECK(e.b % tick_ns == 0);
    }
  CHECK(ticks > 20);
}
