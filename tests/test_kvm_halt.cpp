// host/kvm_halt: KVM's halt-polling rules, alone and inside a running VM.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>

#include "guest/kernel.hpp"
#include "helpers.hpp"
#include "host/kvm_halt.hpp"

using namespace vtick;

TEST_CASE("grow_halt_poll_ns: 0 -> grow_start, then doubling (capped at the next halt, not here)") {
  KvmParams p;  // grow 2, grow_start 10000, shrink 2, halt_poll_ns 200000
  std::vector<sim_ns> seq;
  sim_ns v = 0;
  for (int i = 0; i < 6; ++i) seq.push_back(v = grow_halt_poll_ns(p, v));
  CHECK(seq == std::vector<sim_ns>{10000, 20000, 40000, 80000, 160000, 320000});
  p.halt_poll_ns_grow = 0;
  CHECK(grow_halt_poll_ns(p, 40000) == 40000);
}

TEST_CASE("shrink_halt_poll_ns divides, and drops below grow_start to 0") {
  KvmParams p;
  std::vector<sim_ns> seq;
  sim_ns v = 200000;
  for (int i = 0; i < 5; ++i) seq.push_back(v = shrink_halt_poll_ns(p, v));
  CHECK(seq == std::vector<sim_ns>{100000, 50000, 25000, 12500, 0});
  p.halt_poll_ns_shrink = 0;  // the old default: reset
  CHECK(shrink_halt_poll_ns(p, 160000) == 0);
}

TEST_CASE("adjust_halt_poll_ns follows kvm_vcpu_halt's decision order") {
  KvmParams p;
  KvmHaltStats st;
  CHECK(adjust_halt_poll_ns(p, 40000, 30000, true, st) == 40000);    // halt fit the window
  CHECK(adjust_halt_poll_ns(p, 40000, 300000, true, st) == 20000);   // long block: shrink
  CHECK(adjust_halt_poll_ns(p, 40000, 150000, true, st) == 80000);   // short halt: grow
  CHECK(adjust_halt_poll_ns(p, 0, 300000, true, st) == 0);           // 0 and long: stays 0
  CHECK(adjust_halt_poll_ns(p, 40000, 150000, false, st) == 40000);  // polling not allowed
  p.max_halt_poll_ns = 0;                                         // per-VM override 0
  CHECK(adjust_halt_poll_ns(p, 40000, 150000, true, st) == 0);
  CHECK(st.halt_poll_grow == 1);
  CHECK(st.halt_poll_shrink == 2);
  CHECK(kvm_vcpu_max_halt_poll_ns(p) == 0);
}

TEST_CASE("update_halt_poll_stats counts successful and failed polls as KVM does") {
  KvmHaltStats st;
  update_halt_poll_stats(st, 5000, true);
  update_halt_poll_stats(st, 10000, false);
  update_halt_poll_stats(st, 0, true);
  CHECK(st.halt_attempted_poll == 3);
  CHECK(st.halt_successful_poll == 2);
  CHECK(st.halt_poll_success_ns == 5000);
  CHECK(st.halt_poll_fail_ns == 10000);
  CHECK(st.halt_poll_invalid == 0);
}

// A task on vCPU1 sleeps 190 us eight times (halts shorter than the 200 us maximum),
// then 1 ms six times (longer): the window seen at each kvm_vcpu_halt() entry grows
// 0 -> 10 -> 20 -> 40 -> 80 -> 160 -> 200 (clamped) us, then halves down to 0.
TEST_CASE("inside a VM, halt_poll_ns grows to the cap on short halts and shrinks on long ones") {
  Scenario sc = test::scenario(R"(
[platform]
shape = "VM.Standard2.1"
[guest]
tick_policy = "legacy"
timer_slack = "0ns"
[workload]
kind = "periodic"
tasks = 1
work = "100us"
sleep = "5ms"
[run]
duration = "40ms"
)");
  SimHooks hooks;
  test::Recorder rec;
  hooks.sink = &rec;
  hooks.guest_setup = [](GuestKernel& k) {
    std::vector<Phase> prog;
    for (int i = 0; i < 8; ++i) prog.insert(prog.end(), {{PhaseKind::Run, 50000, -1}, {PhaseKind::Sleep, 190000, -1}});
    for (int i = 0; i < 6; ++i) prog.insert(prog.end(), {{PhaseKind::Run, 50000, -1}, {PhaseKind::Sleep, 1000000, -1}});
    k.add_task("halter", prog, 1, 1ULL << 1);
  };
  RunResult r = run_simulation(sc, hooks);
  REQUIRE_FALSE(r.failed);
  std::vector<sim_ns> windows;
  for (const auto& e : rec.on_cpu(1))
    if (e.id == EventId::KvmVcpuHalt) windows.push_back(e.kvm_vcpu_halt.halt_poll_ns);
  REQUIRE(windows.size() >= 15);
  windows.resize(15);
  CHECK(windows == std::vector<sim_ns>{0, 10000, 20000, 40000, 80000, 160000, 200000, 200000,
                                       200000, 100000, 50000, 25000, 12500, 0, 0});
  // Which halts ended in the poll (success: never scheduled out): only the two 190 us
  // halts polled with the full 200 us window; every shorter window ran out and blocked.
  std::vector<int> waited;
  for (const auto& e : rec.on_cpu(1))
    if (e.id == EventId::KvmVcpuWakeup) waited.push_back(e.kvm_vcpu_wakeup.waited ? 1 : 0);
  REQUIRE(waited.size() >= 14);
  CHECK(std::vector<int>(waited.begin(), waited.begin() + 14) == std::vector<int>{1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1});
  // KVM's stats over the whole run (the program repeats): a poll is attempted when the
  // window is > 0, successful when the halt did not schedule out; a failed poll counts
  // its whole window, a successful one the time to the wake-up.
  double attempted = 0, successful = 0, fail_ns = 0;
  std::vector<sim_ns> all_windows;
  for (const auto& e : rec.on_cpu(1))
    if (e.id == EventId::KvmVcpuHalt) all_windows.push_back(e.kvm_vcpu_halt.halt_poll_ns);
  REQUIRE(all_windows.size() - waited.size() <= 1);  // the last halt may still be in progress
  for (std::size_t i = 0; i < waited.size(); ++i) {
    if (all_windows[i] == 0) continue;
    ++attempted;
    if (waited[i]) fail_ns += static_cast<double>(all_windows[i]);
    else ++successful;
  }
  CHECK(successful >= 2);
  CHECK(r.metrics.get("vcpu1.kvm.halt_attempted_poll") == attempted);
  CHECK(r.metrics.get("vcpu1.kvm.halt_successful_poll") == successful);
  CHECK(r.metrics.get("vcpu1.kvm.halt_poll_fail_ns") == fail_ns);
  CHECK(r.metrics.get("vcpu1.kvm.halt_poll_success_ns") > successful * 150000);
  CHECK(r.metrics.get("vcpu1.kvm.halt_poll_success_ns") < successful * 200000);
}

TEST_CASE("halt_poll_ns = 0: no vCPU ever polls") {
  Scenario sc = test::scenario("[host.kvm]\nhalt_poll_ns = 0\n[run]\nduration = \"50ms\"\n");
  RunResult r = run_simulation(sc);
  REQUIRE_FALSE(r.failed);
  CHECK(r.metrics.get("vcpu0.kvm.halt_exits") > 100);
  for (int i = 0; i < 2; ++i) {
    std::string p = "vcpu" + std::to_string(i) + ".";
    CHECK(r.metrics.get(p + "kvm.halt_attempted_poll") == 0);
    CHECK(r.metrics.get(p + "host_time.halt_poll_ns") == 0);
    CHECK(r.metrics.get(p + "kvm.halt_wakeup") > 0);
  }
}

// host.costs.wake_sigma: a woken vCPU's resume drawn lognormal around its declared cost.
// Two sysbench threads on one lock (the AMD guest's calibrated scenario, its halts polled,
// each resume 4 us): at sigma 0 every wake-up takes the same time, so the loops phase-lock;
// at the recording's sigma the wake-up latency spreads as the guest's ICR-to-entry does
// (p90/p50 1.5-1.6 there), the median stays near the mean's, and a seed gives one result.
TEST_CASE("host.costs.wake_sigma spreads a polled halt's resume and 0 keeps every one alike") {
  const std::string scen = std::string(VTICK_SOURCE_DIR) + "/docs/real-guest/trace-2026-12-06c/scenarios/sb-n2-l1.toml";
  auto run = [&](const std::string& sigma, const std::string& name) {
    std::string out = test::temp_path(name);
    auto r = test::run_cli("run " + scen + " --set guest.tick_policy=got_tick --set host.costs.halt_resume_ns=4000" +
                           " --set host.costs.wake_sigma=" + sigma + " --duration 300ms --quiet --json " + out);
    REQUIRE(r.status == 0);
    auto j = nlohmann::json::parse(test::read_file(out));
    std::remove(out.c_str());
    return j;
  };
  auto flat = run("0", "ws0.json");
  auto spread = run("0.35", "ws35.json");
  double p50_flat = flat["summary"]["wake_latency_p50_us"].get<double>();
  CHECK(flat["summary"]["wake_latency_p99_us"].get<double>() == Approx(p50_flat));
  double p50 = spread["summary"]["wake_latency_p50_us"].get<double>();
  CHECK(spread["summary"]["wake_latency_p99_us"].get<double>() > 1.3 * p50);
  CHECK(p50 == Approx(p50_flat).epsilon(0.15));
  CHECK(run("0.35", "ws35b.json")["summary"] == spread["summary"]);
}
