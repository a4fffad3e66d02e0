// sim/: whole runs: time conservation and the measured window.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "guest/kernel.hpp"
#include "guest/workloads.hpp"
#include "host/kvm.hpp"
#include "platform/arch.hpp"

using namespace vtick;

static const char* kStates[] = {"guest", "exit", "halt_poll", "blocked", "runnable"};
static const char* kActs[] = {"idle", "guest", "host_kernel", "halt_poll", "guest_poll", "host_thread"};
static const char* kGuest[] = {"user", "system", "irq", "idle_loop", "halted"};

static void check_conservation(const RunResult& r, int vcpus, int hw_threads, sim_ns window) {
  for (int i = 0; i < vcpus; ++i) {
    std::string p = "vcpu" + std::to_string(i) + ".";
    double host = 0, guest = 0;
    for (const char* s : kStates) host += r.metrics.get(p + "host_time." + s + "_ns");
    for (const char* s : kGuest) guest += r.metrics.get(p + "guest_time." + s + "_ns");
    INFO("vcpu " << i);
    CHECK(static_cast<sim_ns>(host) == window);
    CHECK(static_cast<sim_ns>(guest) == window);
  }
  for (int t = 0; t < hw_threads; ++t) {
    std::string p = "pcpu" + std::to_string(t) + ".";
    double sum = 0, idle_cs = 0;
    for (const char* a : kActs) sum += r.metrics.get(p + "time." + a + "_ns");
    for (const char* c : {"C1", "C1E", "C6"}) idle_cs += r.metrics.get(p + "idle." + c + "_ns");
    INFO("pcpu " << t);
    CHECK(static_cast<sim_ns>(sum) == window);
    CHECK(idle_cs == r.metrics.get(p + "time.idle_ns"));
  }
}

TEST_CASE("time conservation: every vCPU and hardware thread accounts for every nanosecond") {
  Scenario sc = test::scenario("[workload]\nkind = \"periodic\"\nwork = \"170us\"\nsleep = \"830us\"\n[run]\nduration = \"300ms\"\n");
  RunResult r = run_simulation(sc);
  REQUIRE_FALSE(r.failed);
  REQUIRE(r.metrics.get("vcpu0.kvm.halt_exits") > 100);
  REQUIRE(r.metrics.get("vcpu0.host_time.blocked_ns") > 0);
  check_conservation(r, 2, 2, 300 * NSEC_PER_MSEC);
}

TEST_CASE("time conservation holds over the measured window after a warm-up") {
  Scenario sc = test::scenario("[run]\nduration = \"150ms\"\nwarmup = \"40ms\"\n", {"guest.tick_policy=got_tick"});
  RunResult r = run_simulation(sc);
  REQUIRE_FALSE(r.failed);
  CHECK(r.measured_ns == 110 * NSEC_PER_MSEC);
  check_conservation(r, 2, 2, 110 * NSEC_PER_MSEC);
}

TEST_CASE("arm64 shape: WFI exits, timer writes without exits") {
  Scenario sc = test::scenario("[platform]\nshape = \"VM.Standard.A1.Flex.2\"\n[run]\nduration = \"100ms\"\n");
  CHECK(sc.guest.hz == 250);
  CHECK(sc.host.kvm.halt_poll_ns == 500000);
  RunResult r = run_simulation(sc);
  REQUIRE_FALSE(r.failed);
  CHECK(r.metrics.get("vcpu0.kvm.halt_exits") > 100);
  CHECK(r.metrics.get("vcpu0.clockevent.deadline_writes") > 100);
  CHECK(r.metrics.get("vcpu0.exits.msr_tsc_deadline") == 0);
  CHECK(r.metrics.get("vcpu0.exits.apic_lvtt") == 0);
  check_conservation(r, 2, 2, 100 * NSEC_PER_MSEC);
}

// core: an interrupt cuts guest work at its instant and the rest runs after the handler,
// with no work lost or added. vCPU1's task runs 2 ms of user work on an arm64 core (no
// SMT: always full speed) with direct injection (the interrupt reaches the guest with no
// exit); a device interrupt lands at 2.5 ms: the task's user time between its start and
// its end is exactly 2 ms, and the handler's time comes on top.
TEST_CASE("an interrupt cuts running guest work at its instant, the remainder resumes after the handler") {
  test::Recorder rec;
  SimHooks hooks;
  hooks.sink = &rec;
  hooks.guest_setup = [](GuestKernel& k) {
    k.add_task("w", {{PhaseKind::Sleep, 1000000, -1}, {PhaseKind::Run, 2000000, -1}, {PhaseKind::Sleep, 100000000, -1}}, 1, 1ULL << 1);
  };
  const sim_ns irq_at = 2500000;
  test::device_irq_at(hooks, 1, irq_at);
  Scenario sc = test::scenario("[platform]\nshape = \"VM.Standard.A1.Flex.2\"\n[host.kvm]\ndirect_injection = true\n[guest]\ntimer_slack = \"0ns\"\ntick_policy = \"legacy\"\n"
                               "[workload]\nkind = \"idle\"\n[run]\nduration = \"10ms\"\n");
  RunResult r = run_simulation(sc, hooks);
  REQUIRE_FALSE(r.failed);
  // user-state intervals of CPU 1 (only the task runs in user mode there)
  sim_ns user = 0, since = -1, first_user = -1, last_user_end = -1, irq_seen = -1;
  int cuts = 0;
  for (const auto& e : rec.on_cpu(1)) {
    EventId w = e.id;
    if (w == EventId::GuestCpuState) {
      bool to_user = e.guest_cpu_state.state == GuestCpuState::User;
      if (to_user && since < 0) {
        since = e.t;
        if (first_user < 0) first_user = e.t;
      } else if (!to_user && since >= 0) {
        user += e.t - since;
        last_user_end = e.t;
        since = -1;
        ++cuts;
      }
    } else if (w == EventId::Irq && e.irq.vector == IrqVector::Device && irq_seen < 0) {
      irq_seen = e.t;
    }
  }
  REQUIRE(first_user > 1000000);
  REQUIRE(first_user < irq_at);
  CHECK(irq_seen == irq_at);                       // the work was cut at the interrupt's instant
  CHECK(user == 2000000);                          // nothing lost, nothing added
  CHECK(cuts >= 2);                                // cut by the interrupt, then ended
  CHECK(last_user_end > first_user + 2000000);     // the handlers' time came on top
}

TEST_CASE("two runs in one process: the second starts neither stopped nor failed and gives the first's figures") {
  // core/sg.cpp's stop flag outlived the run that set it: a second run_simulation() in the
  // same process unwound at its first wait and its invariant check read an empty
  // poll_open (std::out_of_range). Each run now starts from reset_run_state().
  const std::string toml =
      "[guest]\nhz = 250\n[guest.background]\npreset = \"none\"\n[workload]\nkind = \"sysbench_threads\"\n"
      "threads = 2\nthread_locks = 1\n[run]\nduration = \"20ms\"\nwarmup = \"0ns\"\n";
  test::Recorder rec1, rec2;
  SimHooks h1, h2;
  h1.sink = &rec1;
  h2.sink = &rec2;
  RunResult a = run_simulation(test::scenario(toml), h1);
  RunResult b = run_simulation(test::scenario(toml), h2);
  INFO(a.error << " / " << b.error);
  REQUIRE_FALSE(a.failed);
  REQUIRE_FALSE(b.failed);
  CHECK(b.measured_ns == a.measured_ns);
  CHECK(b.invariants_checked == a.invariants_checked);
  CHECK(b.metrics.get("sched.switches") == a.metrics.get("sched.switches"));
  CHECK(b.metrics.get("vcpu0.kvm.halt_exits") == a.metrics.get("vcpu0.kvm.halt_exits"));
  CHECK(rec2.events.size() == rec1.events.size());
}
