// core/param.hpp and the declaration tables: one row per parameter, read by everything.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdlib>
#include <map>

#include "helpers.hpp"
#include "guest/params.hpp"
#include "host/kvm_params.hpp"
#include "sim/collect.hpp"
#include "sim/scenario.hpp"
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

using namespace vtick;

static std::string load_error(const std::string& toml, const std::vector<std::string>& sets = {}) {
  try {
    test::scenario(toml, sets);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("every declared parameter has help, a source or a derivation, and a default of its kind inside its range") {
  REQUIRE_NOTHROW(scenario_params());  // check_param_infos() throws std::logic_error on a bad row
  for (const auto& p : scenario_params()) {
    INFO(p.key);
    CHECK_FALSE(p.help.empty());
    if (p.key.rfind("host.costs.", 0) == 0 || p.key.rfind("guest.costs.", 0) == 0) CHECK_FALSE(p.source.empty());
    if (p.kind == PKind::Enum) CHECK(p.choices.size() >= 2);
  }
}

TEST_CASE("structs built in code get the same machine as the built-in scenario") {
  // The bug this pins: HostParams{} had l1d_flush = never while a loaded Skylake-SP
  // scenario had cond; defaults now come from one table for both.
  CHECK(HostParams{}.l1d_flush == L1dFlush::Cond);
  CHECK(HostParams{}.mds_clear);
  CHECK(KvmParams{}.halt_poll_ns == 200000);
  Scenario loaded = load_scenario("", {});
  Scenario built;
  for (const auto& p : scenario_params()) {
    if (!p.dflt.derived_why().empty()) continue;
    INFO(p.key);
    CHECK(pvalue_text(p.get(built)) == pvalue_text(p.get(loaded)));
  }
}

TEST_CASE("per-architecture defaults follow the platform") {
  Scenario a1 = test::scenario("[platform]\nshape = \"VM.Standard.A1.Flex.2\"\n");
  CHECK(a1.host.kvm.halt_poll_ns == 500000);  // KVM_HALT_POLL_NS_DEFAULT on arm64
  CHECK(a1.guest.hz == 250);
  CHECK(a1.guest.poll_relax_batch_ns == 500);
  CHECK(a1.host.l1d_flush == L1dFlush::Never);
  CHECK_FALSE(a1.host.mds_clear);
  CHECK(a1.costs.vmexit_ns == 500);
  Scenario e4 = test::scenario("[platform]\nshape = \"VM.Standard.E4.Flex.1\"\n");
  CHECK(e4.host.kvm.ple_window == 195000);
  CHECK(e4.host.l1d_flush == L1dFlush::Never);
  CHECK(e4.costs.vmexit_ns == 550);
  Scenario skx = load_scenario("", {});
  CHECK(skx.host.kvm.ple_window == 4096);
  CHECK(skx.host.l1d_flush == L1dFlush::Cond);
  CHECK(skx.guest.hz == 1000);
  // a cost's range is its model's: 0 is allowed for Altra's timer write, not Skylake-SP's
  CHECK(load_error("[platform]\nshape = \"VM.Standard.A1.Flex.2\"\n[host.costs]\ntimer_write_ns = 0\n").empty());
  CHECK(load_error("[host.costs]\ntimer_write_ns = 0\n").find("out of range") != std::string::npos);
}

TEST_CASE("modes are parsed into enums by name, and unknown names list the allowed ones") {
  Scenario sc = test::scenario("[host]\nidle_governor = \"promote\"\nmax_cstate = \"C1E\"\ntimer_poll = \"extend\"\n"
                               "[host.mitigations]\nl1d_flush = \"always\"\n[guest]\ncputime = \"new\"\ntick_policy = \"tglx_avg\"\n");
  CHECK(sc.host.sched.idle_governor == IdleGovernor::Promote);
  CHECK(sc.host.sched.max_cstate == HostCState::C1E);
  CHECK(sc.host.timer_aware.timer_poll == TimerPoll::Extend);
  CHECK(sc.host.l1d_flush == L1dFlush::Always);
  CHECK(sc.guest.cputime == CputimeScheme::New);
  CHECK(sc.guest.tick_policy == TickPolicyId::TglxAvg);
  std::string e = load_error("[host.mitigations]\nl1d_flush = \"sometimes\"\n");
  CHECK(e.find(":2:") != std::string::npos);  // file:line
  CHECK(e.find("host.mitigations.l1d_flush") != std::string::npos);
  CHECK(e.find("allowed values: never, cond, always") != std::string::npos);
  for (const char* name : {"legacy", "got_tick", "force_retain", "loehle", "tglx_avg", "periodic"}) {
    TickPolicyId id;
    REQUIRE(parse_enum(name, id));
    CHECK(std::string(enum_name(id)) == name);
  }
}

TEST_CASE("a key of the other ISA, NaN and an out-of-range value are refused naming the key") {
  std::string e = load_error("[platform]\nshape = \"VM.Standard.A1.Flex.2\"\n[host.kvm]\nple_gap = 0\n");
  CHECK(e.find("host.kvm.ple_gap: an x86_64 parameter") != std::string::npos);
  e = load_error("", {"host.io_latency_sigma=nan"});
  CHECK(e.find("host.io_latency_sigma") != std::string::npos);
  CHECK(e.find("finite") != std::string::npos);
  e = load_error("[host.kvm]\nhalt_poll_ns_grow = 65\n");
  CHECK(e.find("host.kvm.halt_poll_ns_grow = 65: out of range; allowed 0 .. 64") != std::string::npos);
  e = load_error("", {"guest.hz=123"});
  CHECK(e.find("allowed values: 100, 250, 300, 1000") != std::string::npos);
}

TEST_CASE("haltpoll boot parameters are read through their declarations") {
  Scenario sc = test::scenario("[guest]\ncmdline = \"cpuidle_haltpoll.force=1 haltpoll.guest_halt_poll_ns=100000 haltpoll.guest_halt_poll_allow_shrink=N\"\n");
  CHECK(sc.guest.cpuidle.driver == CpuidleDriver::Haltpoll);
  CHECK(sc.guest.cpuidle.haltpoll.guest_halt_poll_ns == 100000);
  CHECK_FALSE(sc.guest.cpuidle.haltpoll.guest_halt_poll_allow_shrink);
  CHECK(sc.guest.cpuidle.haltpoll.guest_halt_poll_grow_start == 50000);  // untouched: its default
  CHECK(load_error("[guest]\ncmdline = \"haltpoll.guest_halt_poll_nope=1\"\n").find("haltpoll.guest_halt_poll_grow_start=N") !=
        std::string::npos);
}

TEST_CASE("the resolved configuration lists every applicable key with its effective value") {
  Scenario sc = test::scenario("[platform]\nshape = \"VM.Standard.A1.Flex.2\"\n[host.kvm]\nhalt_poll_ns = 123000\n");
  std::map<std::string, std::string> r;
  for (const auto& [k, v] : sc.resolved) r[k] = pvalue_text(v);
  CHECK(r.at("host.kvm.halt_poll_ns") == "123000");
  CHECK(r.at("guest.hz") == "250");
  CHECK(r.at("host.kvm.wfi_trap_policy") == "default");
  CHECK(r.count("host.kvm.ple_gap") == 0);  // an x86 key: not on this arm64 shape
  CHECK(r.at("run.duration") == "1s");
  std::size_t applicable = 0;
  for (const auto& p : scenario_params()) applicable += p.applies(sc.costs.ctx());
  CHECK(sc.resolved.size() >= applicable);
}

TEST_CASE("no source spells a key with a literal default beside it (scripts/check-declarations.py)") {
  std::string script = std::string(VTICK_SOURCE_DIR) + "/scripts/check-declarations.py";
  std::string ok = "python3 " + script + " " + VTICK_BIN + " " + VTICK_SOURCE_DIR + " >/dev/null";
  CHECK(std::system(ok.c_str()) == 0);
  // the check can fail: a loader line of the old kind, in a copy of one source directory
  std::string dir = test::temp_path("decl");
  std::string bad = "mkdir -p " + dir + "/sim && echo 'auto x = v.i(\"host.kvm.halt_poll_ns_grow_start\", 10000);' > " + dir +
                    "/sim/old.cpp && python3 " + script + " " + VTICK_BIN + " " + dir + " >/dev/null";
  CHECK(std::system(bad.c_str()) != 0);
  std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("vtick list metrics names every counter of the results JSON with a unit and a meaning") {
  auto listed = test::run_cli("list metrics");
  REQUIRE(listed.status == 0);
  std::set<std::string> names;
  std::istringstream in(listed.output);
  for (std::string line; std::getline(in, line);) {
    std::istringstream w(line);
    std::string name, kind, unit, help;
    w >> name >> kind >> unit;
    std::getline(w, help);
    INFO(line);
    CHECK((kind == "counter" || kind == "gauge"));
    CHECK(help.size() > 3);
    names.insert(name);
  }
  // scenarios that between them reach every scope: both ISAs, SMT, host threads, tasks,
  // probe timers, hackbench exits, OLTP latencies
  const char* runs[] = {"scenarios/x86-2vcpu.toml", "scenarios/oci/a1.flex.2-oltp.toml", "scenarios/nohz-full-idle-poll.toml",
                        "scenarios/teach/wakeup.toml"};
  std::size_t seen = 0;
  for (const char* s : runs) {
    std::string json = test::temp_path("m.json");
    REQUIRE(test::run_cli(std::string("run ") + VTICK_SOURCE_DIR + "/" + s + " --duration 200ms --set run.warmup=0s --quiet --json " + json).status == 0);
    auto j = nlohmann::json::parse(test::read_file(json));
    for (const auto& [k, v] : j["metrics"].items()) {
      INFO(s << ": " << k);
      std::string pat = metric_pattern(k);
      CHECK(names.count(pat) == 1);
      ++seen;
    }
  }
  CHECK(seen > 500);
  CHECK(metric_pattern("vcpu3.kvm.halt_exits") == "vcpu<N>.kvm.halt_exits");
  CHECK(metric_pattern("vcpu3.kvm.no_such_stat").empty());
}

TEST_CASE("every run checks its invariants, and a broken one fails the run with exit 1 naming it and the CPU") {
  std::string json = test::temp_path("inv.json");
  auto ok = test::run_cli(std::string("run ") + VTICK_SOURCE_DIR + "/scenarios/default.toml --duration 50ms --quiet --json " + json);
  REQUIRE(ok.status == 0);
  auto j = nlohmann::json::parse(test::read_file(json));
  const auto& inv = j["manifest"]["invariants_checked"];
  CHECK(inv["count"] == inv["names"].size());
  std::vector<std::string> names = inv["names"];
  for (const char* n : {"vcpu_time", "guest_time", "halt_poll", "exits", "ticks", "proc_stat", "pcpu_time", "non_negative"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  // fault injection (docs/cli.md): each invariant, broken on purpose, is caught and named
  for (const auto& n : names) {
    auto r = test::run_cli("run " + std::string(VTICK_SOURCE_DIR) + "/scenarios/default.toml --duration 50ms --quiet", {"VTICK_FAULT_INVARIANT=" + n});
    INFO(n << ": " << r.output);
    CHECK(r.status == 1);
    CHECK(r.output.find("invariant broken: " + n) != std::string::npos);
    if (n != "non_negative") CHECK((r.output.find(" on vCPU 0") != std::string::npos || r.output.find(" on hardware thread 0") != std::string::npos));
  }
}

TEST_CASE("a --set of a string key takes a bare value as the string (a one-CPU cpulist, a mode)") {
  Scenario sc = test::scenario("[host.noise]\nthreads = 1\n", {"host.noise.cpus=1", "guest.tick_policy=got_tick"});
  CHECK(sc.host.noise.cpus.text == "1");
  CHECK(sc.host.noise.cpus.mask == 2);
  CHECK(sc.guest.tick_policy == TickPolicyId::GotTick);
  CHECK(load_error("", {"host.noise.cpus=9"}).find("a cpulist of hardware threads 0 .. 1") != std::string::npos);
}
