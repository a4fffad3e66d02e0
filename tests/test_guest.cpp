// guest/: idle paths, cpuidle drivers, nohz_full, the 2026 series, scheduler, cputime.
#include <catch2/catch.hpp>

#include "guest/cpuidle.hpp"
#include "guest/kernel.hpp"
#include "guest/workloads.hpp"
#include "helpers.hpp"
#include "host/kvm.hpp"

using namespace vtick;

namespace {

struct Decision {
  bool stop;
  bool after_tick;    // the previous halt of the episode was ended by the tick
  bool after_device;  // ... by a device interrupt
};

// The stop/retain decisions of every complete idle episode of `cpu`.
std::vector<std::vector<Decision>> decisions(const test::Recorder& rec, int cpu) {
  std::vector<std::vector<Decision>> out;
  bool in = false, halted = false, tick = false, dev = false;
  for (const auto& e : rec.on_cpu(cpu)) {
    EventId w = e.id;
    if (w == EventId::IdleEnter) { out.emplace_back(); in = true; tick = dev = halted = false; }
    else if (!in) continue;
    else if (w == EventId::IdleExit) in = false;
    else if (w == EventId::Halt) { halted = true; tick = dev = false; }
    else if (w == EventId::Tick && halted && e.tick.in_idle) tick = true;
    else if (w == EventId::DeviceIrq && halted) dev = true;
    else if (w == EventId::HaltEnd) halted = false;
    else if (w == EventId::NohzStop || w == EventId::TickRetain) {
      out.back().push_back({w == EventId::NohzStop, tick, dev});
      tick = dev = false;
    }
  }
  if (in) out.pop_back();
  return out;
}

// vCPU1 sleeps 3.5 ms between 100 us bursts; a device interrupt that wakes no task
// lands 300 us into every idle period (the device watches for vCPU1 halting).
std::vector<std::vector<Decision>> scripted(const std::string& policy, const std::string& driver = "none") {
  Scenario sc = test::scenario("[guest]\nhz = 1000\ntimer_slack = \"0ns\"\n[workload]\nkind = \"idle\"\n[run]\nduration = \"60ms\"\n",
                               {"guest.tick_policy=" + policy, "guest.cpuidle_driver=" + driver});
  test::Recorder rec;
  SimHooks hooks;
  hooks.sink = &rec;
  hooks.guest_setup = [](GuestKernel& k) {
    k.add_task("sleeper", {{PhaseKind::Run, 100000, -1}, {PhaseKind::Sleep, 3500000, -1}}, 1, 1ULL << 1);
  };
  hooks.vm_setup = [](Kvm& vm, GuestKernel& k) {
    KvmVcpu* v = &vm.vcpu(1);
    GuestCpu* c = &k.cpu(1);
    spawn_actor("device", vm.machine().threads[0]->host(), [v, c] {
      auto idle = [c] { return c->state() == GuestCpuState::Idle || c->state() == GuestCpuState::Halted; };
      for (;;) {
        while (idle()) sleep_until(now() + 10000);  // wait for the next idle period...
        while (!idle()) sleep_until(now() + 10000);
        sleep_until(now() + 300000);                // ... and interrupt it 300 us in
        v->inject_device_irq(now());
      }
    });
  };
  RunResult r = run_simulation(sc, hooks);
  REQUIRE_FALSE(r.failed);
  return decisions(rec, 1);
}

}  // namespace

TEST_CASE("got_tick: a device interrupt keeps got_tick false (retain again), a tick wake-up stops") {
  auto eps = scripted("got_tick");
  REQUIRE(eps.size() >= 10);
  int after_dev = 0, after_tick = 0;
  for (const auto& ep : eps) {
    REQUIRE_FALSE(ep.empty());
    CHECK_FALSE(ep.front().stop);
    for (std::size_t i = 1; i < ep.size(); ++i) {
      if (ep[i].after_tick) { CHECK(ep[i].stop); ++after_tick; }
      else if (ep[i].after_device && !ep[i - 1].stop) { CHECK_FALSE(ep[i].stop); ++after_dev; }
    }
  }
  CHECK(after_dev >= 5);
  CHECK(after_tick >= 5);
}

// (one simulation per test case: SimGrid's engine is a process singleton)
TEST_CASE("loehle: the no-driver path stops at once") {
  auto eps = scripted("loehle");
  REQUIRE(eps.size() >= 10);
  for (const auto& ep : eps)
    for (const auto& d : ep) CHECK(d.stop);
}

TEST_CASE("loehle: the single-state path keeps the got_tick heuristic") {
  auto single = scripted("loehle", "single-state");
  REQUIRE(single.size() >= 10);
  int stops = 0;
  for (const auto& ep : single) {
    CHECK_FALSE(ep.front().stop);
    for (const auto& d : ep) stops += d.stop && d.after_tick;
  }
  CHECK(stops >= 5);
}

TEST_CASE("legacy on a single-state driver always retains (e5c9ffc6ae1b)") {
  auto eps = scripted("legacy", "single-state");
  REQUIRE(eps.size() >= 10);
  for (const auto& ep : eps)
    for (const auto& d : ep) CHECK_FALSE(d.stop);
}

TEST_CASE("tglx_avg: retains until the average of the last four idle periods exceeds a tick") {
  // Idle periods here last ~3.5 ms: the first episodes (no history yet) retain, later
  // ones stop from their first decision.
  auto eps = scripted("tglx_avg");
  REQUIRE(eps.size() >= 10);
  CHECK_FALSE(eps.front().front().stop);
  for (std::size_t i = 5; i < eps.size(); ++i) CHECK(eps[i].front().stop);
}

TEST_CASE("haltpoll governor: poll limit grows on short halts and shrinks on long ones") {
  HaltpollParams p;  // guest_halt_poll_ns 200000, grow 2, grow_start 50000, shrink 2
  CHECK(adjust_poll_limit(p, 0, 30000) == 50000);        // grow_start
  CHECK(adjust_poll_limit(p, 50000, 80000) == 100000);
  CHECK(adjust_poll_limit(p, 100000, 150000) == 200000);
  CHECK(adjust_poll_limit(p, 200000, 150000) == 200000);  // within the window: no change
  CHECK(adjust_poll_limit(p, 200000, 500000) == 100000);  // long block: shrink
  p.guest_halt_poll_allow_shrink = false;
  CHECK(adjust_poll_limit(p, 200000, 500000) == 200000);
  CpuidleDevice dev;
  bool stop = true;
  CHECK(haltpoll_select(dev, &stop) == 1);  // no window yet: halt, tick may stop
  CHECK(stop);
  dev.poll_limit_ns = 50000;
  dev.last_state_idx = 1;
  CHECK(haltpoll_select(dev, &stop) == 0);  // after a halt: poll, keep the tick
  CHECK_FALSE(stop);
  dev.last_state_idx = 0;
  dev.poll_time_limit = true;
  stop = true;
  CHECK(haltpoll_select(dev, &stop) == 1);  // the poll ran out: halt
}

TEST_CASE("cpuidle-haltpoll writes MSR_KVM_POLL_CONTROL=0: the host never polls, the guest does") {
  Scenario sc = test::scenario("[guest]\ncpuidle_driver = \"haltpoll\"\n[run]\nduration = \"100ms\"\n");
  RunResult r = run_simulation(sc);
  REQUIRE_FALSE(r.failed);
  for (int i = 0; i < 2; ++i) {
    std::string p = "vcpu" + std::to_string(i) + ".";
    CHECK(r.metrics.get(p + "kvm.halt_exits") > 0);
    CHECK(r.metrics.get(p + "kvm.halt_attempted_poll") == 0);
    CHECK(r.metrics.get(p + "cpuidle.poll_entries") > 100);
    CHECK(r.metrics.get(p + "cpuidle.poll_ns") > 0);
  }
  Scenario none = test::scenario("[run]\nduration = \"10ms\"\n");
  CHECK(none.guest.cpuidle.driver == CpuidleDriver::None);
}

// nohz_full=1: a lone task on CPU1 sleeps and runs; after each idle exit the tick stays
// stopped (a5183862e76f) unless a dependency needs it (here a POSIX CPU timer).
static RunResult nohz_full_run(bool posix_timer) {
  Scenario sc = test::scenario("[guest]\ncmdline = \"nohz_full=1\"\ntimer_slack = \"0ns\"\n[workload]\nkind = \"idle\"\n[run]\nduration = \"100ms\"\n");
  SimHooks hooks;
  hooks.guest_setup = [posix_timer](GuestKernel& k) {
    Task& t = k.add_task("lone", {{PhaseKind::Run, 3000000, -1}, {PhaseKind::Sleep, 2000000, -1}}, 1, 1ULL << 1);
    t.posix_cpu_timer = posix_timer;
  };
  RunResult r = run_simulation(sc, hooks);
  REQUIRE_FALSE(r.failed);
  return r;
}

TEST_CASE("nohz_full idle exit without a dependency keeps the tick stopped") {
  RunResult r = nohz_full_run(false);
  CHECK(r.metrics.get("vcpu1.idle.episodes") >= 15);
  CHECK(r.metrics.get("vcpu1.tick.restarts") == 0);
  CHECK(r.metrics.get("vcpu1.tick.ticks_user") <= 2);
  CHECK(r.metrics.get("vcpu0.tick.ticks") >= 99);  // the housekeeping CPU keeps time
}

TEST_CASE("nohz_full idle exit with a tick dependency restarts the tick") {
  RunResult r = nohz_full_run(true);
  CHECK(r.metrics.get("vcpu1.tick.restarts") >= 15);
  CHECK(r.metrics.get("vcpu1.tick.ticks_user") >= 40);  // 3 ms of work at HZ=1000
}

static RunResult series(const std::string& variant) {
  Scenario sc = load_scenario(VTICK_SOURCE_DIR "/scenarios/nohz-full-idle-poll.toml", {"guest.nohz_poll_series=" + variant});
  RunResult r = run_simulation(sc);
  REQUIRE_FALSE(r.failed);
  return r;
}

static double probes_lost(const RunResult& r) {
  double lost = 0;
  for (int i = 0; i < 3; ++i) lost += r.metrics.get("probe.timer" + std::to_string(i) + ".fired_ns") < 0;
  return lost;
}

TEST_CASE("2026 series baseline: one tick in user space per wake-up, timers fire on time") {
  RunResult r = series("none");
  CHECK(r.metrics.get("vcpu2.tick.ticks_user") >= 180);
  CHECK(r.metrics.get("vcpu2.tick.ticks_polling") > 0);
  CHECK(r.metrics.get("vcpu3.tick.ticks_polling") >= 2500);  // idle=poll restarts the tick
  CHECK(r.metrics.get("vcpu0.tick.ticks") >= 2599);
  CHECK(r.metrics.get("vcpu1.tick.ticks_polling") >= 2000);
  CHECK(probes_lost(r) == 0);
}

TEST_CASE("2026 series P1+P2: no tick in user space or while polling on nohz_full, no timer lost") {
  RunResult r = series("p1p2");
  CHECK(r.metrics.get("vcpu2.tick.ticks_user") == 0);
  CHECK(r.metrics.get("vcpu3.tick.ticks_polling") == 0);
  CHECK(probes_lost(r) == 0);
  for (int i = 0; i < 3; ++i) CHECK(r.metrics.get("probe.timer" + std::to_string(i) + ".lateness_ns") < 1100000);
  // housekeeping CPUs still tick all the time, as in the baseline
  CHECK(r.metrics.get("vcpu0.tick.ticks") >= 2599);
  CHECK(r.metrics.get("vcpu1.tick.ticks_polling") >= 2000);
}

TEST_CASE("2026 series P2 without P1's kick: a timer queued from an interrupt while polling is lost") {
  RunResult r = series("p2_without_kick");
  CHECK(r.metrics.get("probe.timer0.fired_ns") < 0);
  CHECK(probes_lost(r) == 3);
}

TEST_CASE("2026 series P2 without P1's stopped-tick fix: the second of two timers is not re-armed") {
  RunResult r = series("p2_without_stopped_tick_fix");
  CHECK(r.metrics.get("probe.timer0.fired_ns") > 0);
  CHECK(r.metrics.get("probe.timer1.fired_ns") > 0);
  CHECK(r.metrics.get("probe.timer2.fired_ns") < 0);
}

// P2 and P1(c) are in both partial variants: what they lack concerns timers queued while
// polling, not the tick in user space or in the poll loop.
static void check_no_nohz_full_ticks(const RunResult& r) {
  CHECK(r.metrics.get("vcpu2.tick.ticks_user") == 0);
  CHECK(r.metrics.get("vcpu3.tick.ticks_polling") == 0);
  CHECK(r.metrics.get("vcpu2.tick.ticks_polling") <= 3);  // at most the three probe timers' expiries
  CHECK(r.metrics.get("workload.ops") >= 200);             // all loops ran: the sleeps still end
  CHECK(r.metrics.get("vcpu0.tick.ticks") >= 2599);        // housekeeping keeps ticking
  CHECK(r.metrics.get("vcpu1.tick.ticks_polling") >= 2000);
}

TEST_CASE("2026 series P2 without P1's kick: no tick in user space or while polling on nohz_full") {
  check_no_nohz_full_ticks(series("p2_without_kick"));
}

TEST_CASE("2026 series P2 without P1's stopped-tick fix: no tick in user space or while polling on nohz_full") {
  check_no_nohz_full_ticks(series("p2_without_stopped_tick_fix"));
}

// /proc/stat idle summed over CPUs, sampled every 250 us, under each scheme.
struct IdleSamples {
  std::vector<sim_ns> old_sum, new_sum;
  Kcpustat old_end{}, new_end{};
  sim_ns steal_end = 0;
};

// `noise`: two host threads on vCPU1's hardware thread, so that its wake-ups wait (steal).
static IdleSamples sample_idle(const std::string& hotplug, bool noise = false) {
  std::vector<std::string> sets = {"guest.hotplug=" + hotplug};
  if (noise) sets.insert(sets.end(), {"host.noise.threads=2", "host.noise.hz=500", "host.noise.work=900us", "host.noise.cpus=1"});
  Scenario sc = test::scenario("[host]\nidle_governor = \"promote\"\nmax_cstate = \"C6\"\n[guest]\ntimer_slack = \"0ns\"\n[workload]\nkind = \"idle\"\n[run]\nduration = \"100ms\"\n",
                               sets);
  IdleSamples s;
  SimHooks hooks;
  hooks.guest_setup = [](GuestKernel& k) {
    k.add_task("napper", {{PhaseKind::Run, 100000, -1}, {PhaseKind::Sleep, 2000000, -1}}, 1, 1ULL << 1);
  };
  hooks.vm_setup = [&s](Kvm& vm, GuestKernel& k) {
    spawn_actor("sampler", vm.machine().threads[0]->host(), [&s, &k, &vm] {
      for (sim_ns t = 250000; t < 100000000; t += 250000) {
        sleep_until(t);
        sim_ns o = 0, n = 0;
        for (int c = 0; c < k.nr_cpus(); ++c) {
          CpuTimeAccount& a = k.cpu(c).cputime();
          o += a.proc_stat_old(k.cpu(c).online(), t)[static_cast<size_t>(Cputime::Idle)];
          n += a.proc_stat_new(t, vm.vcpu(c).steal_clock())[static_cast<size_t>(Cputime::Idle)];
        }
        s.old_sum.push_back(o);
        s.new_sum.push_back(n);
      }
      s.old_end = k.cpu(1).cputime().proc_stat_old(true, now());
      s.new_end = k.cpu(1).cputime().proc_stat_new(now(), vm.vcpu(1).steal_clock());
      s.steal_end = vm.vcpu(1).steal_clock();
    });
  };
  RunResult r = run_simulation(sc, hooks);
  REQUIRE_FALSE(r.failed);
  return s;
}

static sim_ns largest_drop(const std::vector<sim_ns>& v) {
  sim_ns d = 0;
  for (std::size_t i = 1; i < v.size(); ++i) d = std::max(d, v[i - 1] - v[i]);
  return d;
}

TEST_CASE("cputime: old scheme's summed idle goes backward when a CPU goes offline, the new one does not") {
  IdleSamples s = sample_idle("1:offline@50ms");
  REQUIRE(s.old_sum.size() > 300);
  CHECK(largest_drop(s.old_sum) > 1000000);  // /proc/stat idle falls by more than 1 ms
  CHECK(largest_drop(s.new_sum) == 0);
}

TEST_CASE("cputime: idle steal is subtracted from idle only under the new scheme") {
  IdleSamples s = sample_idle("", true);
  REQUIRE(s.steal_end > 1000000);  // vCPU1's wake-ups that find a noise thread running wait
  sim_ns old_idle = s.old_end[static_cast<size_t>(Cputime::Idle)];
  sim_ns new_idle = s.new_end[static_cast<size_t>(Cputime::Idle)];
  // the old nohz deltas count the stolen time as idle; the new accounting takes it out
  CHECK(old_idle - new_idle == Approx(s.steal_end).epsilon(0.1));
  // the ticking parts are the same in both schemes (tick samples, steal)
  CHECK(s.old_end[static_cast<size_t>(Cputime::User)] == s.new_end[static_cast<size_t>(Cputime::User)]);
  CHECK(s.old_end[static_cast<size_t>(Cputime::Steal)] == s.new_end[static_cast<size_t>(Cputime::Steal)]);
}

// Story 3 as merged (cf6444c3e1bb) and as fixed: the first tick after a dyntick period,
// hand-worked. HZ=250 (TICK 4 ms): the tick stops in idle at 1 ms, the CPU leaves idle at
// 6.5 ms (kcpustat_dyntick_stop(): 5.5 ms of idle), the tick restarts on its old period and
// first fires at 8 ms, in idle again. Wall time since 1 ms: 7 ms. As merged that tick
// accounts a whole 4 ms, of which [4 ms, 6.5 ms] was just accounted: idle 9.5 ms, 2.5 ms
// over (the stop's distance into its tick period, TICK/2 on average: the report's "about
// half a tick per stop"). Fixed: the tick accounts the 1.5 ms since the stop, idle 7 ms.
TEST_CASE("cputime new (cf6444c3e1bb as merged) counts the first tick after a restart whole again, new_fixed only what follows the stop") {
  constexpr sim_ns ms = 1'000'000, tick = 4 * ms;
  for (bool fixed : {false, true}) {
    INFO((fixed ? "new_fixed" : "new"));
    CpuTimeAccount a;
    a.configure(true, fixed, false);
    a.dyntick_start(1 * ms, 0);
    a.account_process_tick(4 * ms, Cputime::Idle, tick, 0, true);  // the stopped tick's period: the delta covers it
    a.dyntick_stop(6 * ms + ms / 2, 0);
    CHECK(a.proc_stat_new(6 * ms + ms / 2, 0)[static_cast<size_t>(Cputime::Idle)] == 5 * ms + ms / 2);
    a.account_process_tick(8 * ms, Cputime::Idle, tick, 0, false);  // the restarted tick's first
    sim_ns idle = a.proc_stat_new(8 * ms, 0)[static_cast<size_t>(Cputime::Idle)];
    CHECK(idle == (fixed ? 7 * ms : 9 * ms + ms / 2));
    // the next tick is a whole period either way
    a.account_process_tick(12 * ms, Cputime::Idle, tick, 0, false);
    CHECK(a.proc_stat_new(12 * ms, 0)[static_cast<size_t>(Cputime::Idle)] == idle + tick);
  }
}

// The fix with several dyntick periods inside one tick period (a ping-pong stops the tick
// many times a period), hand-worked at HZ=250: a tick at 4 ms, then idle with the tick
// stopped over [4.5, 5.5] and [6, 7.5] ms, busy between and after; the restarted tick's
// first at 8 ms lands in busy time (system). That period's 4 ms hold 2.5 ms of idle already
// counted: the fix's tick accounts the 1.5 ms left, the merged code the whole 4 ms.
TEST_CASE("cputime new_fixed: the first tick leaves out every dyntick stretch inside its period") {
  constexpr sim_ns us = 1000, ms = 1000 * us, tick = 4 * ms;
  auto sys = [](const Kcpustat& k) { return k[static_cast<size_t>(Cputime::System)]; };
  auto idle = [](const Kcpustat& k) { return k[static_cast<size_t>(Cputime::Idle)]; };
  for (bool fixed : {false, true}) {
    INFO((fixed ? "new_fixed" : "new"));
    CpuTimeAccount a;
    a.configure(true, fixed, false);
    a.account_process_tick(4 * ms, Cputime::System, tick, 0, false);
    a.dyntick_start(4 * ms + 500 * us, 0);
    a.dyntick_stop(5 * ms + 500 * us, 0);
    a.dyntick_start(6 * ms, 0);
    a.dyntick_stop(7 * ms + 500 * us, 0);
    a.account_process_tick(8 * ms, Cputime::System, tick, 0, false);
    Kcpustat k = a.proc_stat_new(8 * ms, 0);
    CHECK(idle(k) == 2 * ms + 500 * us);
    CHECK(sys(k) == tick + (fixed ? 1 * ms + 500 * us : tick));
    // the next period has no dyntick stretch: whole in both
    a.account_process_tick(12 * ms, Cputime::System, tick, 0, false);
    CHECK(sys(a.proc_stat_new(12 * ms, 0)) == sys(k) + tick);
  }
}
