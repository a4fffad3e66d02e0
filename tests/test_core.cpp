// core/: time, random streams, state clocks, statistics, SimGrid failure handling.
#include <catch2/catch.hpp>
#include <cmath>
#include <simgrid/s4u.hpp>
#include <stdexcept>

#include "core/parse_num.hpp"
#include "core/rng.hpp"
#include "core/sg.hpp"
#include "core/state_clock.hpp"
#include "core/time.hpp"
#include "core/warn.hpp"
#include "helpers.hpp"
#include "platform/hw_thread.hpp"
#include "platform/sg_platform.hpp"
#include "sim/stats.hpp"

using namespace vtick;

TEST_CASE("durations parse with a mandatory unit") {
  sim_ns t = 0;
  CHECK(parse_duration("10s", t));
  CHECK(t == 10 * NSEC_PER_SEC);
  CHECK(parse_duration("2.5ms", t));
  CHECK(t == 2500000);
  CHECK(parse_duration("100us", t));
  CHECK(t == 100000);
  CHECK(parse_duration("-5ms", t));
  CHECK(t == -5000000);
  CHECK_FALSE(parse_duration("10", t));
  CHECK_FALSE(parse_duration("10 sec", t));
  CHECK_FALSE(parse_duration("ms", t));
  CHECK(format_duration(250 * NSEC_PER_USEC) == "250us");
  CHECK(format_duration(3 * NSEC_PER_SEC) == "3s");
}

TEST_CASE("random streams are reproducible and independent per component") {
  Rng a(42, "workload/task0"), b(42, "workload/task0"), c(42, "workload/task1"), d(43, "workload/task0");
  std::uint64_t xa = a.next();
  CHECK(xa == b.next());
  CHECK(xa != c.next());
  CHECK(xa != d.next());
  Rng u(7, "u");
  for (int i = 0; i < 1000; ++i) {
    sim_ns x = u.uniform(10, 20);
    REQUIRE(x >= 10);
    REQUIRE(x <= 20);
  }
}

TEST_CASE("a state clock's totals add up to the observed time") {
  enum class S { A, B, C, Count };
  StateClock<S> c;
  c.start(S::A, 100);
  c.enter(S::B, 150);
  c.enter(S::C, 175);
  c.enter(S::A, 300);
  auto t = c.totals(1000);
  CHECK(t[0] == 50 + 700);
  CHECK(t[1] == 25);
  CHECK(t[2] == 125);
  CHECK(t[0] + t[1] + t[2] == 900);
}

TEST_CASE("sample statistics use Student's t for the 95% interval") {
  SampleStats s = sample_stats({10, 12, 14});
  CHECK(s.n == 3);
  CHECK(s.mean == Approx(12));
  CHECK(s.stddev == Approx(2));
  CHECK(s.ci95 == Approx(4.303 * 2 / std::sqrt(3.0)).epsilon(1e-4));  // t(0.975, 2) = 4.303 to 3 decimals
  CHECK(std::isnan(sample_stats({5}).ci95));  // one sample: no interval (n/a)
  CHECK(std::isnan(sample_stats({5}).stddev));
  CHECK(std::isnan(sample_stats({}).mean));
  CHECK(percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 50) == 5);
  CHECK(percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 99) == 10);
}

// Published two-sided 95% values of Student's t (e.g. NIST/SEMATECH e-Handbook, table
// 1.3.6.7.2, upper critical values at 0.025), to 3 decimals; the old hand table gave
// 2.000 from 31 to 60 degrees of freedom.
TEST_CASE("Student t quantiles match the published tables to 3 decimals, also between 30 and 60 dof") {
  const std::pair<int, double> table[] = {{1, 12.706}, {2, 4.303}, {5, 2.571}, {10, 2.228}, {30, 2.042},
                                          {40, 2.021}, {50, 2.009}, {60, 2.000}, {100, 1.984}, {120, 1.980}};
  for (auto [dof, t] : table) {
    INFO("dof " << dof);
    CHECK(std::round(student_t95(dof) * 1000) / 1000 == Approx(t).margin(1e-9));
  }
  CHECK(student_t95(1000000) == Approx(1.960).margin(5e-4));  // the normal quantile in the limit
  CHECK(std::isnan(student_t95(0)));
}

TEST_CASE("a SimGrid deadlock is detected instead of passing silently") {
  test::EngineArgs args;
  simgrid::s4u::Engine e(&args.argc, args.argv.data());
  auto m = build_machine(1, 1, arch_costs("altra"));
  watch_for_deadlock();
  // kept alive past the engine: SimGrid aborts when a semaphore in use is destroyed
  static auto s1 = simgrid::s4u::Semaphore::create(0), s2 = simgrid::s4u::Semaphore::create(0);
  spawn_actor("a", m->threads[0]->host(), [&] { s1->acquire(); s2->release(); });
  spawn_actor("b", m->threads[0]->host(), [&] { s2->acquire(); s1->release(); });
  e.run();
  CHECK(deadlock_detected());
  // The two actors stay blocked for good and SimGrid's teardown would abort on them:
  // leave without it, with Catch's verdict as the exit status.
  std::_Exit(Catch::getCurrentContext().getResultCapture()->lastAssertionPassed() ? 0 : 1);
}

TEST_CASE("an exception inside an actor fails the run with its message, no abort") {
  Scenario sc = test::scenario("[run]\nduration = \"10ms\"\n");
  SimHooks hooks;
  hooks.host_setup = [](Machine& m) {
    spawn_actor("thrower", m.threads[0]->host(), [] {
      sleep_until(2 * NSEC_PER_MSEC);
      throw std::runtime_error("model invariant broken");
    });
  };
  RunResult r = run_simulation(sc, hooks);
  CHECK(r.failed);
  CHECK(r.error.find("model invariant broken") != std::string::npos);
  CHECK(r.error.find("thrower") != std::string::npos);
}

TEST_CASE("running ahead stops at another actor's wake-up, and a ring from ahead lands at the ringer's time") {
  test::EngineArgs args;
  simgrid::s4u::Engine e(&args.argc, args.argv.data());
  auto m = build_machine(1, 2, arch_costs("altra"));
  set_quantum_ns(100 * NSEC_PER_USEC);
  Doorbell& bell = test::keep_alive(new Doorbell("sleeper-bell"));  // outlives the engine
  sim_ns woke_by_time = -1, woke_by_bell = -1, clock_at_ring = -1;
  std::vector<bool> ahead;
  spawn_actor("sleeper", m->threads[0]->host(), [&] {
    sleep_until(10 * NSEC_PER_USEC);
    woke_by_time = now();
    wait_event(bell, KTIME_MAX);
    woke_by_bell = now();
  });
  spawn_actor("runner", m->threads[1]->host(), [&] {
    sleep_until(0);  // both actors have started and blocked once
    for (int i = 0; i < 4; ++i) ahead.push_back(run_ahead(3 * NSEC_PER_USEC));  // 3, 6, 9: the 4th would pass 10
    sleep_until(now() + 3 * NSEC_PER_USEC);                                     // 12 us
    ahead.push_back(run_ahead(2 * NSEC_PER_USEC));                              // 14: the sleeper waits for a ring only
    clock_at_ring = from_seconds(simgrid::s4u::Engine::get_clock());
    bell.ring();
    ahead.push_back(run_ahead(1 * NSEC_PER_USEC));  // the rung sleeper may act at 14: no further
    sleep_until(20 * NSEC_PER_USEC);
  });
  e.run();
  CHECK(ahead == std::vector<bool>{true, true, true, false, true, false});
  CHECK(woke_by_time == 10 * NSEC_PER_USEC);
  CHECK(clock_at_ring == 12 * NSEC_PER_USEC);
  CHECK(woke_by_bell == 14 * NSEC_PER_USEC);
}

// core/warn.hpp: where the kernel WARNs, the model fails the run naming the check.
TEST_CASE("VTICK_WARN fails the simulation naming the condition, the place and the text, and returns the condition") {
  test::EngineArgs args;
  simgrid::s4u::Engine e(&args.argc, args.argv.data());
  auto m = build_machine(1, 1, arch_costs("altra"));
  bool quiet = true, loud = false;
  int cpu = 3;
  spawn_actor("warner", m->threads[0]->host(), [&] {
    quiet = VTICK_WARN(cpu < 0, "never");
    loud = VTICK_WARN(cpu == 3, "CPU ", cpu, " in a state it cannot be in");
  });
  e.run();
  CHECK_FALSE(quiet);
  CHECK(loud);
  REQUIRE(simulation_failed());
  CHECK(failure_message() == "WARN_ON(cpu == 3) at tests/test_core.cpp:" + std::to_string(__LINE__ - 6) + ": CPU 3 in a state it cannot be in");
}

// ---- the vtick scheduler (core/own_queue.hpp) ----------------------------------------------

namespace {

struct SgEngine {  // a bare engine and a 1-core, 2-thread Skylake machine
  test::EngineArgs args;
  simgrid::s4u::Engine e{&args.argc, args.argv.data()};
  std::unique_ptr<Machine> m = build_machine(1, 2, arch_costs("skylake-sp"));
  explicit SgEngine(StepScheduler s) {
    set_step_scheduler(s);
    for (auto& hw : m->threads) hw->start(0);
  }
};

// 100 us of nominal work on hardware thread 0 while its SMT sibling goes busy at 20 us and
// spins from 50 us: when it ends, under scheduler `s`.
sim_ns smt_work_end(StepScheduler s) {
  SgEngine g(s);
  sim_ns end = -1;
  HwThread* t0 = g.m->threads[0].get();
  HwThread* t1 = g.m->threads[1].get();
  spawn_actor("worker", t0->host(), [&] {
    execute(t0->host(), 100 * NSEC_PER_USEC);
    end = now();
  });
  spawn_actor("sibling", t1->host(), [&] {
    sleep_until(20 * NSEC_PER_USEC);
    t1->set_activity(HwActivity::Guest, now());
    sleep_until(50 * NSEC_PER_USEC);
    t1->set_activity(HwActivity::HaltPoll, now());
    sleep_until(500 * NSEC_PER_USEC);
  });
  g.e.run();
  return end;
}

// The same end worked out by hand from the platform's rule: full speed while the sibling
// idles, smt_factor_busy while it is busy, smt_factor_spin while it spins.
sim_ns smt_work_end_by_hand() {
  const ArchCosts& c = arch_costs("skylake-sp");
  double done = 20000 + 30000 * c.smt_factor_busy;
  return 50000 + static_cast<sim_ns>(std::llround((100000 - done) / c.smt_factor_spin));
}

}  // namespace

TEST_CASE("SMT coupling of work in flight: SimGrid's Exec slows and speeds up with the sibling's activity class") {
  REQUIRE(arch_costs("skylake-sp").smt_factor_busy < 1.0);
  CHECK(std::llabs(smt_work_end(StepScheduler::Simgrid) - smt_work_end_by_hand()) <= 1);
}

TEST_CASE("SMT coupling of work in flight: the vtick scheduler times it as SimGrid's Exec does") {
  CHECK(std::llabs(smt_work_end(StepScheduler::Vtick) - smt_work_end_by_hand()) <= 1);
}

TEST_CASE("vtick scheduler: the earliest event runs first, ties observer first then last-queued first, rings at the ringer's time") {
  SgEngine g(StepScheduler::Vtick);
  std::vector<std::string> order;
  Doorbell& bell = test::keep_alive(new Doorbell("own-bell"));  // outlives the engine
  auto host = g.m->threads[0]->host();
  spawn_actor("a", host, [&] {
    sleep_until(10);
    order.push_back("a@" + std::to_string(now()));
    sleep_until(30);
    order.push_back("a@" + std::to_string(now()));
    bell.ring();  // at 30: the waiter runs when "a" blocks
    order.push_back("a rang");
    sleep_until(40);
    order.push_back("a@" + std::to_string(now()));
  });
  spawn_actor("b", host, [&] {
    sleep_until(10);
    order.push_back("b@" + std::to_string(now()));
    Woken w = wait_event(bell, 1000);
    order.push_back(std::string(w == Woken::Bell ? "b bell@" : "b timeout@") + std::to_string(now()));
  });
  spawn_actor("observer", host, [&] {
    sleep_until(10);
    order.push_back("observer@" + std::to_string(now()));
  }, true);
  g.e.run();
  // at 10: the observer, then a (at 0 "b" ran before "a", so "a" queued its wake-up at 10
  // after "b" did), then b
  CHECK(order == std::vector<std::string>{"observer@10", "a@10", "b@10", "a@30", "a rang", "b bell@30", "a@40"});
}

TEST_CASE("vtick scheduler: a step whose next event is the actor's own costs no hand-off") {
  SgEngine g(StepScheduler::Vtick);
  Doorbell& bell = test::keep_alive(new Doorbell("own-bell"));  // outlives the engine
  auto host = g.m->threads[0]->host();
  sim_ns woke = -1;
  spawn_actor("waiter", host, [&] {
    wait_event(bell, KTIME_MAX);
    woke = now();
  });
  spawn_actor("stepper", host, [&] {
    for (int i = 1; i <= 1000; ++i) sleep_until(i * 100);
    bell.ring();
  });
  g.e.run();
  CHECK(woke == 100000);
  CHECK(sg_event_counts().steps >= 1000);
  CHECK(sg_event_counts().handoffs <= 4);  // the start, the waiter parking, the ring, the end
}

// The speed report's host-only steps (core/sg.hpp next_step_host_only()): the marked blocking
// call's step counts, and only it, though another actor runs between the mark and the next
// call.
TEST_CASE("vtick scheduler: the host-only step count takes the marked steps and no other") {
  SgEngine g(StepScheduler::Vtick);
  auto host = g.m->threads[0]->host();
  const SgEventCounts before = sg_event_counts();  // (the counts add up over the engines of a process)
  spawn_actor("vcpu", host, [] {
    sleep_until(10);
    next_step_host_only();
    sleep_until(20);
    sleep_until(30);
    next_step_host_only();
    sleep_until(40);
  });
  spawn_actor("guest", host, [] {  // its steps fall between the vCPU's
    for (sim_ns t = 15; t <= 45; t += 10) sleep_until(t);
  });
  spawn_actor("host-thread", host, [] {
    next_step_host_only();
    sleep_until(7);
    next_step_host_only();
    sleep_until(17);
  });
  g.e.run();
  const SgEventCounts& after = sg_event_counts();
  CHECK(after.steps - before.steps == 10);
  CHECK(after.host_only_steps - before.host_only_steps == 4);
  CHECK(after.handoffs - before.handoffs >= 6);  // the actors did interleave
}

TEST_CASE("vtick scheduler: actors left waiting for rings nobody sends are a deadlock, and each unwinds (its destructors run)") {
  SgEngine g(StepScheduler::Vtick);
  watch_for_deadlock();
  Doorbell& b1 = test::keep_alive(new Doorbell("never-1"));  // outlive the engine
  Doorbell& b2 = test::keep_alive(new Doorbell("never-2"));
  auto host = g.m->threads[0]->host();
  std::vector<std::string> unwound;
  struct Mark {
    std::vector<std::string>& out;
    std::string name;
    ~Mark() { out.push_back(name + "@" + std::to_string(now())); }
  };
  spawn_actor("w1", host, [&] {
    Mark m{unwound, "w1"};
    wait_event(b1, KTIME_MAX);
    unwound.push_back("w1 woke");  // never: it unwinds from its wait
  });
  spawn_actor("w2", host, [&] {
    Mark m{unwound, "w2"};
    sleep_until(50);
    wait_event(b2, KTIME_MAX);
  });
  g.e.run();
  CHECK(deadlock_detected());
  CHECK(unwound == std::vector<std::string>{"w1@50", "w2@50"});
}

TEST_CASE("parse_int / parse_number take the whole text, in range, and never throw") {
  long long i = 0;
  CHECK(parse_int("42", 0, 100, i));
  CHECK(i == 42);
  CHECK(parse_int("-3", -5, 5, i));
  CHECK(i == -3);
  for (const char* bad : {"", "-", "1e3", "10abc", " 7", "7 ", "+7", "0x10", "101", "-6", "99999999999999999999999", "--1", "1.0"})
    CHECK_FALSE(parse_int(bad, -5, 100, i));
  double d = 0;
  CHECK(parse_number("2.5e-3", d));
  CHECK(d == Approx(0.0025));
  for (const char* bad : {"", "nan", "inf", "-inf", "1e999", "1.5x", " 1", "1 ", "x"}) CHECK_FALSE(parse_number(bad, d));
  std::string rest;
  CHECK(parse_number_prefix("250us", d, rest));
  CHECK(d == 250);
  CHECK(rest == "us");
}
