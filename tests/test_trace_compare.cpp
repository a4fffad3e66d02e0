// vtick trace-compare (issue 42, item 2): its rows count what the model counted, its
// bands fail when a row misses them, and bad input exits 2 naming the file and the fault.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

#include "helpers.hpp"
#include "study/trace_compare.hpp"

using namespace vtick;
using json = nlohmann::json;

namespace {

// A 50 ms run of the default scenario (2 vCPUs, a pipe ping-pong across them) with its
// trace.dat files and its counters.
struct Run {
  std::string dat, guest_dat;
  json m;
};
const Run& run() {
  static const Run r = [] {
    Run x;
    x.dat = test::temp_path("tc.dat");
    x.guest_dat = test::temp_path("tc-vm0.dat");
    std::string j = test::temp_path("tc.json");
    auto res = test::run_cli(std::string("run ") + VTICK_SOURCE_DIR + "/scenarios/default.toml --duration 50ms --quiet --json " + j +
                             " --trace-dat " + x.dat);
    REQUIRE(res.status == 0);
    x.m = json::parse(test::read_file(j));
    return x;
  }();
  return r;
}

double row(const json& j, const std::string& name, const std::string& stat, const char* side) {
  for (const json& r : j["rows"])
    if (r["row"] == name && r["statistic"] == stat) return r[side].is_null() ? std::nan("") : r[side].get<double>();
  FAIL("no row " << name << " " << stat);
  return 0;
}

std::uint64_t both(const json& m, const std::string& key) {
  return m["metrics"]["vcpu0." + key].get<std::uint64_t>() + m["metrics"]["vcpu1." + key].get<std::uint64_t>();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

// A 50 ms ping-pong on two Skylake-SP cores without SMT (every cost at its declared value,
// no sibling to slow a thread), with `extra` TOML tables.
std::string two_cores_pingpong(const std::string& extra) {
  return "[platform]\nshape = \"generic\"\narch = \"skylake-sp\"\ncores = 2\nthreads_per_core = 1\n" + extra +
         "[guest]\nhz = 1000\ncpuidle_driver = \"none\"\ntick_policy = \"legacy\"\n[workload]\nkind = \"pingpong\"\n"
         "work = \"50us\"\n[run]\nduration = \"50ms\"\nseed = 1\n";
}

}  // namespace

TEST_CASE("trace-compare: the rows of vtick's own trace count what the model counted") {
  const Run& r = run();
  std::string out = test::temp_path("tc-out.json");
  auto res = test::run_cli("trace-compare " + r.guest_dat + " " + r.guest_dat + " --json " + out);
  INFO(res.output);
  REQUIRE(res.status == 0);
  json j = json::parse(test::read_file(out));
  double s = j["sim"]["seconds"].get<double>();
  REQUIRE(std::fabs(s - 0.050) < 1e-4);  // the window is the run (both vCPUs trace from the start)
  auto n = [&](const char* name) { return std::llround(row(j, name, "rate", "sim") * s); };
  const json& m = r.m["metrics"];
  auto e = [&](const char* k) { return static_cast<long long>(both(r.m, k)); };
  // each counted by the model's own counters (KVM's stats, the scheduler's), not the trace
  CHECK(n("halts") == e("exits.hlt"));  // HLT exits: no halt in this run is a fastpath one
  CHECK(n("msr_write.0x6e0") == e("exits.msr_tsc_deadline"));
  CHECK(n("wakeups") == m["sched.wakeups_local"].get<long long>() + m["sched.wakeups_remote"].get<long long>());
  CHECK(n("ipi.CAL") == m["sched.call_function_ipis"].get<long long>());
  CHECK(n("ipi.RES") == m["sched.resched_ipis"].get<long long>());
  CHECK(n("migrations") == m["sched.migrations"].get<long long>());
  CHECK(n("tick_stops") == e("tick.stops"));
  // legacy (before f4c31b07b136): the no-driver path stops the tick before the episode's first HLT
  CHECK(n("tick_stops.before_first_halt") == n("tick_stops"));
  // the same file on both sides: every defined ratio is 1
  for (const json& x : j["rows"])
    if (!x["ratio"].is_null()) CHECK(x["ratio"].get<double>() == 1.0);
  // every interval this run has is paired: halts follow switches to idle, IPIs their sends
  CHECK(row(j, "pre_hlt_window", "rate", "sim") > 0);
  CHECK(row(j, "ipi_to_entry.CAL", "rate", "sim") == row(j, "ipi.CAL", "rate", "sim"));
  // split by the target's state, each CAL is in exactly one of the three
  CHECK(n("ipi_to_entry.CAL.to_halted") + n("halt_to_entry.CAL") + n("ipi_to_entry.CAL.to_running") == n("ipi.CAL"));
  CHECK(n("ipi_to_entry.CAL.to_halted") > 0);
  // each wake-up of a running task is timed to its switch out at most once, each other one
  // from its sleep's start at most once
  CHECK(n("waking_to_switch_out.on_cpu") <= n("wakeups.on_cpu"));
  CHECK(n("switch_out_to_waking") + n("wakeups.on_cpu") <= n("wakeups"));
  CHECK(n("switch_out_to_waking") > 0);
  CHECK(row(j, "wake_to_run.other_cpu", "p50", "sim") > 0);
  double idle0 = row(j, "idle_share.cpu0", "share", "sim");
  CHECK((idle0 > 0 && idle0 < 1));
}

TEST_CASE("trace-compare: the WRMSR intervals are the write and its exit as KVM charged them") {
  // two vCPUs on two cores (no SMT sibling to slow a thread), Skylake-SP's declared costs:
  // an exit 600 ns, the TSC-deadline fastpath 400, the ICR write 1000, and the MDS buffer
  // clear on every entry 300 (Skylake-SP is MDS-affected); KVM halt polling at its default
  std::string scen = test::temp_path("tc-wrmsr.toml"), dat = test::temp_path("tc-wrmsr.dat"), j = test::temp_path("tc-wrmsr.json");
  write(scen, two_cores_pingpong(""));
  auto res = test::run_cli("run " + scen + " --quiet --json " + j + " --trace-dat " + dat);
  INFO(res.output);
  REQUIRE(res.status == 0);
  json m = json::parse(test::read_file(j));
  std::string out = test::temp_path("tc-wrmsr-out.json"), guest = test::temp_path("tc-wrmsr-vm0.dat");
  auto c = test::run_cli("trace-compare " + guest + " " + guest + " --json " + out);
  INFO(c.output);
  REQUIRE(c.status == 0);
  json t = json::parse(test::read_file(out));
  for (const char* q : {"p10", "p50", "p90"}) CHECK(row(t, "wrmsr.tsc_deadline", q, "sim") == Approx(0.600 + 0.400 + 0.300));
  // to a target that polls (KVM halt polling): the write alone; to a blocked one the
  // sender also wakes it (the next test)
  CHECK(row(t, "wrmsr.icr", "p10", "sim") == Approx(0.600 + 1.000 + 0.300));
  // every ICR write is an IPI exit, and each follows its ipi_send_cpu
  double s = t["sim"]["seconds"].get<double>();
  long long icr = std::llround(row(t, "msr_write.0x830", "rate", "sim") * s);
  CHECK(icr == static_cast<long long>(both(m, "exits.ipi")));
  CHECK(std::llround(row(t, "wrmsr.icr", "rate", "sim") * s) == icr);
  CHECK(std::llround(row(t, "msr_write.0x6e0", "rate", "sim") * s) == static_cast<long long>(both(m, "exits.msr_tsc_deadline")));
  CHECK(std::llround(row(t, "msr_write.0x832", "rate", "sim") * s) == static_cast<long long>(both(m, "exits.apic_lvtt")));
  CHECK(row(t, "wrmsr.tsc_deadline", "rate", "sim") > 0);
}

TEST_CASE("the IPI sender's exit wakes a blocked target (kvm_vcpu_wake_up()), not a polling one") {
  // as above; KVM halt polling off: nearly every woken vCPU has blocked, so the ICR exit
  // carries the host's wake-up of its thread (vcpu_kick_wakeup_ns 500); with polling on,
  // a polling target is not woken and its sender pays no wake-up
  auto icr = [](const std::string& tag, const std::string& halt_poll) {
    std::string scen = test::temp_path("kick-" + tag + ".toml"), j = test::temp_path("kick-" + tag + ".json"),
                dat = test::temp_path("kick-" + tag + ".dat"), out = test::temp_path("kick-" + tag + "-out.json");
    write(scen, two_cores_pingpong("[host.kvm]\nhalt_poll_ns = " + halt_poll + "\n"));
    auto res = test::run_cli("run " + scen + " --quiet --json " + j + " --trace-dat " + dat);
    INFO(res.output);
    REQUIRE(res.status == 0);
    auto c = test::run_cli("trace-compare " + test::temp_path("kick-" + tag + "-vm0.dat") + " " +
                           test::temp_path("kick-" + tag + "-vm0.dat") + " --json " + out);
    REQUIRE(c.status == 0);
    return std::make_pair(json::parse(test::read_file(out)), json::parse(test::read_file(j)));
  };
  auto [blocked, mb] = icr("blocked", "0");
  for (const char* q : {"p10", "p90"}) CHECK(row(blocked, "wrmsr.icr", q, "sim") == Approx(0.600 + 1.000 + 0.500 + 0.300));
  // each blocked vCPU an IPI woke had its sender pay for the wake-up, and no other
  CHECK(both(mb, "host.kick_wakeups") == both(mb, "host.ipi_wakeups"));
  CHECK(both(mb, "host.kick_wakeups") > 0.9 * static_cast<double>(both(mb, "exits.ipi")));
  auto [polling, mp] = icr("polling", "200000");
  CHECK(row(polling, "wrmsr.icr", "p10", "sim") == Approx(0.600 + 1.000 + 0.300));
  CHECK(both(mp, "host.kick_wakeups") == both(mp, "host.ipi_wakeups"));
  CHECK(both(mp, "host.kick_wakeups") < both(mp, "exits.ipi"));
}

TEST_CASE("trace-compare: a bands file passes, a planted out-of-band row exits 1 naming it, a row 0 on both sides meets its band") {
  const Run& r = run();
  std::string ok = test::temp_path("bands-ok.toml"), bad = test::temp_path("bands-bad.toml");
  write(ok, "[[band]]\ninterval = \"halts\"\nstatistic = \"rate\"\nwithin = 1.5\n\n[[band]]\ninterval = \"pre_hlt_window\"\n"
            "statistic = \"p50\"\nratio = [0.9, 1.1]\n");
  write(bad, "[[band]]\ninterval = \"halts\"\nstatistic = \"rate\"\nwithin = 1.5\n\n[[band]]\ninterval = \"context_switches\"\n"
             "statistic = \"rate\"\nratio = [2, 3]\n\n[[band]]\ninterval = \"ipi.RES\"\nstatistic = \"rate\"\nwithin = 2\n");
  auto a = test::run_cli("trace-compare " + r.guest_dat + " " + r.guest_dat + " --bands " + ok);
  INFO(a.output);
  CHECK(a.status == 0);
  CHECK(a.output.find("all 2 bands") != std::string::npos);
  auto b = test::run_cli("trace-compare " + r.guest_dat + " " + r.guest_dat + " --bands " + bad);
  INFO(b.output);
  CHECK(b.status == 1);
  CHECK(b.output.find("out of band: context_switches rate (" + bad + ":6:1): sim/real 1 outside [2, 3]") != std::string::npos);
  CHECK(b.output.find("out of band: ipi.RES rate") == std::string::npos);  // no RES IPIs on either side: met
  CHECK(b.output.find("out of band: halts") == std::string::npos);
  // the shipped bands file loads (its [throughput] is for the baseline script)
  auto c = test::run_cli("trace-compare " + r.guest_dat + " " + r.guest_dat + " --bands " + VTICK_SOURCE_DIR +
                         "/validation/trace/bands.toml");
  INFO(c.output);
  CHECK(c.status == 0);
}

TEST_CASE("trace-compare: bad traces and bad bands files exit 2 naming the file and what is wrong") {
  const Run& r = run();
  std::string text = test::temp_path("not.dat"), half = test::temp_path("half.dat"), head = test::temp_path("head.dat");
  write(text, "# tracer: nop\n");
  std::string bytes = test::read_file(r.guest_dat);
  write(half, bytes.substr(0, bytes.size() / 2));  // libtracecmd maps CPU data unchecked: this crashed it
  write(head, bytes.substr(0, 5000));
  auto expect2 = [&](const std::string& args, const std::string& want) {
    auto x = test::run_cli("trace-compare " + args);
    INFO(args << "\n" << x.output);
    CHECK(x.status == 2);
    CHECK(x.output.find(want) != std::string::npos);
  };
  expect2(text + " " + r.guest_dat, text + ": not a trace.dat");
  expect2(r.guest_dat + " " + half, half + ": truncated: CPU ");
  expect2(r.guest_dat + " " + head, head + ": truncated in its event formats");
  expect2(r.guest_dat + " " + r.dat, r.dat + ": no sched:sched_switch records");  // the host's file
  expect2(r.guest_dat + " /nonexistent.dat", "/nonexistent.dat: cannot open it");
  std::string bands = test::temp_path("bands.toml");
  auto bad_bands = [&](const std::string& toml, const std::string& want) {
    write(bands, toml);
    expect2(r.guest_dat + " " + r.guest_dat + " --bands " + bands, bands + want);
  };
  bad_bands("[[band]]\ninterval = \"halts\"\nstatistic = \"rate\"\nwithn = 1.5\n", ":4:9: unknown key 'withn' in a band");
  bad_bands("[[band]]\ninterval = \"halt\"\nstatistic = \"rate\"\nwithin = 1.5\n", ":1:1: unknown interval 'halt'");
  bad_bands("[[band]]\ninterval = \"halts\"\nstatistic = \"p50\"\nwithin = 1.5\n", ":1:1: 'halts' has no statistic 'p50'");
  bad_bands("[[band]]\ninterval = \"halts\"\nstatistic = \"rate\"\nwithin = 0.5\n", ":4:10: 'within' must be a number >= 1");
  bad_bands("[[band]]\ninterval = \"halts\"\nstatistic = \"rate\"\nratio = [2, 1]\n", ":4:9: 'ratio' must be [LO, HI]");
  bad_bands("[[band]]\ninterval = \"halts\"\nstatistic = \"rate\"\n", ":1:1: a band needs 'within' or 'ratio'");
  bad_bands("[bands]\n", ":1:1: unknown key 'bands'");
  bad_bands("[throughput]\nwithin = 0.8\n", ":2:10: 'within' must be a number >= 1");
  bad_bands("[throughput]\nwith = 1.2\n", ":2:8: unknown key 'with' in [throughput]");
}

TEST_CASE("trace-compare: two traces with no CPU in common are refused, and quantiles interpolate") {
  TraceSummary a, b;
  a.path = "a.dat";
  b.path = "b.dat";
  a.t1 = b.t1 = 1000000000;
  a.cpus_seen = {0};
  b.cpus_seen = {1};
  a.idle_ns[0] = b.idle_ns[1] = 0;
  CHECK_THROWS_WITH(compare_traces(a, b), Catch::Contains("a.dat and b.dat: no CPU in common"));
  b.cpus_seen = {0, 1};
  b.idle_ns[0] = 250000000;
  std::vector<CompareRow> rows = compare_traces(a, b);
  REQUIRE(rows.back().name == "idle_share.cpu0");  // only the CPU both have
  CHECK(rows.back().sim == 0.25);
  // numpy.quantile([1, 2, 4, 8], [0.1, 0.5, 0.9]) = 1.3, 3.0, 6.8
  CHECK(quantile({8, 1, 4, 2}, 0.1) == Approx(1.3));
  CHECK(quantile({8, 1, 4, 2}, 0.5) == Approx(3.0));
  CHECK(quantile({8, 1, 4, 2}, 0.9) == Approx(6.8));
  CHECK(std::isnan(quantile({}, 0.5)));
}

TEST_CASE("trace-compare: under got_tick (f4c31b07b136) no tick stop comes before an idle episode's first halt") {
  // the row that tells the two kernels apart in a real guest's trace (docs/validation.md)
  std::string dat = test::temp_path("gt.dat"), out = test::temp_path("gt.json");
  REQUIRE(test::run_cli(std::string("run ") + VTICK_SOURCE_DIR + "/scenarios/default.toml --duration 50ms --quiet --set guest.tick_policy=got_tick --trace-dat " + dat).status == 0);
  std::string guest = test::temp_path("gt-vm0.dat");
  auto res = test::run_cli("trace-compare " + guest + " " + guest + " --json " + out);
  INFO(res.output);
  REQUIRE(res.status == 0);
  json j = json::parse(test::read_file(out));
  CHECK(row(j, "tick_stops.before_first_halt", "rate", "sim") == 0);
  CHECK(row(j, "halts", "rate", "sim") > 0);
}
