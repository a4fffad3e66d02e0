// scenarios/: every shipped scenario runs, and the OCI shapes' headline changes stay in
// their bands (docs/validation.md), so a model change that moves them fails here.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace vtick;

static std::vector<std::string> scenario_files(const std::string& dir) { return test::files_ending(dir, ".toml"); }

// `vtick run ARGS --quiet --json F` (F a temporary file named after `name`), which must
// succeed: its results document.
static nlohmann::json run_json(const std::string& args, const std::string& name) {
  std::string out = test::temp_path(name + ".json");
  auto r = test::run_cli("run " + args + " --quiet --json " + out);
  INFO(args << "\n" << r.output);
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(test::read_file(out));
  std::remove(out.c_str());
  return j;
}

TEST_CASE("every shipped scenario validates and runs") {
  std::vector<std::string> files = scenario_files(VTICK_SOURCE_DIR "/scenarios");
  for (const auto& f : scenario_files(VTICK_SOURCE_DIR "/scenarios/oci")) files.push_back(f);
  REQUIRE(files.size() >= 8);
  for (const auto& f : files) {
    INFO(f);
    CHECK(test::run_cli("validate " + f).status == 0);
    auto r = test::run_cli("run " + f + " --duration 300ms --set run.warmup=0ns --quiet");
    INFO(r.output);
    CHECK(r.status == 0);
  }
}

// The change of the workload metric (got_tick and loehle against legacy).
static nlohmann::json compare(const std::string& scenario, int seeds = 3, const std::string& duration = "2s") {
  std::string out = test::temp_path("cmp.json");
  auto r = test::run_cli("compare " VTICK_SOURCE_DIR "/scenarios/oci/" + scenario + " --policies legacy,got_tick,loehle --seeds " +
                         std::to_string(seeds) + " --set run.duration=" + duration + " --quiet --json " + out);
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(test::read_file(out));
}

static double delta(const nlohmann::json& c, int i) { return c["policies"][i]["delta_pct"]["ops_per_s"].get<double>(); }

TEST_CASE("band: VM.Standard2.1 OLTP under upstream KVM: got_tick does not regress, loehle is legacy") {
  auto c = compare("standard2.1-oltp.toml");
  CHECK(delta(c, 1) > -2.0);
  CHECK(delta(c, 1) < 10.0);
  CHECK(delta(c, 2) == 0.0);  // loehle's no-driver path is legacy's: the same runs
}

TEST_CASE("band: VM.Standard.A1.Flex.2 OLTP under upstream KVM: got_tick within a few percent") {
  auto c = compare("a1.flex.2-oltp.toml");
  CHECK(delta(c, 1) > -4.0);
  CHECK(delta(c, 1) < 8.0);
  CHECK(delta(c, 2) == 0.0);
}

TEST_CASE("band: sysbench threads keeps every vCPU busy: the tick policy changes nothing") {
  auto c = compare("standard2.1-sysbench_threads.toml", 2, "1s");  // ~1 us steps: the slowest workload
  CHECK(std::abs(delta(c, 1)) < 0.5);
  // A real 2-vCPU guest running the same (2 threads, 8 locks) halts 104 and 116 times a
  // second, quiet (docs/real-guest/trace-2026-12-06/cmp/sb-n2-l8.r*.json): busy, but not
  // never idle. The band was < 5 until the switch to idle was charged (issue 43: 22.5/s);
  // it is now the real guest's lower figure, not the model's.
  CHECK(c["policies"][0]["summary"]["halt_exits_per_s"]["mean"].get<double>() < 104);
}

TEST_CASE("band: sysbench threads on VM.Standard.A1.Flex.2: the tick policy changes nothing either") {
  auto c = compare("a1.flex.2-sysbench_threads.toml", 2, "500ms");
  CHECK(std::abs(delta(c, 1)) < 0.5);
  CHECK(c["policies"][0]["summary"]["halt_exits_per_s"]["mean"].get<double>() < 5);
}

TEST_CASE("the shipped sweeps validate: their grids have the documented size") {
  for (const char* f : {"standard2-hz-vcpus.toml", "a1-hz-vcpus.toml"}) {
    INFO(f);
    auto r = test::run_cli(std::string("sweep " VTICK_SOURCE_DIR "/scenarios/sweeps/") + f + " --list");
    REQUIRE(r.status == 0);
    // 4 HZ x 4 policies x 3 seeds x 5 (shape, vCPUs) pairs
    CHECK(r.output.find("239 ") != std::string::npos);
    CHECK(r.output.find("240 ") == std::string::npos);
  }
}

// core/sg.hpp run_ahead() (SimGrid's scheduler, the reference): a vCPU that runs short
// work ahead of the clock never passes another actor's next wake-up, so a run is the
// same with it off. Pingpong on x86 (SMT siblings change each other's speed) and arm64:
// every counter equal.
TEST_CASE("running ahead of the clock changes no result") {
  for (const char* f : {"default.toml", "arm64-2vcpu.toml"}) {
    INFO(f);
    nlohmann::json m[2];
    int i = 0;
    for (const char* q : {"0ns", "100us"})
      m[i++] = run_json(std::string(VTICK_SOURCE_DIR "/scenarios/") + f + " --duration 500ms --set run.scheduler=simgrid --set run.quantum=" + q,
                        std::string("q") + q);
    CHECK(m[1]["manifest"]["simgrid_events_detail"]["run_aheads"].get<long>() > 1000);  // it did run ahead
    CHECK(m[0]["metrics"] == m[1]["metrics"]);
  }
}

// The same with a host I/O thread and two vCPUs whose ticks fire at the same instant:
// one vCPU used to run ahead past the other while that one, woken in the same SimGrid
// round, had lost the CPU in a non-blocking simcall (219 counters differed, the
// transactions among them). Counts are equal; times may differ by SimGrid's rounding of
// its double clock (a few ns).
TEST_CASE("running ahead of the clock changes no count with host threads and simultaneous ticks") {
  nlohmann::json m[2];
  int i = 0;
  for (const char* q : {"0ns", "100us"})
    m[i++] = run_json(std::string(VTICK_SOURCE_DIR "/scenarios/oci/standard2.1-oltp.toml --duration 1s --seed 1 --set run.scheduler=simgrid --set run.quantum=") + q,
                      std::string("oltp-q") + q);
  CHECK(m[1]["manifest"]["simgrid_events_detail"]["run_aheads"].get<long>() > 1000);
  for (const auto& [k, v] : m[0]["metrics"].items()) {
    INFO(k);
    double a = v.get<double>(), b = m[1]["metrics"][k].get<double>();
    bool time = k.size() > 3 && k.compare(k.size() - 3, 3, "_ns") == 0;
    if (time) CHECK(std::abs(a - b) <= 4);
    else CHECK(a == b);
  }
}

// Work on a hardware thread without an SMT sibling timed as a wait instead of an Exec
// (run.timed_work, core/sg.hpp): the arm64 shapes have no SMT, so every vCPU's and the
// I/O thread's work takes that path; every counter and histogram must be the reference's.
TEST_CASE("timed work without an SMT sibling changes no result") {
  for (const char* f : {"arm64-2vcpu.toml --duration 500ms", "oci/a1.flex.2-oltp.toml --duration 1s"}) {
    INFO(f);
    nlohmann::json m[2];
    int i = 0;
    for (const char* t : {"false", "true"})
      m[i++] = run_json(std::string(VTICK_SOURCE_DIR "/scenarios/") + f + " --set run.scheduler=simgrid --set run.timed_work=" + t,
                        std::string("tw-") + t);
    auto works = [](const nlohmann::json& j) { return j["manifest"]["simgrid_events_detail"]["works"].get<long>(); };
    CHECK(works(m[1]) < works(m[0]) / 2);  // it did take the path
    CHECK(m[0]["metrics"] == m[1]["metrics"]);
    CHECK(m[0]["histograms"] == m[1]["histograms"]);
  }
}

// run.scheduler (core/own_queue.hpp): vtick's own event queue against every step through
// SimGrid. Where no two actors act in the same nanosecond and no SMT sibling changes a
// work's speed (SimGrid keeps its clock in double seconds, vtick in integer ns: a speed
// change can round 1 ns apart), the order of events is the same, so is every counter and
// histogram: arm64 (no SMT) with one vCPU, pingpong, and OLTP with the VMM's I/O thread and
// a host noise thread on the other hardware threads. (Two vCPUs act in the same ns from
// the start, and there the two schedulers may order them differently: docs/performance.md
// shows those runs statistically equivalent.)
TEST_CASE("the vtick scheduler gives SimGrid's results where the order of events cannot differ") {
  for (const char* f : {"arm64-2vcpu.toml --duration 500ms", "oci/a1.flex.2-oltp.toml --duration 1s --set host.noise.threads=1"}) {
    INFO(f);
    nlohmann::json m[2];
    int i = 0;
    for (const char* s : {"simgrid", "vtick"})
      m[i++] = run_json(std::string(VTICK_SOURCE_DIR "/scenarios/") + f + " --set platform.vcpus=1 --set run.scheduler=" + s,
                        std::string("sched-") + s);
    const auto& d0 = m[0]["manifest"]["simgrid_events_detail"];
    const auto& d1 = m[1]["manifest"]["simgrid_events_detail"];
    CHECK(d1["handoffs"].get<double>() * 3 < d0["waits"].get<double>());  // it did take the path
    CHECK(d1["works"].get<long>() == 0);
    CHECK(m[0]["metrics"]["workload.ops"].get<double>() > 100);
    CHECK(m[0]["metrics"] == m[1]["metrics"]);
    CHECK(m[0]["histograms"] == m[1]["histograms"]);
  }
}

// The speed report's count of steps whose continuation runs host code only (core/sg.hpp
// next_step_host_only(): a halt's waits, a thread waiting to be switched in, host threads),
// on the model's own paths: a halting pingpong has them (halt polling and blocking), a vCPU
// that never idles has none (the one step counted there is the VMM's I/O thread's first
// wait: a host thread, idle in this workload).
TEST_CASE("the step count tells the host-only steps apart") {
  auto detail = [](const char* f, const char* sched) {
    return run_json(std::string(VTICK_SOURCE_DIR "/scenarios/") + f + " --duration 300ms --set run.scheduler=" + sched,
                    std::string("hostonly-") + sched)["manifest"]["simgrid_events_detail"];
  };
  auto pp = detail("default.toml", "vtick");
  CHECK(pp["host_only_steps"].get<double>() > 1000);
  CHECK(pp["host_only_steps"].get<double>() * 3 < pp["steps"].get<double>());
  auto busy = detail("oci/standard2.1-sysbench_threads.toml --set platform.vcpus=1", "vtick");
  CHECK(busy["steps"].get<double>() > 100000);
  CHECK(busy["host_only_steps"].get<long>() <= 1);
}

// Under the vtick scheduler the order of simultaneous events is its queue's: a run with
// eight vCPUs in step, background load and SMT siblings is its own twin, byte for byte.
TEST_CASE("the vtick scheduler is deterministic: an eight-vCPU SMT run is its own twin") {
  std::string args = VTICK_SOURCE_DIR "/scenarios/oci/standard2.1-oltp.toml --seed 3 --duration 300ms "
                     "--set platform.shape=VM.Standard.E4.Flex.4 --set guest.background.preset=cloud";
  auto a = run_json(args, "own8-a"), b = run_json(args, "own8-b");
  CHECK(a["metrics"]["workload.ops"].get<double>() > 0);
  CHECK(a["metrics"] == b["metrics"]);
  CHECK(a["histograms"] == b["histograms"]);
}

// ctest splits a discovered test's name at ';' and then runs a filter that matches
// nothing, which "passes": such a test would never run.
TEST_CASE("no test name holds a semicolon") {
  std::vector<std::string> files = test::files_ending(VTICK_SOURCE_DIR "/tests", ".cpp");
  REQUIRE(files.size() >= 10);
  int names = 0;
  for (const auto& f : files) {
    std::string text = test::read_file(f);
    for (std::size_t at = text.find("TEST_CASE(\""); at != std::string::npos; at = text.find("TEST_CASE(\"", at + 1)) {
      std::size_t b = at + 11, e = text.find('"', b);
      std::string name = text.substr(b, e - b);
      INFO(f << ": " << name);
      CHECK(name.find(';') == std::string::npos);
      ++names;
    }
  }
  CHECK(names >= 100);
}

// A contended unlock enters the kernel before it wakes a waiter; meanwhile another vCPU
// may take and release the lock and wake that waiter itself. This run (8 vCPUs of OLTP at
// HZ=100) hit it within 100 ms: the second wake found the queue empty and crashed.
TEST_CASE("futex wake races: a waiter woken while the unlocker enters the kernel is not woken twice") {
  auto r = test::run_cli("run " VTICK_SOURCE_DIR "/scenarios/oci/standard2.1-oltp.toml --set guest.hz=100 "
                         "--set guest.tick_policy=got_tick --set platform.shape=VM.Standard2.4 --set platform.vcpus=8 "
                         "--set run.seed=3 --set run.warmup=0ns --duration 150ms --quiet");
  INFO(r.output);
  CHECK(r.status == 0);
}

// Two sysbench runs, `run.quantum` 0 (no local stretch) and 100 us, under `scheduler`:
// with the background load (remote wake-ups, ticks, kworkers revoke the promises) and
// with one lock for both threads (no promise holds: collisions, futex sleeps and wake-ups
// all the time). Every counter must be the run's without stretches; `fewer` checks the
// background case took the path.
static void check_stretches(const std::string& scheduler, const char* background_duration, const char* one_lock_duration,
                            const std::function<void(const nlohmann::json&, const nlohmann::json&)>& fewer) {
  struct Case {
    std::string name;
    std::string set;
  } cases[] = {{"background", std::string("--duration ") + background_duration + " --set guest.background.preset=measured"},
               {"one-lock", std::string("--duration ") + one_lock_duration + " --set workload.thread_locks=1" +
                                // SimGrid's scheduler with varied iterations: 0.3 % of the
                                // counters move with the quantum (the order of simultaneous
                                // lock attempts, as with eight vCPUs below; issue 43 note)
                                (scheduler == "simgrid" ? " --set workload.iteration_jitter=0" : "")}};
  for (const Case& c : cases) {
    INFO(scheduler << " " << c.name);
    nlohmann::json m[2];
    int i = 0;
    for (const char* q : {"0ns", "100us"})
      m[i++] = run_json(std::string(VTICK_SOURCE_DIR "/scenarios/oci/standard2.1-sysbench_threads.toml --seed 1 ") + c.set +
                            " --set run.scheduler=" + scheduler + " --set run.quantum=" + q,
                        scheduler + "-stretch-" + c.name + q);
    CHECK(m[0]["metrics"] == m[1]["metrics"]);
    CHECK(m[0]["histograms"] == m[1]["histograms"]);
    if (c.name == "background") fewer(m[0]["manifest"]["simgrid_events_detail"], m[1]["manifest"]["simgrid_events_detail"]);
  }
}

// core/sg.hpp local stretches under SimGrid's scheduler: two vCPUs that each run a sysbench
// thread through a private lock and sched_yield() run ahead of each other (an order of
// magnitude fewer SimGrid waits).
TEST_CASE("local stretches change no result") {
  check_stretches("simgrid", "1s", "500ms", [](const nlohmann::json& off, const nlohmann::json& on) {
    CHECK(on["waits"].get<double>() * 10 < off["waits"].get<double>());
  });
}

// The same under the vtick scheduler (core/own_queue.cpp passable()): a vCPU in its stretch
// moves on past the other's queue entries while that one has promised too, with two
// orders of magnitude fewer hand-offs.
TEST_CASE("local stretches change no result under the vtick scheduler") {
  check_stretches("vtick", "500ms", "300ms", [](const nlohmann::json& off, const nlohmann::json& on) {
    CHECK(off["run_aheads"].get<long>() == 0);
    CHECK(on["handoffs"].get<double>() * 10 < off["handoffs"].get<double>());
  });
}

// With eight vCPUs the workers start in step, and which of two simultaneous lock attempts
// wins depends on the order SimGrid runs the actors in, which running ahead changes; so
// there the check is that a run is its own twin and no promise is broken (WARN_ON).
TEST_CASE("local stretches: an eight-vCPU run with background load is deterministic") {
  std::string args = VTICK_SOURCE_DIR "/scenarios/oci/standard2.1-sysbench_threads.toml --seed 3 --duration 400ms "
                     "--set run.scheduler=simgrid --set platform.shape=VM.Standard.E4.Flex.4 --set guest.background.preset=cloud";
  auto a = run_json(args, "stretch8-a"), b = run_json(args, "stretch8-b");
  CHECK(a["metrics"] == b["metrics"]);
  CHECK(a["metrics"]["workload.ops"].get<double>() > 0);
}

// packing.colocated_ns counts the time two of the workload's tasks share a vCPU whether
// or not another vCPU is idle: both sysbench workers pinned to vCPU 0 are co-located the
// whole run (and packed: vCPU 1 idles); pinned apart, never; pinned to vCPU 0 beside a
// busy loop pinned to vCPU 1 co-located the whole run but never packed (no vCPU idles).
// No background tasks, which would take the idle vCPU now and then.
TEST_CASE("packing: co-location of the workload's tasks, with and without an idle vCPU") {
  auto run = [](const std::string& sets) {
    std::string out = test::temp_path("coloc.json");
    auto r = test::run_cli(std::string("run " VTICK_SOURCE_DIR "/scenarios/oci/standard2.1-sysbench_threads.toml --seed 1 "
                                       "--duration 500ms --set guest.background.preset=none --quiet --json ") +
                           out + " " + sets);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(test::read_file(out))["summary"];
  };
  auto together = run("--set workload.cpus_mask=1");
  CHECK(together["colocated_pct"].get<double>() > 99.0);
  CHECK(together["packed_pct"].get<double>() > 99.0);
  auto apart = run("--set workload.pin_apart=1");
  CHECK(apart["colocated_pct"].get<double>() == 0.0);
  auto busy = run("--set workload.cpus_mask=1 --set workload.disturber_cpu=1");
  CHECK(busy["colocated_pct"].get<double>() > 99.0);
  CHECK(busy["packed_pct"].get<double>() < 1.0);
}
