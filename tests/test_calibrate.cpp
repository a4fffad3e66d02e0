// vtick calibrate: a profile that vtick computes from known host costs is fitted back to
// them within the uncertainty the fit states (the fitter sees the profile only: its
// environment and figures, never the scenario or the costs); a calibrated scenario runs;
// bad profiles get exit 2 naming the file and key.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace vtick;

namespace {
// calibrate --synthesize on tests/data/calibrate-truth.toml with `sets` on top: the path of
// the profile vtick computes for that host.
std::string synthesize(const std::string& name, const std::string& sets) {
  std::string prof = test::temp_path(name);
  auto s = test::run_cli("calibrate --synthesize " + std::string(VTICK_SOURCE_DIR) + "/tests/data/calibrate-truth.toml " + sets +
                         " -o " + prof);
  INFO(s.output);
  REQUIRE(s.status == 0);
  return prof;
}
}  // namespace

TEST_CASE("calibrate's default search fits a vtick-computed profile back to the host it was computed with") {
  // two costs and the halt-poll window away from their defaults; the default search (six
  // costs, the window, timer advance, the governor) sees the profile only
  const std::map<std::string, double> truth = {{"host.costs.c6_exit_ns", 60000}, {"host.costs.vcpu_wakeup_ns", 3000},
                                               {"host.kvm.halt_poll_ns", 50000}};
  std::string sets;
  for (const auto& [k, v] : truth) sets += " --set " + k + "=" + std::to_string(static_cast<long long>(v));
  std::string prof = test::temp_path("synth-profile.json"), fit = test::temp_path("fit.json"), vm = test::temp_path("vm.toml");
  auto s = test::run_cli("calibrate --synthesize " + std::string(VTICK_SOURCE_DIR) + "/tests/data/calibrate-truth.toml" + sets +
                         " -o " + prof);
  INFO(s.output);
  REQUIRE(s.status == 0);
  auto r = test::run_cli("calibrate " + prof + " --check --quiet --json " + fit + " -o " + vm);
  INFO(r.output);
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(test::read_file(fit));
  CHECK(j["consistent"].get<bool>());  // vtick's own figures can be reproduced within their noise
  CHECK(j["verdict"].get<std::string>().rfind("calibrated", 0) == 0);
  std::map<std::string, nlohmann::json> by_key;
  for (const auto& p : j["parameters"]) by_key[p["key"]] = p;
  REQUIRE(by_key.size() == 9);  // x86: lapic_timer_advance is searched too
  for (const auto& [key, p] : by_key) {
    INFO(key << ": " << p.dump());
    if (!p["identifiable"].get<bool>() || p.contains("levels")) continue;
    double x = p["fitted"], t = truth.count(key) ? truth.at(key) : p["default"].get<double>();
    double sigma = p["sigma"];  // of ln x (log scale) or of x
    double dist = p["log_scale"].get<bool>() ? std::fabs(std::log(x / t)) : std::fabs(x - t);
    CHECK(dist <= 2 * sigma);
  }
  // the exit has a figure of its own, and the deep C-state the long idles
  for (const char* key : {"host.costs.vmexit_ns", "host.costs.c6_exit_ns"}) {
    INFO(key);
    CHECK(by_key[key]["identifiable"].get<bool>());
  }
  // the choices: the window in the interval between the probe's gaps that holds 50 us,
  // the defaults for the others, each identified
  auto& hp = by_key["host.kvm.halt_poll_ns"];
  INFO(hp.dump());
  CHECK(hp["identifiable"].get<bool>());
  CHECK(hp["fitted_text"].get<std::string>().find("(30 us .. 100 us)") != std::string::npos);
  CHECK(by_key["host.idle_governor"]["fitted"] == "menu");
  CHECK(by_key["host.idle_governor"]["identifiable"].get<bool>());
  // timer advance moves only the timers, which other costs can make up for: a claim, if
  // made, is the truth
  auto& adv = by_key["host.kvm.lapic_timer_advance"];
  CHECK((!adv["identifiable"].get<bool>() || adv["fitted"] == "true"));
  // the held-back figures are predicted, and the calibrated scenario runs
  int predicted = 0, compared = 0;
  for (const auto& f : j["figures"]) {
    predicted += f["role"] == "predicted";
    if (f["role"] != "compared") continue;
    ++compared;  // irq_rates: shown beside the fit, never in it; a busy vCPU ticks at HZ whatever the host
    if (f["id"] == "irq.busy.loc") CHECK(f["vtick"].get<double>() == Approx(250).epsilon(0.02));
  }
  CHECK(predicted > 10);
  CHECK(compared == 12);
  auto run = test::run_cli("run " + vm + " --duration 200ms --quiet");
  INFO(run.output);
  CHECK(run.status == 0);
  for (const auto& p : {prof, fit, vm}) std::remove(p.c_str());
}

TEST_CASE("calibrate --fit searches one cost with a choice") {
  // the exit pinned from its figure, the C6 exit and the governor searched (the idle
  // governor decides which C-state a long idle gets): with teo on the host it is found
  std::string prof = synthesize("synth-teo.json", "--set host.idle_governor=teo --set host.costs.c6_exit_ns=200000");
  std::string fit = test::temp_path("fit-teo.json");
  auto r = test::run_cli("calibrate " + prof + " --quiet --max-evals 80 --fit host.costs.c6_exit_ns,host.idle_governor --json " + fit);
  INFO(r.output);
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(test::read_file(fit));
  for (const auto& p : j["parameters"]) {
    INFO(p.dump());
    if (p["key"] == "host.costs.c6_exit_ns") {
      CHECK(p["identifiable"].get<bool>());
      CHECK(std::fabs(std::log(p["fitted"].get<double>() / 200000)) <= 2 * p["sigma"].get<double>());
    }
    if (p["key"] == "host.idle_governor") {
      CHECK(p["fitted"] == "teo");
      CHECK(p["identifiable"].get<bool>());
    }
  }
  for (const auto& p : {prof, fit}) std::remove(p.c_str());
}

TEST_CASE("calibrate refuses bad profiles with exit 2, naming the file and key") {
  std::string path = test::temp_path("bad-profile.json");
  struct Bad {
    std::string text, says;
  };
  for (const Bad& b : std::vector<Bad>{
           {"not json", "not a JSON object"},
           {R"({"schema": "vtick-probe/9"})", "schema: must be \"vtick-probe/1\""},
           {R"({"schema": "vtick-probe/1"})", "environment: missing"},
           {R"({"schema": "vtick-probe/1", "environment": {"arch": "riscv64", "cpu_model": {}}})", "environment.arch"}}) {
    std::system(("printf '%s' '" + b.text + "' > " + path).c_str());
    auto r = test::run_cli("calibrate " + path);
    INFO(b.text << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find(path) != std::string::npos);
    CHECK(r.output.find(b.says) != std::string::npos);
  }
  auto none = test::run_cli("calibrate /nonexistent/profile.json");
  CHECK(none.status == 2);
  CHECK(none.output.find("cannot read the profile") != std::string::npos);
  // --fit names keys it can search
  std::system(("cp " + std::string(VTICK_SOURCE_DIR) + "/docs/probe/this-guest-profile.json " + path).c_str());
  for (const Bad& b : std::vector<Bad>{{"--fit host.costs.nosuch", "no such key"},
                                       {"--fit guest.cmdline", "not a numeric key with a range, a boolean or a choice"},
                                       {"--fit host.costs.c6_exit_ns,host.costs.c6_exit_ns", "listed twice"},
                                       {"--fit host.kvm.wfi_trap_policy", "not a key of x86_64"}}) {
    auto r = test::run_cli("calibrate " + path + " " + b.text);
    INFO(b.text << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find(b.says) != std::string::npos);
  }
  // wrong types and malformed lists in a real profile: the key named, never an internal error
  for (const Bad& b : std::vector<Bad>{{"p['environment']['online_cpus'] = 'two'", "environment.online_cpus"},
                                       {"p['environment']['cpus'][0]['thread_siblings'] = 'x-1'", "thread_siblings"},
                                       {"p['figures']['futex_wake']['gap_ns'] = 0.5", "figures.futex_wake.gap_ns"},
                                       {"p['figures']['pingpong']['round_trip_ns']['n'] = 'many'", "must be a number"},
                                       {"p['figures']['exit_cost']['sched_yield_ns'] = p['figures']['exit_cost']['syscall_ns']",
                                        "figures.exit_cost.sched_yield_ns"},
                                       {"p['figures']['exit_cost']['sched_yield_switch_ns'] = p['figures']['exit_cost']['syscall_ns']",
                                        "figures.exit_cost.sched_yield_switch_ns"},
                                       {"p['figures']['futex_wake']['local_ns'] = p['figures']['exit_cost']['syscall_ns']",
                                        "figures.futex_wake.local_ns"},
                                       {"p['figures']['futex_wake']['local_nobody_ns'] = p['figures']['futex_wake']['local_ns']; "
                                        "p['figures']['futex_wake']['local_hot_ns'] = p['figures']['futex_wake']['local_ns']",
                                        "figures.futex_wake.local_hot_ns"},
                                       {"p['figures']['futex_wake']['local_nobody_ns'] = {'p50': 1.0}",
                                        "figures.futex_wake.local_nobody_ns"}}) {
    std::string src = std::string(VTICK_SOURCE_DIR) + "/docs/probe/this-guest-profile.json";
    std::system(("python3 -c \"import json; p = json.load(open('" + src + "')); " + b.text + "; json.dump(p, open('" + path +
                 "', 'w'))\"").c_str());
    auto r = test::run_cli("calibrate " + path);
    INFO(b.text << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find(b.says) != std::string::npos);
    CHECK(r.output.find("internal error") == std::string::npos);
  }
  auto neither = test::run_cli("calibrate");
  CHECK(neither.status == 2);
  std::remove(path.c_str());
}

TEST_CASE("calibrate writes the guest's own speed from the probe into [guest.costs], measured, never fitted") {
  // the probe's getppid() and sched_yield() (alone on a CPU, no exit): a syscall's entry and
  // exit, and a __schedule() that keeps its task on top of one
  std::string prof = synthesize("synth-speed.json", "--set guest.costs.syscall_ns=70 --set guest.costs.schedule_noswitch_ns=110 "
                                                     "--set guest.costs.schedule_ns=640 --set guest.costs.ttwu_ns=420 "
                                                     "--set guest.costs.futex_wake_ns=30");
  std::string vm = test::temp_path("vm-speed.toml");
  auto p = nlohmann::json::parse(test::read_file(prof));
  CHECK(p["figures"]["exit_cost"]["syscall_ns"]["p50"].get<double>() == 70);
  CHECK(p["figures"]["exit_cost"]["sched_yield_ns"]["p50"].get<double>() == 180);
  CHECK(p["figures"]["exit_cost"]["sched_yield_switch_ns"]["p50"].get<double>() == 710);
  CHECK(p["figures"]["futex_wake"]["local_nobody_ns"]["p50"].get<double>() == 100);  // a syscall and futex_wake()'s own
  CHECK(p["figures"]["futex_wake"]["local_hot_ns"]["p50"].get<double>() == 520);     // and try_to_wake_up()
  auto r = test::run_cli("calibrate " + prof + " --quiet --max-evals 10 --fit host.costs.c6_exit_ns -o " + vm);
  INFO(r.output);
  REQUIRE(r.status == 0);
  std::string text = test::read_file(vm);
  INFO(text);
  CHECK(text.find("[guest.costs]") != std::string::npos);
  CHECK(text.find("\nsyscall_ns = 70  # getppid()\n") != std::string::npos);
  CHECK(text.find("\nschedule_noswitch_ns = 110  # sched_yield() 180 ns less getppid()\n") != std::string::npos);
  CHECK(text.find("\nschedule_ns = 640  # sched_yield() to another task 710 ns less getppid()\n") != std::string::npos);
  CHECK(text.find("\nttwu_ns = 420  # FUTEX_WAKE that woke a task on the waker's CPU in a ping-pong 520 ns less one that woke nobody 100 ns\n") !=
        std::string::npos);
  auto run = test::run_cli("run " + vm + " --duration 50ms --quiet --json -");
  INFO(run.output);
  CHECK(run.status == 0);
  // a profile of a probe without the ping-pong: the long sleeper's wake-up less getppid()
  p["figures"]["futex_wake"].erase("local_hot_ns");
  p["figures"]["futex_wake"].erase("local_nobody_ns");
  std::system(("echo '" + p.dump() + "' > " + prof).c_str());
  auto cold = test::run_cli("calibrate " + prof + " --quiet --max-evals 10 --fit host.costs.c6_exit_ns -o " + vm);
  INFO(cold.output);
  REQUIRE(cold.status == 0);
  CHECK(test::read_file(vm).find("\nttwu_ns = 420  # FUTEX_WAKE of a task on the waker's CPU 490 ns less getppid()\n") != std::string::npos);
  // a profile of an older probe (no sched_yield_ns): the syscall alone; a value outside the
  // declared range is held to it and says so
  p["figures"]["exit_cost"].erase("sched_yield_ns");
  p["figures"]["exit_cost"].erase("sched_yield_switch_ns");
  p["figures"]["futex_wake"].erase("local_ns");
  for (const char* q : {"p10", "p50", "p90", "min", "max", "mean", "p99"}) p["figures"]["exit_cost"]["syscall_ns"][q] = 12.0;
  std::system(("echo '" + p.dump() + "' > " + prof).c_str());
  auto old = test::run_cli("calibrate " + prof + " --quiet --max-evals 10 --fit host.costs.c6_exit_ns -o " + vm);
  INFO(old.output);
  REQUIRE(old.status == 0);
  text = test::read_file(vm);
  CHECK(text.find("\nsyscall_ns = 20  # getppid() (12 ns, held to its range 20 ns .. 1000 ns)\n") != std::string::npos);
  CHECK(text.find("schedule_noswitch_ns") == std::string::npos);
  CHECK(text.find("\nschedule_ns") == std::string::npos);
  CHECK(text.find("\nttwu_ns") == std::string::npos);
  for (const auto& f : {prof, vm}) std::remove(f.c_str());
}

TEST_CASE("calibrate's ranges hold a nested host: its slow exits and wake-ups are fitted inside them, not at an edge") {
  // a KVM guest run by a VMM inside a cloud VM pays each exit twice: an exit of 8 us and a
  // vCPU wake-up of 14 us (this project's Firecracker guest: CPUID 6.5 us, docs/model.md)
  std::string prof = synthesize("synth-nested.json", "--set host.costs.vmexit_ns=8000 --set host.costs.vcpu_wakeup_ns=14000 "
                                                      "--set host.kvm.halt_poll_ns=0");
  std::string fit = test::temp_path("fit-nested.json");
  // no halt polling (as on that guest's host): every wake-up blocks, and pays the wake-up
  auto r = test::run_cli("calibrate " + prof + " --quiet --max-evals 60 --fit host.costs.vmexit_ns,host.costs.vcpu_wakeup_ns "
                         "--set host.kvm.halt_poll_ns=0 --json " + fit);
  INFO(r.output);
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(test::read_file(fit));
  CHECK(j["verdict"].get<std::string>().find("at the edge") == std::string::npos);
  int seen = 0;
  for (const auto& p : j["parameters"]) {
    INFO(p.dump());
    double truth = p["key"] == "host.costs.vmexit_ns" ? 8000 : p["key"] == "host.costs.vcpu_wakeup_ns" ? 14000 : 0;
    if (truth == 0) continue;
    ++seen;
    CHECK(p["identifiable"].get<bool>());
    CHECK(p["fitted"].get<double>() < p["hi"].get<double>());
    CHECK(std::fabs(std::log(p["fitted"].get<double>() / truth)) < 0.1);
  }
  CHECK(seen == 2);
  for (const auto& f : {prof, fit}) std::remove(f.c_str());
}
