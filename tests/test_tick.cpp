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
    EventId w = e.id;
    if (w == EventId::IdleEnter) { out.emplace_back(); in = true; tick_in_halt = false; halted = false; }
    else if (!in) continue;
    else if (w == EventId::IdleExit) in = false;
    else if (w == EventId::Halt) { halted = true; tick_in_halt = false; }
    else if (w == EventId::Tick && halted && e.tick.in_idle) tick_in_halt = true;
    else if (w == EventId::HaltEnd) halted = false;
    else if (w == EventId::NohzStop || w == EventId::TickRetain) {
      out.back().stops.push_back(w == EventId::NohzStop);
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
    if (e.id == EventId::Tick) CHECK(e.tick.expires % tick_ns == 0);
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
    if (e.id == EventId::Tick) {
      ++ticks;
      CHECK(e.tick.expires % tick_ns == 0);
    }
  CHECK(ticks > 20);
}

// ---- decision sequences for wake-ups by IPI and by a non-tick hrtimer ----------------

namespace {

// What ended one halt: the tick handler ran in it (got_idle_tick), else a wake-up IPI
// (RESCHEDULE, or CALL_FUNCTION_SINGLE of a wakelist wake-up), else another hrtimer
// (LOCAL_TIMER without the tick), else a device interrupt.
enum class Woke { None, Tick, Ipi, Timer, Device };

struct Decision2 {
  bool stop;
  Woke prev;  // what ended the previous halt of this episode (None: first decision)
};
struct Episode2 {
  std::vector<Decision2> d;
  Woke end = Woke::None;  // what ended the last halt of the episode
  int ticks_in_halt = 0;
};

std::vector<Episode2> episodes2(const test::Recorder& rec, int cpu) {
  std::vector<Episode2> out;
  bool in = false, halted = false, tick = false, ipi = false, timer = false, dev = false;
  Woke last = Woke::None;
  for (const auto& e : rec.on_cpu(cpu)) {
    EventId w = e.id;
    if (w == EventId::IdleEnter) { out.emplace_back(); in = true; halted = false; last = Woke::None; }
    else if (!in) continue;
    else if (w == EventId::IdleExit) { out.back().end = last; in = false; }
    else if (w == EventId::Halt) { halted = true; tick = ipi = timer = dev = false; }
    else if (w == EventId::Tick && halted && e.tick.in_idle) { tick = true; ++out.back().ticks_in_halt; }
    else if (w == EventId::Irq && halted) {
      if (e.irq.vector == IrqVector::Reschedule || e.irq.vector == IrqVector::CallFunction) ipi = true;
      else if (e.irq.vector == IrqVector::LocalTimer) timer = true;
      else if (e.irq.vector == IrqVector::Device) dev = true;
    } else if (w == EventId::HaltEnd) {
      halted = false;
      last = tick ? Woke::Tick : ipi ? Woke::Ipi : timer ? Woke::Timer : dev ? Woke::Device : Woke::None;
    } else if (w == EventId::NohzStop || w == EventId::TickRetain) {
      out.back().d.push_back({w == EventId::NohzStop, out.back().d.empty() ? Woke::None : last});
    }
  }
  if (in) out.pop_back();  // cut by the end of the run
  return out;
}

// vCPU1's episodes end either by a remote wake-up (a task on vCPU0 works 0.3-1.7 ms,
// then futex-wakes the task pinned on vCPU1: a wakelist CALL_FUNCTION_SINGLE IPI into its HLT) or by its
// own nanosleep of 0.3-2.1 ms expiring (an hrtimer that is not the tick). Both spans
// straddle zero, one or two ticks at HZ=1000.
enum class Waker { Ipi, Timer };
std::vector<Episode2> wake_script(const std::string& policy, Waker how) {
  Scenario sc = test::scenario("[guest]\nhz = 1000\ntimer_slack = \"0ns\"\n[workload]\nkind = \"idle\"\n[run]\nduration = \"150ms\"\n",
                               {"guest.tick_policy=" + policy});
  test::Recorder rec;
  SimHooks hooks;
  hooks.sink = &rec;
  hooks.guest_setup = [how](GuestKernel& k) {
    if (how == Waker::Ipi) {
      int ev = k.add_event();
      k.add_task("waker", {{PhaseKind::Run, 1000000, -1, 0.7}, {PhaseKind::Wake, 0, ev}}, 0, 1ULL << 0);
      k.add_task("wakee", {{PhaseKind::Wait, 0, ev}, {PhaseKind::Run, 30000, -1}}, 1, 1ULL << 1);
    } else {
      k.add_task("sleeper", {{PhaseKind::Run, 30000, -1}, {PhaseKind::Sleep, 1200000, -1, 0.75}}, 1, 1ULL << 1);
    }
  };
  RunResult r = run_simulation(sc, hooks);
  REQUIRE_FALSE(r.failed);
  return episodes2(rec, 1);
}

int count_end(const std::vector<Episode2>& eps, Woke how, bool with_tick) {
  int n = 0;
  for (const auto& ep : eps) n += ep.end == how && (ep.ticks_in_halt > 0) == with_tick;
  return n;
}

// f4c31b07b136 on the no-driver path: idle_call_stop_or_retain_tick(got_tick) stops iff
// the previous halt of this episode was ended by the tick, or the tick is already stopped.
void check_got_tick(const std::vector<Episode2>& eps) {
  for (const auto& ep : eps) {
    bool stopped = false;
    for (std::size_t i = 0; i < ep.d.size(); ++i) {
      if (i == 0) CHECK_FALSE(ep.d[i].stop);  // got_tick is false at every do_idle() entry
      else CHECK(ep.d[i].stop == (ep.d[i].prev == Woke::Tick || stopped));
      stopped = stopped || ep.d[i].stop;
    }
    if (ep.ticks_in_halt == 0) CHECK_FALSE(stopped);  // no tick wake-up, no stop
  }
}

}  // namespace

TEST_CASE("got_tick: an episode ended by a remote wake-up IPI stops the tick only after a tick wake-up") {
  auto eps = wake_script("got_tick", Waker::Ipi);
  REQUIRE(eps.size() >= 20);
  // the script gives both kinds: IPI before the first tick, IPI after ticks
  REQUIRE(count_end(eps, Woke::Ipi, false) >= 5);
  REQUIRE(count_end(eps, Woke::Ipi, true) >= 5);
  check_got_tick(eps);
  for (const auto& ep : eps)
    if (ep.end == Woke::Ipi && ep.ticks_in_halt == 0) {
      REQUIRE(ep.d.size() == 1);  // one HLT, entered with the tick retained
      CHECK_FALSE(ep.d.front().stop);
    }
}

TEST_CASE("got_tick: an hrtimer sleep expiring before the next tick ends an episode that never stopped the tick") {
  auto eps = wake_script("got_tick", Waker::Timer);
  REQUIRE(eps.size() >= 20);
  REQUIRE(count_end(eps, Woke::Timer, false) >= 5);
  REQUIRE(count_end(eps, Woke::Timer, true) >= 5);
  check_got_tick(eps);
  for (const auto& ep : eps)
    if (ep.end == Woke::Timer && ep.ticks_in_halt == 0) {
      REQUIRE(ep.d.size() == 1);
      CHECK_FALSE(ep.d.front().stop);
    }
}

TEST_CASE("legacy: every idle entry stops the tick, also when a remote wake-up IPI ends the episode") {
  auto eps = wake_script("legacy", Waker::Ipi);
  REQUIRE(eps.size() >= 20);
  REQUIRE(count_end(eps, Woke::Ipi, false) >= 5);
  for (const auto& ep : eps) {
    REQUIRE_FALSE(ep.d.empty());
    for (const auto& d : ep.d) CHECK(d.stop);
    CHECK(ep.ticks_in_halt == 0);  // the stopped tick (nothing on the wheel) never fires
  }
}

TEST_CASE("force_retain: the no-driver path never stops the tick, even after tick wake-ups, with IPI wake-ups") {
  auto eps = wake_script("force_retain", Waker::Ipi);
  REQUIRE(eps.size() >= 20);
  REQUIRE(count_end(eps, Woke::Ipi, true) >= 5);
  int after_tick = 0;
  for (const auto& ep : eps) {
    REQUIRE_FALSE(ep.d.empty());
    for (const auto& d : ep.d) {
      CHECK_FALSE(d.stop);
      after_tick += d.prev == Woke::Tick;
    }
  }
  CHECK(after_tick >= 5);  // decisions where got_tick would have stopped
}

TEST_CASE("periodic (nohz=off): with IPI wake-ups the tick never stops and keeps waking the halted CPU") {
  auto eps = wake_script("periodic", Waker::Ipi);
  REQUIRE(eps.size() >= 20);
  REQUIRE(count_end(eps, Woke::Ipi, false) >= 5);
  int ticks = 0;
  for (const auto& ep : eps) {
    CHECK(ep.d.empty());  // neither tick_nohz_idle_stop_tick() nor retain decides anything
    ticks += ep.ticks_in_halt;
  }
  CHECK(ticks >= 50);  // about one per ms of the ~1 ms idle periods
}

// Bug of the first release: tick_nohz_restart_sched_tick() accounted idle ticks also when a
// busy nohz_full CPU restarted its tick (a second task woke), so the CPU's kcpustat idle
// grew by every jiffy since its last idle stop; the kernel accounts them only on the idle
// exit path (tick_nohz_idle_update_tick() / tick_nohz_idle_restart_tick()).
static void busy_nohz_full_restarts(const std::string& hotplug) {
  const std::string toml =
      "[guest]\ncmdline = \"nohz_full=1\"\n[workload]\nkind = \"script\"\n"
      "[[workload.task]]\nname = \"spin\"\ncpus = \"1\"\nprogram = [\"run 1s\"]\n"
      "[[workload.task]]\nname = \"visitor\"\ncpus = \"1\"\nprogram = [\"sleep 5ms\", \"run 100us\"]\n"
      "[run]\nduration = \"600ms\"\n";
  RunResult r = run_simulation(test::scenario(toml, {"guest.hotplug=" + hotplug}));
  REQUIRE_FALSE(r.failed);
  CHECK(r.metrics.get("vcpu1.tick.restarts") >= 40);
  CHECK(r.metrics.get("vcpu1.guest_time.idle_loop_ns") < 100000);  // busy to the end (or to cpu_down: then halted, offline)
  // offline, the old scheme shows kcpustat's tick-based idle: it must hold no idle tick
  // (before the fix: 496 ms of the 500 ms the CPU was busy)
  CHECK(r.metrics.get("vcpu1.proc_stat.idle_ns") == 0);
}
TEST_CASE("a busy nohz_full CPU that restarts its tick accounts no idle tick") { busy_nohz_full_restarts(""); }
TEST_CASE("a busy nohz_full CPU that restarted its tick shows no idle tick once offline") { busy_nohz_full_restarts("1:offline@500ms"); }
