// platform/: topology, shape catalog, cost tables, SMT coupling through SimGrid.
#include <catch2/catch.hpp>
#include <simgrid/s4u.hpp>

#include "core/sg.hpp"
#include "helpers.hpp"
#include "platform/arch.hpp"
#include "platform/sg_platform.hpp"
#include "platform/shapes.hpp"
#include "platform/topology.hpp"
#include "sim/scenario.hpp"

using namespace vtick;

TEST_CASE("topology numbers hardware threads the Linux way and finds siblings") {
  Topology t(1, 2, 2);  // 2 cores x 2 threads: core0 = {0, 2}, core1 = {1, 3}
  CHECK(t.num_hw_threads() == 4);
  CHECK(t.core_of(0) == 0);
  CHECK(t.core_of(2) == 0);
  CHECK(t.core_of(3) == 1);
  CHECK(t.siblings(0) == std::vector<int>{2});
  CHECK(t.siblings(3) == std::vector<int>{1});
  // vCPUs 0,1 are the two threads of core 0, as OCI presents sibling pairs
  CHECK(t.placement(0) == 0);
  CHECK(t.placement(1) == 2);
  CHECK(t.placement(2) == 1);
  CHECK(t.placement(3) == 3);
  CHECK_THROWS(t.placement(4));
  Topology n(1, 2, 1);
  CHECK(n.siblings(0).empty());
  CHECK(t.graphviz().find("core1.t1") != std::string::npos);
}

TEST_CASE("shape catalog resolves the mission's shapes") {
  Shape s;
  REQUIRE(lookup_shape("VM.Standard2.1", s));
  CHECK(s.arch == "skylake-sp");
  CHECK(s.vcpus() == 2);
  CHECK(s.threads_per_core == 2);
  REQUIRE(lookup_shape("VM.Standard.A1.Flex.2", s));
  CHECK(s.arch == "altra");
  CHECK(s.vcpus() == 2);
  CHECK(s.threads_per_core == 1);
  REQUIRE(lookup_shape("VM.Standard.E4.Flex.4", s));
  CHECK(s.vcpus() == 8);
  CHECK_FALSE(lookup_shape("VM.Standard2.3", s));  // not an OCI size
  CHECK_FALSE(lookup_shape("VM.Standard2.", s));
  CHECK_FALSE(lookup_shape("VM.Nope.1", s));
}

TEST_CASE("every cost of every table has a range containing it and a source") {
  for (const auto& name : arch_names()) {
    PCtx ctx = arch_costs(name).ctx();
    for (const auto& r : ArchCosts::table()) {
      INFO(name << "." << r.key);
      auto [lo, hi] = r.range_for(ctx);
      double v = pvalue_number(r.default_for(ctx));
      CHECK(lo <= v);
      CHECK(v <= hi);
      CHECK_FALSE(r.source_for(ctx).empty());
      CHECK_FALSE(r.help.empty());
    }
  }
  CHECK(arch_costs("skylake-sp").smt);
  CHECK_FALSE(arch_costs("altra").smt);
  CHECK_FALSE(arch_costs("altra").timer_write_exits);
  // the per-model values are the model's, not Skylake-SP's
  CHECK(arch_costs("skylake-sp").c6_exit_ns == 133000);
  CHECK(arch_costs("altra").c6_exit_ns == 100000);
  CHECK(arch_costs("milan").vmexit_ns == 550);
  CHECK(arch_costs("altra").cstate_exit_ns(HostCState::C1) == 200);  // WFI clock gating, not the _LPI table's 1 us bound
}

// The ranges hold the hosts measured: a nested AMD host (docs/real-guest/trace-2026-12-06c)
// takes 5.7-6.7 us p50 from an ICR write to the IRQ entry on a polled halt, which
// halt_resume_ns must reach on milan (it stopped at 3 us); the AMD guest's FUTEX_WAKE on
// its own CPU costs 2.7-3.1 us less getppid(), which ttwu_ns must hold.
TEST_CASE("the cost ranges hold the nested AMD guest of trace-2026-12-06c") {
  PCtx ctx = arch_costs("milan").ctx();
  const auto* resume = find_scenario_param("host.costs.halt_resume_ns");
  REQUIRE(resume);
  CHECK(resume->range_for(ctx).second >= 6700);
  const auto* ttwu = find_scenario_param("guest.costs.ttwu_ns");
  REQUIRE(ttwu);
  CHECK(ttwu->range_for(ctx).second >= 3107);
}

// Work in flight on one hardware thread slows when its sibling becomes busy, less when
// the sibling only spins, and speeds up again when the sibling goes idle.
static double finish_time_ms(HwActivity sibling_class, sim_ns from, sim_ns to) {
  test::EngineArgs args;
  simgrid::s4u::Engine e(&args.argc, args.argv.data());
  auto m = build_machine(1, 2, arch_costs("skylake-sp"));
  for (auto& hw : m->threads) hw->start(0);
  double done = -1;
  spawn_actor("work", m->threads[0]->host(), [&] {
    execute(m->threads[0]->host(), 1000000);  // 1 ms at nominal speed
    done = static_cast<double>(now()) / 1e6;
  });
  spawn_actor("sibling", m->threads[1]->host(), [&] {
    sleep_until(from);
    m->threads[1]->set_activity(sibling_class, now());
    sleep_until(to);
    m->threads[1]->set_activity(HwActivity::Idle, now());
  });
  e.run();
  return done;
}

TEST_CASE("SMT: a busy sibling slows in-flight work by smt_factor_busy") {
  // 0.5 ms alone, then 0.5 ms of work at 0.65 speed
  CHECK(finish_time_ms(HwActivity::Guest, 500000, 10000000) == Approx(0.5 + 0.5 / 0.65).epsilon(1e-6));
}

TEST_CASE("SMT: a spinning sibling is a lighter load (smt_factor_spin)") {
  CHECK(finish_time_ms(HwActivity::HaltPoll, 500000, 10000000) == Approx(0.5 + 0.5 / 0.85).epsilon(1e-6));
}

TEST_CASE("SMT: work speeds up again when the sibling goes idle") {
  // 0.5 ms alone, 0.3 ms at 0.65 (0.195 ms of work), the remaining 0.305 ms alone
  CHECK(finish_time_ms(HwActivity::HostKernel, 500000, 800000) == Approx(1.105).epsilon(1e-6));
}
