// host/: exits, interrupt delivery, wake-ups, host scheduling, steal, timer-aware behaviours.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "guest/kernel.hpp"
#include "helpers.hpp"
#include "host/kvm.hpp"

using namespace vtick;

namespace {
const char* kIdle = "[workload]\nkind = \"idle\"\n[run]\nduration = \"100ms\"\n";

// A host thread of the test's own: runs `work` on hardware thread `hw` at `at`.
void host_burst(Kvm& vm, int hw, sim_ns at, sim_ns work) {
  auto* w = &test::keep_alive(new HostWorker("burst", vm.sched(), 1ULL << hw, hw));  // lives as long as the process
  spawn_actor("burst", vm.machine().threads[static_cast<size_t>(hw)]->host(), [w, at, work] {
    sleep_until(at);
    w->run_on_cpu(work);
  });
}

RunResult run(const std::string& toml, const std::vector<std::string>& sets, SimHooks hooks = {}) {
  RunResult r = run_simulation(test::scenario(toml, sets), hooks);
  REQUIRE_FALSE(r.failed);
  return r;
}

sim_ns first(const test::Recorder& rec, int cpu, EventId what, sim_ns after = 0) {
  for (const auto& e : rec.on_cpu(cpu))
    if (e.t >= after && e.id == what) return e.t;
  return -1;
}
}  // namespace

TEST_CASE("a runnable host thread ends a halt poll at once") {
  // vCPU1 idles with a large poll window; a host thread wakes on its hardware thread.
  test::Recorder rec;
  SimHooks hooks;
  hooks.sink = &rec;
  hooks.guest_setup = [](GuestKernel& k) {
    k.add_task("t", {{PhaseKind::Run, 50000, -1}, {PhaseKind::Sleep, 2000000, -1}}, 1, 1ULL << 1);
  };
  hooks.vm_setup = [](Kvm& vm, GuestKernel&) { host_burst(vm, vm.vcpu(1).hw_thread().id(), 20100000, 30000); };
  // windows of 3-5 ms cover the 2 ms sleeps: vCPU1 polls through its idle time
  RunResult r = run(kIdle, {"host.kvm.halt_poll_ns=5000000", "host.kvm.halt_poll_ns_grow_start=3000000"}, hooks);
  // the halt that is polling at 20.1 ms stops polling right then
  bool found = false;
  for (const auto& e : rec.on_cpu(1))
    if (e.id == EventId::HaltPollEnd && e.t >= 20100000 && e.t < 20200000) {
      CHECK(e.t == 20100000);
      CHECK_FALSE(e.halt_poll_end.success);  // not a successful poll
      found = true;
    }
  CHECK(found);
  CHECK(r.metrics.get("vcpu1.kvm.halt_poll_fail_ns") > 0);
}

TEST_CASE("a blocked vCPU with a stopped tick and no events takes no wake-ups") {
  RunResult r = run("[workload]\nkind = \"idle\"\n[run]\nduration = \"200ms\"\nwarmup = \"20ms\"\n", {"guest.tick_policy=legacy"});
  CHECK(r.metrics.get("vcpu1.kvm.halt_wakeup") == 0);
  CHECK(r.metrics.get("vcpu1.exits.total") == 0);
  CHECK(r.metrics.get("vcpu1.host_time.blocked_ns") == 180 * NSEC_PER_MSEC);
}

static void busy_tick_exits(const std::string& shape, bool x86) {
  SimHooks hooks;
  hooks.guest_setup = [](GuestKernel& k) { k.add_task("spin", {{PhaseKind::Run, 10000000, -1}}, 0, 1); };
  RunResult r = run("[workload]\nkind = \"idle\"\n[run]\nduration = \"1s\"\n", {"platform.shape=" + shape}, hooks);
  double ticks = r.metrics.get("vcpu0.tick.ticks");
  REQUIRE(ticks > 200);
  // one exit per expiry in guest mode (the last may fall just past the end of the run)
  CHECK(std::abs(r.metrics.get("vcpu0.exits.timer_expiry") - ticks) <= 1);
  if (x86) CHECK(std::abs(r.metrics.get("vcpu0.exits.msr_tsc_deadline") - ticks) <= 1);  // ... and the re-arm
  // nothing else on arm64 but the busy CPU's nohz kicks of the idle one (ICC_SGI1R_EL1 traps)
  else CHECK(r.metrics.get("vcpu0.exits.total") == r.metrics.get("vcpu0.exits.timer_expiry") + r.metrics.get("vcpu0.exits.ipi"));
  CHECK(r.metrics.get("vcpu0.exits.ipi") == r.metrics.get("sched.nohz_kicks"));
  CHECK(r.metrics.get("sched.nohz_kicks") <= 3);  // NEXT and STATS once vCPU1 enters the mask; no blocked load to decay
}

TEST_CASE("a timer expiring in guest mode: one exit (+ the TSC-deadline write) on x86") {
  busy_tick_exits("VM.Standard2.1", true);
}

TEST_CASE("a timer expiring in guest mode: the interrupt's exit only on arm64") {
  busy_tick_exits("VM.Standard.A1.Flex.2", false);
}

static RunResult ipi_to_busy_target(const std::string& shape) {
  SimHooks hooks;
  hooks.guest_setup = [](GuestKernel& k) { k.add_task("spin", {{PhaseKind::Run, 10000000, -1}}, 1, 1ULL << 1); };
  hooks.vm_setup = [](Kvm& vm, GuestKernel&) {
    KvmVcpu* v = &vm.vcpu(1);
    spawn_actor("ipis", vm.machine().threads[0]->host(), [v] {
      for (int i = 1; i <= 100; ++i) {
        sleep_until(i * 500000 + 1234);
        v->kvm_apic_accept_irq(IrqVector::CallFunction, now());
      }
    });
  };
  return run(kIdle, {"platform.shape=" + shape}, hooks);
}

TEST_CASE("an IPI to a running x86 target is posted: no exit on the target") {
  RunResult r = ipi_to_busy_target("VM.Standard2.1");
  CHECK(r.metrics.get("vcpu1.host.posted_irqs") == 100);
  CHECK(r.metrics.get("vcpu1.irqs.call_function") == 100);
  // every exit of the target is its own timer's (expiry, TSC-deadline and boot-time LVTT writes)
  double timer_exits = r.metrics.get("vcpu1.exits.timer_expiry") + r.metrics.get("vcpu1.exits.msr_tsc_deadline") +
                       r.metrics.get("vcpu1.exits.apic_lvtt");
  // ... and its own IPI writes: the nohz kicks it sends the idle vCPU0 from its busy ticks
  CHECK(r.metrics.get("vcpu1.exits.total") == timer_exits + r.metrics.get("vcpu1.exits.ipi"));
  CHECK(r.metrics.get("vcpu1.exits.ipi") <= r.metrics.get("sched.nohz_kicks"));
  CHECK(r.metrics.get("vcpu1.exits.kick") == 0);
}

TEST_CASE("an IPI to a running arm64 target without direct injection kicks it out") {
  RunResult r = ipi_to_busy_target("VM.Standard.A1.Flex.2");
  CHECK(r.metrics.get("vcpu1.exits.kick") == 100);
}

TEST_CASE("an IPI to a preempted x86 target is only posted (SN) and taken when it runs again") {
  // vCPU1 spins; a host thread preempts it at 10 ms for 2 ms of work; the IPI at 11 ms
  // sends no notification and no wake-up: it waits in the PIR for the switch back in
  test::Recorder rec;
  SimHooks hooks;
  hooks.sink = &rec;
  hooks.guest_setup = [](GuestKernel& k) { k.add_task("spin", {{PhaseKind::Run, 10000000, -1}}, 1, 1ULL << 1); };
  hooks.vm_setup = [](Kvm& vm, GuestKernel&) {
    host_burst(vm, vm.vcpu(1).hw_thread().id(), 10000000, 2000000);
    KvmVcpu* v = &vm.vcpu(1);
    spawn_actor("ipi", vm.machine().threads[0]->host(), [v] {
      sleep_until(11000000);
      v->kvm_apic_accept_irq(IrqVector::CallFunction, now());
    });
  };
  RunResult r = run(kIdle, {}, hooks);
  CHECK(r.metrics.get("vcpu1.host.irqs_while_preempted") == 1);
  CHECK(r.metrics.get("vcpu1.irqs.call_function") == 1);
  CHECK(r.metrics.get("vcpu1.kvm.halt_wakeup") == 0);
  sim_ns handled = first(rec, 1, EventId::KvmApicAcceptIrq, 10000000);
  CHECK(handled >= 12000000);  // after the host thread's 2 ms
}

TEST_CASE("an IPI to a blocked target wakes it after its C-state's exit latency") {
  // promote governor, C6 reached after 600 us idle: the wake-up pays 133 us
  test::Recorder rec;
  SimHooks hooks;
  hooks.sink = &rec;
  hooks.vm_setup = [](Kvm& vm, GuestKernel&) {
    KvmVcpu* v = &vm.vcpu(1);
    spawn_actor("ipi", vm.machine().threads[0]->host(), [v] {
      sleep_until(50000000);
      v->kvm_apic_accept_irq(IrqVector::Reschedule, now());
    });
  };
  RunResult r = run(kIdle, {"host.idle_governor=promote", "host.max_cstate=C6", "guest.tick_policy=legacy"}, hooks);
  sim_ns woke = first(rec, 1, EventId::KvmVcpuWakeup, 50000000);
  REQUIRE(woke > 0);
  const ArchCosts& c = arch_costs("skylake-sp");
  // wake-up: C6 exit, then the switch-in work (vcpu_wakeup_ns) before the halt returns
  CHECK(woke - 50000000 == c.cstate_exit_ns(HostCState::C6));
  CHECK(r.metrics.get("pcpu1.wakeups_from.C6") >= 1);  // vCPU1 runs on core0.t1, hardware thread 1
}

// An arm64 guest whose WFIs are not trapped: every halt idles in guest mode.
static void wfi_in_guest(const std::string& kvm_key) {
  RunResult r = run("[platform]\nshape = \"VM.Standard.A1.Flex.2\"\n[host.kvm]\n" + kvm_key + "\n[run]\nduration = \"50ms\"\n", {});
  CHECK(r.metrics.get("vcpu0.idle.halts") > 100);
  CHECK(r.metrics.get("vcpu0.kvm.halt_exits") == 0);
  CHECK(r.metrics.get("vcpu0.host.halts_in_guest") == r.metrics.get("vcpu0.idle.halts"));
}

TEST_CASE("WFI under the default policy is not trapped with direct injection and one task per CPU") {
  wfi_in_guest("direct_injection = true");
}

TEST_CASE("arm64: every guest IPI is an ICC_SGI1R_EL1 trap on the sender") {
  // the default ping-pong wakes the other vCPU by IPI unless it is polling (no IPI then)
  RunResult r = run("[platform]\nshape = \"VM.Standard.A1.Flex.2\"\n[run]\nduration = \"50ms\"\n", {});
  double ipis = r.metrics.get("sched.resched_ipis") + r.metrics.get("sched.call_function_ipis");
  CHECK(ipis > 100);
  CHECK(r.metrics.get("vcpu0.exits.ipi") + r.metrics.get("vcpu1.exits.ipi") == ipis);
}

TEST_CASE("x86 HLT with an interrupt already pending re-enters at once (fastpath), no halt") {
  // An interrupt posted at the instant vCPU1 executes HLT is pending when KVM handles the
  // exit: kvm_vcpu_has_events() -> back into the guest without kvm_vcpu_halt().
  struct Injector : test::Recorder {
    KvmVcpu* v = nullptr;
    int left = 20;
    void on_event(const ModelEvent& e) override {
      test::Recorder::on_event(e);
      if (v && left > 0 && e.cpu == 1 && e.id == EventId::Halt) {
        --left;
        v->kvm_apic_accept_irq(IrqVector::Reschedule, e.t);
      }
    }
  } inj;
  SimHooks hooks;
  hooks.sink = &inj;
  hooks.guest_setup = [](GuestKernel& k) { k.add_task("s", {{PhaseKind::Run, 20000, -1}, {PhaseKind::Sleep, 1000000, -1}}, 1, 1ULL << 1); };
  hooks.vm_setup = [&inj](Kvm& vm, GuestKernel&) { inj.v = &vm.vcpu(1); };
  RunResult r = run(kIdle, {"guest.tick_policy=legacy"}, hooks);
  CHECK(r.metrics.get("vcpu1.exits.hlt_fastpath") == 20);
  // halt_exits counts every HLT exit (__kvm_emulate_halt); only the others block or poll
  CHECK(r.metrics.get("vcpu1.kvm.halt_exits") == r.metrics.get("vcpu1.exits.hlt"));
  double halts = 0;
  for (const auto& e : inj.on_cpu(1)) halts += e.id == EventId::KvmVcpuHalt;
  CHECK(halts == r.metrics.get("vcpu1.exits.hlt") - 20);
}

TEST_CASE("host idle on an SMT core: a far guest timer reaches C6 only while the sibling is idle too") {
  // as the menu test above, but vCPU0 (the sibling hardware thread) spins all along
  SimHooks hooks;
  hooks.guest_setup = [](GuestKernel& k) {
    k.add_task("s", {{PhaseKind::Run, 20000, -1}, {PhaseKind::Sleep, 3000000, -1}}, 1, 1ULL << 1);
    k.add_task("spin", {{PhaseKind::Run, 10000000, -1}}, 0, 1);
  };
  RunResult r = run(kIdle, {"guest.timer_slack=0ns", "guest.tick_policy=legacy", "host.idle_governor=menu", "host.max_cstate=C6",
                            "host.kvm.halt_poll_ns=0"}, hooks);
  CHECK(r.metrics.get("vcpu1.host.blocks") > 20);
  // menu still asks for C6 (the idle time is counted in the requested state, as cpuidle's
  // stateN/time does), but the core cannot leave C0/C1 while its other thread runs: every
  // wake-up pays the shallow state's exit latency, none C6's
  CHECK(r.metrics.get("pcpu1.idle_choices.C6") > 20);
  CHECK(r.metrics.get("pcpu1.wakeups_from.C6") == 0);
  CHECK(r.metrics.get("pcpu1.wakeups_from.C1") > 20);
}

TEST_CASE("SMT co-busy time: both threads of a core running guest work") {
  SimHooks hooks;
  hooks.guest_setup = [](GuestKernel& k) {
    k.add_task("spin0", {{PhaseKind::Run, 10000000, -1}}, 0, 1);
    k.add_task("spin1", {{PhaseKind::Run, 10000000, -1}}, 1, 2);
  };
  RunResult r = run(kIdle, {}, hooks);
  // both vCPUs are busy all the time but for their exits: co-busy is nearly all of it
  CHECK(r.metrics.get("pcpu0.smt_co_busy_ns") > 95 * NSEC_PER_MSEC);
  CHECK(r.metrics.get("pcpu0.smt_co_busy_ns") == r.metrics.get("pcpu1.smt_co_busy_ns"));
}

TEST_CASE("SMT co-busy time: none while the sibling idles") {
  SimHooks hooks;
  hooks.guest_setup = [](GuestKernel& k) { k.add_task("spin0", {{PhaseKind::Run, 10000000, -1}}, 0, 1); };
  RunResult r = run(kIdle, {"guest.tick_policy=legacy"}, hooks);
  CHECK(r.metrics.get("pcpu0.time.guest_ns") > 95 * NSEC_PER_MSEC);
  CHECK(r.metrics.get("pcpu0.smt_co_busy_ns") < 1 * NSEC_PER_MSEC);  // vCPU1's boot only
}

TEST_CASE("host time slices: a host thread and a busy vCPU on one hardware thread take turns") {
  // a CPU-bound host thread pinned to vCPU1's hardware thread from 10 ms on
  SimHooks hooks;
  hooks.guest_setup = [](GuestKernel& k) { k.add_task("spin", {{PhaseKind::Run, 10000000, -1}}, 1, 1ULL << 1); };
  hooks.vm_setup = [](Kvm& vm, GuestKernel&) { host_burst(vm, vm.vcpu(1).hw_thread().id(), 10000000, 1000000000); };
  RunResult r = run(kIdle, {"host.sched.latency=6ms", "host.sched.min_granularity=3ms"}, hooks);
  // 90 ms shared by two runnable threads in 3 ms slices (max(min_granularity, latency /
  // nr_running)): each gets about half, switching at every slice end
  double steal = r.metrics.get("vcpu1.steal_ns");
  CHECK(steal > 35 * NSEC_PER_MSEC);
  CHECK(steal < 55 * NSEC_PER_MSEC);
  CHECK(r.metrics.get("pcpu1.sched.switches") >= 25);
  CHECK(r.metrics.get("pcpu1.sched.switches") <= 35);
  CHECK(r.metrics.get("pcpu1.time.host_thread_ns") > 35 * NSEC_PER_MSEC);
}

TEST_CASE("WFI under notrap takes no exit") { wfi_in_guest("wfi_trap_policy = \"notrap\""); }

TEST_CASE("WFI under the default policy traps without direct injection") {
  RunResult r = run("[platform]\nshape = \"VM.Standard.A1.Flex.2\"\n[run]\nduration = \"50ms\"\n", {});
  CHECK(r.metrics.get("vcpu0.kvm.halt_exits") == r.metrics.get("vcpu0.idle.halts"));
}

TEST_CASE("steal equals the run-queue delay to the nanosecond") {
  // A host thread takes vCPU1's hardware thread from 10.0 to 10.3 ms (no wake-up
  // preemption); vCPU1's sleep timer fires at ~10.1 ms: it waits ~200 us, all steal.
  SimHooks hooks;
  hooks.guest_setup = [](GuestKernel& k) {
    k.add_task("s", {{PhaseKind::Sleep, 10100000, -1}, {PhaseKind::Run, 1000, -1}, {PhaseKind::Sleep, 100000000, -1}}, 1, 1ULL << 1);
  };
  hooks.vm_setup = [](Kvm& vm, GuestKernel&) { host_burst(vm, vm.vcpu(1).hw_thread().id(), 10000000, 300000); };
  // Host C-states limited to C1: the burst starts after hardware thread 1's C1 exit and
  // so ends at 10.3 ms + that latency; the vCPU thread waits for it from 10.1 ms.
  Scenario sc = test::scenario("[guest]\ntimer_slack = \"0ns\"\ntick_policy = \"legacy\"\n[workload]\nkind = \"idle\"\n[run]\nduration = \"20ms\"\n",
                               {"host.sched.wakeup_granularity=100ms", "host.kvm.halt_poll_ns=0",
                                "host.kvm.lapic_timer_advance=false", "host.max_cstate=C1"});
  test::Recorder rec;
  hooks.sink = &rec;
  RunResult r = run_simulation(sc, hooks);
  REQUIRE_FALSE(r.failed);
  // vCPU1 becomes runnable when its guest timer fires (the sleep started a few us after 0)
  const sim_ns fired = first(rec, 1, EventId::ApicTimerExpired, 10000000);
  REQUIRE(fired >= 10100000);
  REQUIRE(fired < 10110000);
  const sim_ns burst_end = 10300000 + sc.costs.cstate_exit_ns(HostCState::C1);
  const double expected = static_cast<double>(burst_end - fired);
  CHECK(r.metrics.get("vcpu1.host.run_delay_ns") == expected);
  CHECK(r.metrics.get("vcpu1.steal_ns") == expected);
  CHECK(r.metrics.get("vcpu1.host_time.runnable_ns") == expected);
}

// --- timer-aware host behaviours: each flips at its threshold ----------------------

// vCPU1 sleeps `sleep` at a time: its armed timer is that far when it halts.
static RunResult sleeper(sim_ns sleep, const std::vector<std::string>& sets) {
  SimHooks hooks;
  hooks.guest_setup = [sleep](GuestKernel& k) {
    k.add_task("s", {{PhaseKind::Run, 20000, -1}, {PhaseKind::Sleep, sleep, -1}}, 1, 1ULL << 1);
  };
  std::vector<std::string> all = {"guest.timer_slack=0ns", "guest.tick_policy=legacy"};
  all.insert(all.end(), sets.begin(), sets.end());
  return run(kIdle, all, hooks);
}

TEST_CASE("menu host idle governor: a far guest timer lets the thread go deep (C6)") {
  RunResult r = sleeper(3000000, {"host.idle_governor=menu", "host.max_cstate=C6", "host.kvm.halt_poll_ns=0"});
  CHECK(r.metrics.get("pcpu1.idle_choices.C6") > 20);
  CHECK(r.metrics.get("pcpu1.idle_choices.C1") < 5);
  CHECK(r.metrics.get("pcpu1.wakeups_from.C6") > 20);  // the sibling idles too: the core goes deep
}

TEST_CASE("menu host idle governor: an imminent guest timer keeps the thread shallow (C1)") {
  RunResult r = sleeper(150000, {"host.idle_governor=menu", "host.max_cstate=C6", "host.kvm.halt_poll_ns=0"});
  CHECK(r.metrics.get("pcpu1.idle_choices.C6") == 0);
  CHECK(r.metrics.get("pcpu1.idle_choices.C1E") + r.metrics.get("pcpu1.idle_choices.C1") > 100);
}

TEST_CASE("host idle: the governor keeps the host tick for a near guest timer") {
  // 150 us sleeps: menu predicts less than a tick and retains it; the idle periods that
  // span a 1 ms tick boundary are woken by it (and menu chooses again after the tick)
  RunResult near = sleeper(150000, {"host.idle_governor=menu", "host.kvm.halt_poll_ns=0"});
  CHECK(near.metrics.get("pcpu1.cpuidle.tick_wakeups") > 20);
  CHECK(near.metrics.get("pcpu1.cpuidle.tick_stops") < 5);
}

TEST_CASE("host idle: the governor stops the host tick for a far guest timer") {
  RunResult far = sleeper(3000000, {"host.idle_governor=menu", "host.kvm.halt_poll_ns=0"});
  CHECK(far.metrics.get("pcpu1.cpuidle.tick_stops") > 20);
  CHECK(far.metrics.get("pcpu1.cpuidle.tick_wakeups") <= 2);
}

TEST_CASE("host idle governors: teo goes deep on a far timer") {
  RunResult teo = sleeper(3000000, {"host.idle_governor=teo", "host.kvm.halt_poll_ns=0"});
  CHECK(teo.metrics.get("pcpu1.idle_choices.C6") > 20);
  CHECK(teo.metrics.get("pcpu1.idle_choices.C1") + teo.metrics.get("pcpu1.idle_choices.C1E") < 5);
}

TEST_CASE("host idle governors: ladder climbs to C6 one state at a time") {
  // ladder starts at the first real state (C1: state 0 is POLL) and promotes after four
  // idle periods longer than the next state's exit latency: C1 and C1E four times each
  RunResult lad = sleeper(3000000, {"host.idle_governor=ladder", "host.kvm.halt_poll_ns=0"});
  CHECK(lad.metrics.get("pcpu1.idle_choices.C1") == 4);
  CHECK(lad.metrics.get("pcpu1.idle_choices.C1E") == 4);
  CHECK(lad.metrics.get("pcpu1.idle_choices.C6") > 15);
}

TEST_CASE("host idle: menu learns from its recent idle periods, not only from the next timer") {
  // The guest's timer is far (its tick stopped, nothing armed) but the vCPU is woken after
  // ~30 us every time by vCPU 0: after its 8 intervals menu predicts ~30 us, not C6.
  SimHooks hooks;
  hooks.guest_setup = [](GuestKernel& k) {
    int go = k.add_event();
    k.add_task("waker", {{PhaseKind::Run, 30000, -1}, {PhaseKind::Wake, 0, go}}, 0, 1ULL << 0);
    k.add_task("sleeper", {{PhaseKind::Wait, 0, go}}, 1, 1ULL << 1);
  };
  RunResult r = run(kIdle, {"guest.tick_policy=legacy", "host.idle_governor=menu", "host.kvm.halt_poll_ns=0",
                            "host.mitigations.l1d_flush=never"}, hooks);
  double deep = r.metrics.get("pcpu1.idle_choices.C6"), shallow = r.metrics.get("pcpu1.idle_choices.C1E") + r.metrics.get("pcpu1.idle_choices.C1");
  CHECK(shallow > 100);
  CHECK(deep < 0.05 * shallow);
}

TEST_CASE("host idle: internal wake-ups are replayed before the window's counters are read") {
  // Short idles that keep the host tick, then one 200 ms idle spanning the warm-up and the
  // end: without the replay at each snapshot, the segments before the warm-up were moved
  // to other C-states only at a later wake-up, and the window's C1E time went negative.
  RunResult r = run(R"([platform]
shape = "generic"
arch = "skylake-sp"
cores = 1
threads_per_core = 1
[host.kvm]
halt_poll_ns = 0
[workload]
kind = "script"
[[workload.task]]
name = "t"
cpus = "0"
program = ["run 20us", "sleep 50us", "loop 0 8", "sleep 5ms", "sleep 200ms"]
[run]
duration = "150ms"
warmup = "5ms"
)", {});
  double idle = r.metrics.get("pcpu0.time.idle_ns"), sum = 0;
  for (const char* c : {"C1", "C1E", "C6"}) {
    double x = r.metrics.get(std::string("pcpu0.idle.") + c + "_ns");
    CHECK(x >= 0);
    sum += x;
  }
  CHECK(sum == idle);
  CHECK(r.metrics.get("pcpu0.idle.C6_ns") > 0.9 * idle);  // the long idle, with its tick stopped
}

// Round trips of a 100 ms arm64 ping-pong run by the CLI (one simulation per process).
static double arm64_pingpong(const std::string& sets) {
  std::string j = test::temp_path("pp.json");
  auto r = test::run_cli("run " + std::string(VTICK_SOURCE_DIR) + "/validation/scenarios/pipe-arm64.toml --quiet --duration 100ms --set run.warmup=10ms " +
                         sets + " --json " + j);
  REQUIRE(r.status == 0);
  auto d = nlohmann::json::parse(test::read_file(j));
  return d["metrics"]["workload.ops"].get<double>();
}

TEST_CASE("arm64: a ping-pong is faster with WFI not trapped than trapped") {
  // the trapped wake-up pays kvm_vcpu_wfi()'s vgic reload on the way in; the untrapped one
  // a kick exit from WFI in guest mode, which is shorter (Ankur Arora's figures: 13.48 and
  // 12.6 us/op, validation/arm64-notrap-vs-trap.toml)
  double trap = arm64_pingpong("--set host.kvm.wfi_trap_policy=trap");
  double notrap = arm64_pingpong("--set host.kvm.wfi_trap_policy=notrap");
  CHECK(notrap > 1.03 * trap);
}

TEST_CASE("arm64: the guest haltpoll driver polls in the guest and leaves KVM's halt polling on") {
  RunResult r = run("[platform]\nshape = \"VM.Standard.A1.Flex.2\"\n[guest]\ncpuidle_driver = \"haltpoll\"\n[workload]\n"
                    "kind = \"pingpong\"\nwork = \"1us\"\n[run]\nduration = \"100ms\"\n", {});
  CHECK(r.metrics.get("vcpu1.exits.msr_poll_control") == 0);  // no MSR_KVM_POLL_CONTROL on arm64
  CHECK(r.metrics.get("pcpu1.time.guest_poll_ns") > 0);
  CHECK(r.metrics.get("vcpu1.exits.hlt") < 100);  // the token comes back while it polls
}

TEST_CASE("arm64: the guest haltpoll driver halves the ping-pong's round trip") {
  double none = arm64_pingpong("");
  double hp = arm64_pingpong("--set guest.cpuidle_driver=haltpoll");
  CHECK(hp > 1.5 * none);  // the arm64 haltpoll series: 13.48 -> 6.84 us/op
}

TEST_CASE("timer-aware polling: a guest timer within the threshold is polled up to") {
  RunResult r = sleeper(150000, {"host.timer_poll=replace", "host.timer_poll_threshold=200us"});
  CHECK(r.metrics.get("vcpu1.host.timer_polls") > 100);
  CHECK(r.metrics.get("vcpu1.host.blocks") <= 1);
}

TEST_CASE("timer-aware polling: a guest timer past the threshold is left to adaptive polling") {
  RunResult r = sleeper(400000, {"host.timer_poll=replace", "host.timer_poll_threshold=200us"});
  CHECK(r.metrics.get("vcpu1.host.timer_polls") == 0);
  CHECK(r.metrics.get("vcpu1.host.blocks") > 100);
}

TEST_CASE("idle reclaim: a far timer releases the thread at once, an imminent one keeps it spinning") {
  RunResult far = sleeper(2000000, {"host.reclaim=true", "host.reclaim_threshold=1ms"});
  CHECK(far.metrics.get("vcpu1.host.reclaims") > 20);
  CHECK(far.metrics.get("vcpu1.kvm.halt_attempted_poll") == 0);
  CHECK(far.metrics.get("pcpu1.time.halt_poll_ns") == 0);
}

TEST_CASE("idle reclaim: an imminent timer keeps the thread spinning") {
  RunResult near = sleeper(500000, {"host.reclaim=true", "host.reclaim_threshold=1ms"});
  CHECK(near.metrics.get("vcpu1.host.keeps") > 100);
  CHECK(near.metrics.get("vcpu1.host.blocks") == 0);
  CHECK(near.metrics.get("pcpu1.time.halt_poll_ns") > 50 * NSEC_PER_MSEC);
}

TEST_CASE("x86 pause-loop exiting: a polling guest exits, the window doubles") {
  RunResult r = run("[guest]\ncmdline = \"idle=poll\"\n[workload]\nkind = \"idle\"\n[run]\nduration = \"50ms\"\n", {});
  double pauses = r.metrics.get("vcpu1.exits.pause");
  CHECK(pauses > 5);
  CHECK(pauses < 100);  // the window grows: 2 us, 4, 8, ... per spin
  CHECK(r.metrics.get("vcpu1.host.ple_window") > 4096);
}

TEST_CASE("x86 HLT passthrough: no HLT exit, the thread idles in guest mode") {
  RunResult r = run("[host.kvm]\nhlt_passthrough = true\n[run]\nduration = \"50ms\"\n", {});
  CHECK(r.metrics.get("vcpu0.idle.halts") > 100);
  CHECK(r.metrics.get("vcpu0.kvm.halt_exits") == 0);
  CHECK(r.metrics.get("vcpu0.host.halts_in_guest") == r.metrics.get("vcpu0.idle.halts"));
  CHECK(r.metrics.get("pcpu0.time.idle_ns") > 0);
}

TEST_CASE("entry mitigations: L1D flush after a schedule-out (cond), VERW on every entry") {
  RunResult r = run(kIdle, {"guest.tick_policy=legacy"}, [] {
    SimHooks h;
    h.guest_setup = [](GuestKernel& k) { k.add_task("s", {{PhaseKind::Run, 20000, -1}, {PhaseKind::Sleep, 2000000, -1}}, 1, 1ULL << 1); };
    return h;
  }());
  // one flush per entry after a block (the last block may still be open at the end)
  CHECK(std::abs(r.metrics.get("vcpu1.host.l1d_flushes") - r.metrics.get("vcpu1.host.blocks")) <= 1);
  CHECK(r.metrics.get("vcpu1.host.l1d_flushes") > 20);
  CHECK(r.metrics.get("vcpu1.host.verw_clears") == r.metrics.get("vcpu1.host.entries"));
}

TEST_CASE("LAPIC timer advance: the sw timer fires early and KVM waits to the deadline") {
  // 150 us sleeps end inside halt polling: the sw timer, started timer_advance_ns early,
  // ends the poll early and KVM busy-waits the rest, shrinking the advance by 1/8 steps
  RunResult r = sleeper(150000, {});
  CHECK(r.metrics.get("vcpu1.host.timer_advance_waits") > 10);
  CHECK(r.metrics.get("vcpu1.host.timer_advance_wait_ns") > 0);
  CHECK(r.metrics.get("vcpu1.host.timer_advance_ns") < 1000);
}

// KVM's steal is the vCPU thread's run-queue delay (sched_info -> record_steal_time());
// the time its hardware thread takes to leave a C-state is not in it. No host polling,
// C6 allowed, no host threads: every wake-up of a blocked vCPU leaves C6 or C1E, and the
// guest sees no steal. (The first release charged each exit latency: 35% of a pingpong.)
TEST_CASE("steal excludes the C-state exit time of the vCPU's hardware thread") {
  Scenario sc = test::scenario("[host.kvm]\nhalt_poll_ns = 0\n[host]\nmax_cstate = \"C6\"\n[workload]\nkind = \"periodic\"\n"
                               "work = \"100us\"\nsleep = \"2ms\"\n[run]\nduration = \"200ms\"\n");
  RunResult r = run_simulation(sc);
  REQUIRE_FALSE(r.failed);
  double deep = 0;
  for (int t = 0; t < 2; ++t)
    deep += r.metrics.get("pcpu" + std::to_string(t) + ".wakeups_from.C6") + r.metrics.get("pcpu" + std::to_string(t) + ".wakeups_from.C1E");
  CHECK(deep > 100);  // the exits are there, and they cost time:
  CHECK(r.metrics.get("vcpu1.host.blocks") > 50);
  for (int v = 0; v < 2; ++v) {
    INFO("vCPU " << v);
    CHECK(r.metrics.get("vcpu" + std::to_string(v) + ".steal_ns") == 0);
    CHECK(r.metrics.get("vcpu" + std::to_string(v) + ".host.run_delay_ns") == 0);
    CHECK(r.metrics.get("vcpu" + std::to_string(v) + ".proc_stat.steal_ns") == 0);
  }
}

namespace {
// vCPU1 runs a task in user space from 1 ms; a device interrupt is posted to it at 2.5 ms
// (kvm_apic_accept_irq): returns the guest's irq entry less 2.5 ms, and the run.
std::pair<sim_ns, RunResult> posted_irq_delay(const std::vector<std::string>& sets) {
  test::Recorder rec;
  SimHooks hooks;
  hooks.sink = &rec;
  hooks.guest_setup = [](GuestKernel& k) {
    k.add_task("w", {{PhaseKind::Sleep, 1000000, -1}, {PhaseKind::Run, 5000000, -1}, {PhaseKind::Sleep, 100000000, -1}}, 1, 1ULL << 1);
  };
  const sim_ns irq_at = 2500000;
  test::device_irq_at(hooks, 1, irq_at);
  std::vector<std::string> all = {"host.costs.kick_ns=2000", "host.costs.vmexit_ns=500", "host.mitigations.mds_clear=false",
                                  "host.mitigations.l1d_flush=never"};
  all.insert(all.end(), sets.begin(), sets.end());
  RunResult r = run("[platform]\nshape = \"generic\"\narch = \"skylake-sp\"\ncores = 2\nthreads_per_core = 1\n"
                    "[guest]\ncmdline = \"nohz=off\"\n[guest.background]\npreset = \"none\"\n[workload]\nkind = \"idle\"\n"
                    "[run]\nduration = \"10ms\"\nwarmup = \"0ns\"\n",
                    all, hooks);
  for (const auto& e : rec.on_cpu(1))
    if (e.id == EventId::Irq && e.irq.vector == IrqVector::Device && e.t >= irq_at) return {e.t - irq_at, r};
  FAIL("no device interrupt on vCPU 1");
  return {-1, r};
}
}  // namespace

TEST_CASE("host.kvm.apicv: an interrupt is posted to a running x86 vCPU without an exit") {
  auto [delay, r] = posted_irq_delay({});
  CHECK(delay == 0);
  CHECK(r.metrics.get("vcpu1.exits.kick") == 0);
}

TEST_CASE("host.kvm.apicv false: kvm_vcpu_kick() takes a running x86 vCPU out for the injection") {
  // no APICv / AVIC (a nested host): the interrupt reaches the guest after an IRQ exit,
  // vmexit_ns + kick_ns = 500 + 2000 ns later
  auto [delay, r] = posted_irq_delay({"host.kvm.apicv=false"});
  CHECK(delay == 2500);
  CHECK(r.metrics.get("vcpu1.exits.kick") == 1);
}
