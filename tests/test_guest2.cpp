// guest/: timekeeping duty, tick_nohz_next_event()'s reasons, background wheel timers,
// wake-ups of polling CPUs, boot parameters, wake-affine placement.
#include <catch2/catch.hpp>
#include <memory>

#include "guest/kernel.hpp"
#include "guest/workloads.hpp"
#include "helpers.hpp"
#include "host/kvm.hpp"

using namespace vtick;

namespace {

RunResult run(const std::string& toml, const std::vector<std::string>& sets, SimHooks hooks = {}) {
  Scenario sc = test::scenario(toml, sets);
  RunResult r = run_simulation(sc, hooks);
  REQUIRE_FALSE(r.failed);
  return r;
}

// A task on vCPU1 works 100 us, then sleeps 3.5 ms: idle episodes of about three ticks.
void sleeper_on_cpu1(GuestKernel& k) {
  k.add_task("sleeper", {{PhaseKind::Run, 100000, -1}, {PhaseKind::Sleep, 3500000, -1}}, 1, 1ULL << 1);
}

double m(const RunResult& r, int cpu, const std::string& what) { return r.metrics.get("vcpu" + std::to_string(cpu) + "." + what); }

std::vector<std::int64_t> stop_expiries(const test::Recorder& rec, int cpu) {
  std::vector<std::int64_t> v;
  for (const auto& e : rec.on_cpu(cpu))
    if (e.id == EventId::NohzStop) v.push_back(e.nohz_stop.expires);
  return v;
}

}  // namespace

// ---- timekeeping duty (tick_do_timer_cpu) ----------------------------------------------

TEST_CASE("timekeeping: the jiffies owner stopping its tick hands the duty to a CPU whose tick runs") {
  // CPU 0 owns tick_do_timer_cpu at boot and idles (legacy: its tick stops); CPU 1 runs a
  // task for the whole run, so its tick takes the orphaned duty and keeps jiffies going.
  struct Sample { int owner = -2; std::uint64_t jiffies = 0; };
  Sample s10, s40;
  SimHooks hooks;
  hooks.guest_setup = [](GuestKernel& k) { k.add_task("spin", {{PhaseKind::Run, 10000000, -1}}, 1, 1ULL << 1); };
  hooks.vm_setup = [&](Kvm& vm, GuestKernel& k) {
    spawn_actor("sampler", vm.machine().threads[0]->host(), [&] {
      sleep_until(10500000);
      s10 = {k.tick_do_timer_cpu, k.jiffies};
      sleep_until(40500000);
      s40 = {k.tick_do_timer_cpu, k.jiffies};
    });
  };
  RunResult r = run("[guest]\nhz = 1000\n[workload]\nkind = \"idle\"\n[run]\nduration = \"50ms\"\n", {"guest.tick_policy=legacy"}, hooks);
  CHECK(m(r, 0, "tick.do_timer_handovers") >= 1);
  CHECK(m(r, 1, "tick.do_timer_takeovers") >= 1);
  CHECK(s10.owner == 1);
  CHECK(s40.owner == 1);
  // jiffies advance one per tick although the boot owner no longer ticks
  CHECK(s40.jiffies - s10.jiffies >= 29);
  CHECK(s40.jiffies - s10.jiffies <= 31);
  CHECK(m(r, 0, "tick.ticks") <= 2);
}

TEST_CASE("timekeeping: with every CPU idle the last jiffies owner bounds its stopped tick, the others cancel it") {
  // tick_nohz_next_event(): only the CPU that held tick_do_timer_cpu last (do_timer_last,
  // duty now TICK_DO_TIMER_NONE) limits its sleep to timekeeping_max_deferment()
  // (kvm-clock max_idle_ns, ~881.6 s); the other CPU's sched_timer is cancelled.
  int owner_end = -2;
  test::Recorder rec;
  SimHooks hooks;
  hooks.sink = &rec;
  hooks.vm_setup = [&](Kvm& vm, GuestKernel& k) {
    spawn_actor("sampler", vm.machine().threads[0]->host(), [&] {
      sleep_until(90000000);
      owner_end = k.tick_do_timer_cpu;
    });
  };
  RunResult r = run("[guest]\nhz = 1000\n[workload]\nkind = \"idle\"\n[run]\nduration = \"100ms\"\n", {"guest.tick_policy=legacy"}, hooks);
  CHECK(owner_end == GuestKernel::TICK_DO_TIMER_NONE);
  auto cpu0 = stop_expiries(rec, 0), cpu1 = stop_expiries(rec, 1);
  REQUIRE_FALSE(cpu0.empty());
  REQUIRE_FALSE(cpu1.empty());
  for (auto t : cpu0) {
    CHECK(t > 800 * NSEC_PER_SEC);  // finite, far away
    CHECK(t < 900 * NSEC_PER_SEC);
  }
  for (auto t : cpu1) CHECK(t == -1);  // KTIME_MAX: cancelled
  CHECK(m(r, 0, "tick.do_timer_handovers") >= 1);
  // with nothing on the wheel nobody wakes: no tick, no HLT exit after the first stop
  for (int c = 0; c < 2; ++c) {
    CHECK(m(r, c, "tick.ticks") <= 1);
    CHECK(m(r, c, "kvm.halt_exits") <= 2);
  }
}

// ---- tick_nohz_next_event(): RCU, irq_work, softirq ------------------------------------

static void check_reason_always_keeps(const std::string& key) {
  RunResult r = run("[guest]\nhz = 1000\n[workload]\nkind = \"idle\"\n[run]\nduration = \"50ms\"\n",
                    {"guest.tick_policy=legacy", key + "=1"});
  for (int c = 0; c < 2; ++c) {
    INFO("cpu " << c);
    double calls = m(r, c, "tick.idle_calls");
    CHECK(calls >= 40);  // legacy asks to stop at every idle entry ...
    CHECK(m(r, c, "tick.stops") == 0);  // ... and the reason keeps the tick every time
    CHECK(m(r, c, "tick.kept_for_reason") == calls);
    CHECK(m(r, c, "tick.retains") == calls);
    CHECK(m(r, c, "tick.ticks_idle") >= 45);  // so the idle CPU still ticks every jiffy
  }
}

TEST_CASE("nohz reasons: rcu_needs_cpu() always true keeps the tick on an idle CPU") {
  check_reason_always_keeps("guest.nohz.rcu_needs_cpu");
}

TEST_CASE("nohz reasons: a pending timer softirq every time keeps the tick on an idle CPU") {
  check_reason_always_keeps("guest.nohz.softirq_pending");
}

TEST_CASE("nohz reasons: irq_work_needs_cpu() half the time keeps the tick for about half the decisions") {
  SimHooks hooks;
  hooks.guest_setup = sleeper_on_cpu1;
  RunResult r = run("[guest]\nhz = 1000\ntimer_slack = \"0ns\"\n[workload]\nkind = \"idle\"\n[run]\nduration = \"300ms\"\n",
                    {"guest.tick_policy=legacy", "guest.nohz.irq_work_needs_cpu=0.5"}, hooks);
  double calls = m(r, 1, "tick.idle_calls"), kept = m(r, 1, "tick.kept_for_reason");
  REQUIRE(calls >= 100);
  CHECK(kept >= 0.35 * calls);
  CHECK(kept <= 0.65 * calls);
  CHECK(m(r, 1, "tick.stops") >= 40);       // legacy still stops when no reason holds
  CHECK(m(r, 1, "tick.retains") >= 0.2 * calls);  // a reason on a running tick: retain
}

// ---- background timer-wheel timers --------------------------------------------------------

TEST_CASE("background wheel timers: a stopped tick is programmed for the next one and wakes the idle CPU") {
  // guest.timers.background_hz per CPU: self-rearming wheel timers (vmstat, writeback,
  // ...) run from the tick, so an idle CPU's stopped tick is not cancelled but moved to
  // the next timer's jiffy, and the CPU wakes for each one.
  test::Recorder rec;
  SimHooks hooks;
  hooks.sink = &rec;
  const double hz = 200, seconds = 0.5;
  RunResult r = run("[guest]\nhz = 1000\n[workload]\nkind = \"idle\"\n[run]\nduration = \"500ms\"\n",
                    {"guest.tick_policy=legacy", "guest.timers.background_hz=200"}, hooks);
  for (int c = 0; c < 2; ++c) {
    INFO("cpu " << c);
    double timers = m(r, c, "timers.background");
    // each re-arm waits its exponential draw, rounded up to the wheel's jiffy plus one
    // (never early), so somewhat fewer than hz * seconds run
    CHECK(timers >= 0.5 * hz * seconds);
    CHECK(timers <= hz * seconds);
    CHECK(m(r, c, "tick.ticks_idle") >= 0.5 * timers);  // timers sharing a jiffy share a tick
    CHECK(m(r, c, "kvm.halt_exits") >= 0.5 * timers);
  }
  auto exp1 = stop_expiries(rec, 1);
  REQUIRE(exp1.size() >= 50);
  for (auto t : exp1) {
    CHECK(t != -1);            // never cancelled: the wheel always holds a timer
    CHECK(t % 1000000 == 0);   // on the jiffy grid (TICK_NSEC at HZ=1000)
  }
}

// ---- wake-ups of polling CPUs: need_resched without an IPI -------------------------------

TEST_CASE("idle=poll: a remote wake-up of a polling CPU sets need_resched without an IPI") {
  RunResult r = run("[guest]\ncmdline = \"idle=poll\"\n[workload]\nkind = \"pingpong\"\n[run]\nduration = \"50ms\"\n", {});
  double remote = r.metrics.get("sched.wakeups_remote");
  REQUIRE(remote >= 100);
  CHECK(r.metrics.get("sched.resched_ipis") + r.metrics.get("sched.call_function_ipis") == 0);
  CHECK(r.metrics.get("sched.wake_idle_without_ipi") >= remote - 1);
  for (int c = 0; c < 2; ++c) {
    CHECK(m(r, c, "irqs.reschedule") + m(r, c, "irqs.call_function") == 0);
    CHECK(m(r, c, "exits.ipi") == 0);
    CHECK(m(r, c, "kvm.halt_exits") == 0);
  }
}

TEST_CASE("haltpoll: a wake-up landing in the guest poll state needs no IPI, one landing in HLT does") {
  // 20 us turns: once the guest poll limit has grown to grow_start (50 us) the partner's
  // wake-up lands inside the poll
  RunResult r = run("[guest]\ncpuidle_driver = \"haltpoll\"\n[workload]\nkind = \"pingpong\"\nwork = \"20us\"\n[run]\nduration = \"50ms\"\n", {});
  double remote = r.metrics.get("sched.wakeups_remote");
  double flag = r.metrics.get("sched.wake_idle_without_ipi"), ipis = r.metrics.get("sched.call_function_ipis");
  REQUIRE(remote >= 100);
  CHECK(r.metrics.get("sched.ttwu_queued") == remote);  // the partner is idle: every wake-up queues
  // each wake-up of the idle partner, and each nohz kick: one or the other
  CHECK(flag + ipis == remote + r.metrics.get("sched.nohz_kicks"));
  CHECK(flag > 0.5 * remote);
  CHECK(ipis >= 1);              // the first halts (no poll window yet) need the IPI
  CHECK(m(r, 0, "irqs.call_function") + m(r, 1, "irqs.call_function") == ipis);  // counted as CAL
  CHECK(r.metrics.get("sched.resched_ipis") == 0);
  double polls = 0, polls_ended_by_resched = 0;
  for (int c = 0; c < 2; ++c) {
    polls += m(r, c, "cpuidle.poll_entries");
    polls_ended_by_resched += m(r, c, "cpuidle.poll_entries") - m(r, c, "cpuidle.poll_timeouts");
  }
  CHECK(polls_ended_by_resched >= flag - 1);  // every flag-only wake-up ended a poll
}

// ---- boot parameters ---------------------------------------------------------------------

TEST_CASE("nohz=off: the tick never stops, an idle CPU ticks every jiffy") {
  SimHooks hooks;
  hooks.guest_setup = sleeper_on_cpu1;
  // legacy would stop the tick at every idle entry
  RunResult r = run("[guest]\nhz = 1000\ncmdline = \"nohz=off\"\n[workload]\nkind = \"idle\"\n[run]\nduration = \"50ms\"\n",
                    {"guest.tick_policy=legacy"}, hooks);
  REQUIRE(m(r, 1, "idle.episodes") >= 10);
  for (int c = 0; c < 2; ++c) {
    INFO("cpu " << c);
    CHECK(m(r, c, "tick.stops") == 0);
    CHECK(m(r, c, "tick.idle_calls") == 0);
    CHECK(m(r, c, "clockevent.stop") == 0);
    CHECK(m(r, c, "tick.ticks") >= 49);
  }
  CHECK(m(r, 0, "tick.ticks_idle") >= 49);
}

TEST_CASE("nohlt: the idle loop polls with the tick running instead of executing HLT") {
  SimHooks hooks;
  hooks.guest_setup = sleeper_on_cpu1;
  RunResult r = run("[guest]\nhz = 1000\ncmdline = \"nohlt\"\n[workload]\nkind = \"idle\"\n[run]\nduration = \"50ms\"\n",
                    {"guest.tick_policy=legacy"}, hooks);
  REQUIRE(m(r, 1, "idle.episodes") >= 10);
  for (int c = 0; c < 2; ++c) {
    INFO("cpu " << c);
    CHECK(m(r, c, "idle.halts") == 0);
    CHECK(m(r, c, "exits.hlt") == 0);
    CHECK(m(r, c, "kvm.halt_exits") == 0);
    CHECK(m(r, c, "tick.stops") == 0);  // cpu_idle_poll() runs after tick_nohz_idle_restart_tick()
    CHECK(m(r, c, "tick.ticks_polling") >= 40);
  }
  CHECK(r.metrics.get("pcpu1.time.guest_poll_ns") > 0);
}

// cpuidle.off=1 makes cpuidle_not_available() true wherever it stands on the command line.
static void check_cpuidle_off(const std::string& cmdline) {
  SimHooks hooks;
  hooks.guest_setup = sleeper_on_cpu1;
  RunResult r = run("[guest]\nhz = 1000\ncmdline = \"" + cmdline + "\"\n[workload]\nkind = \"idle\"\n[run]\nduration = \"50ms\"\n",
                    {"guest.tick_policy=legacy"}, hooks);
  REQUIRE(m(r, 1, "idle.episodes") >= 10);
  for (int c = 0; c < 2; ++c) {
    INFO("cpu " << c);
    CHECK(m(r, c, "cpuidle.poll_entries") == 0);
    CHECK(m(r, c, "cpuidle.halt_entries") == 0);
    CHECK(m(r, c, "exits.msr_poll_control") == 0);  // haltpoll never registered: host polling stays
    CHECK(m(r, c, "idle.halts") > 0);
    CHECK(m(r, c, "tick.retains") == 0);            // legacy's no-driver path always stops
  }
}

TEST_CASE("cpuidle.off=1 after cpuidle_haltpoll.force=1: no cpuidle driver, HLT from the no-driver path") {
  check_cpuidle_off("cpuidle_haltpoll.force=1 cpuidle.off=1");
}

TEST_CASE("cpuidle.off=1 before cpuidle_haltpoll.force=1: still no cpuidle driver") {
  check_cpuidle_off("cpuidle.off=1 cpuidle_haltpoll.force=1");
}

// ---- wake-affine placement ------------------------------------------------------------------

// A task that last ran on CPU 1 (busy with a pinned hog) is woken by an interrupt handled
// on idle CPU 3 (a device whose vector is routed there completes what it waits for).
// CPUs 0, 2 and 3 are idle.
static RunResult wake_from_cpu3(bool wake_affine) {
  SimHooks hooks;
  auto request = std::make_shared<std::uint64_t>(0);
  hooks.guest_setup = [request](GuestKernel& k) {
    k.add_task("hog", {{PhaseKind::Run, 10000000, -1}}, 1, 1ULL << 1);
    int never = k.add_event();
    Task& w = k.add_task("wakee", {{PhaseKind::Wait, 0, never}, {PhaseKind::Run, 2000000, -1}}, 1, ~0ULL);
    *request = k.add_request([&w](GuestCpu& c) { c.kernel().try_to_wake_up(w, c); });  // the device's completion
  };
  hooks.vm_setup = [request](Kvm& vm, GuestKernel& k) {
    KvmVcpu* v = &vm.vcpu(3);
    GuestKernel* kk = &k;
    spawn_actor("device", vm.machine().threads[3]->host(), [v, kk, request] {
      sleep_until(10000000);
      Task& w = *kk->tasks()[1];
      CHECK(w.state == TaskState::Blocked);
      CHECK(w.cpu == 1);
      v->inject_device_irq(*request, now());
    });
  };
  return run("[platform]\nshape = \"VM.Standard2.2\"\n[workload]\nkind = \"idle\"\n[run]\nduration = \"20ms\"\n",
             {std::string("guest.sched.wake_affine=") + (wake_affine ? "true" : "false"), "guest.sched.load_balance=false"}, hooks);
}

TEST_CASE("wake-affine: an interrupt on an idle CPU pulls a wakee whose previous CPU is busy onto that CPU") {
  // wake_affine_idle(): this CPU idle, prev busy -> this CPU, although the scan from prev
  // would find CPU 2 first
  RunResult r = wake_from_cpu3(true);
  CHECK(r.metrics.get("sched.wake_to_waker") == 1);
  CHECK(r.metrics.get("sched.wake_to_idle") == 0);
  CHECK(r.metrics.get("task.2.wakee.migrations") == 1);
  CHECK(m(r, 3, "guest_time.user_ns") >= 1900000);
  CHECK(m(r, 2, "guest_time.user_ns") == 0);
}

TEST_CASE("wake-affine off: the same wakee goes to the first idle CPU after its previous one") {
  RunResult r = wake_from_cpu3(false);
  CHECK(r.metrics.get("sched.wake_to_waker") == 0);
  CHECK(r.metrics.get("sched.wake_to_idle") == 1);
  CHECK(m(r, 2, "guest_time.user_ns") >= 1900000);
  CHECK(m(r, 3, "guest_time.user_ns") == 0);
}
