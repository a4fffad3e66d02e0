// sim/: whole runs: time conservation and the measured window.
#include <catch2/catch.hpp>

#include "helpers.hpp"
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
