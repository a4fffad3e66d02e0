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

TEST_CASE("calibrate fits a vtick-computed profile back to the costs it was computed with") {
  // three costs away from their defaults, fitted with --fit (the default search of six is
  // not yet shown to converge on a synthetic profile: docs/probe.md)
  const std::map<std::string, double> truth = {{"host.costs.vmexit_ns", 2500}, {"host.costs.c6_exit_ns", 60000},
                                               {"host.costs.vcpu_wakeup_ns", 3000}};
  std::string sets;
  for (const auto& [k, v] : truth) sets += " --set " + k + "=" + std::to_string(static_cast<long long>(v));
  std::string prof = test::temp_path("synth-profile.json"), fit = test::temp_path("fit.json"), vm = test::temp_path("vm.toml");
  auto s = test::run_cli("calibrate --synthesize " + std::string(VTICK_SOURCE_DIR) + "/tests/data/calibrate-truth.toml" + sets +
                         " -o " + prof);
  INFO(s.output);
  REQUIRE(s.status == 0);
  std::string keys;
  for (const auto& [k, v] : truth) keys += (keys.empty() ? "" : ",") + k;
  auto r = test::run_cli("calibrate " + prof + " --check --max-evals 80 --quiet --fit " + keys + " --json " + fit + " -o " + vm);
  INFO(r.output);
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(test::read_file(fit));
  CHECK(j["consistent"].get<bool>());  // vtick's own figures can be reproduced within their noise
  int identified = 0;
  for (const auto& p : j["parameters"]) {
    std::string key = p["key"];
    // the truth: the value set, or the scenario's default for the others
    double x = p["fitted"], t = truth.count(key) ? truth.at(key) : p["default"].get<double>();
    if (!p["identifiable"].get<bool>()) continue;
    ++identified;
    double sigma = p["sigma"];  // of ln x (log scale) or of x
    double dist = p["log_scale"].get<bool>() ? std::fabs(std::log(x / t)) : std::fabs(x - t);
    INFO(key << ": fitted " << x << ", truth " << t << ", 1 sigma " << sigma);
    CHECK(dist <= 2 * sigma);
  }
  // each has figures of its own: one exit, the deep C-state of a long idle, every blocked wake-up
  for (const char* key : {"host.costs.vmexit_ns", "host.costs.c6_exit_ns", "host.costs.vcpu_wakeup_ns"}) {
    bool found = false;
    for (const auto& p : j["parameters"])
      if (p["key"] == key) found = p["identifiable"].get<bool>();
    INFO(key);
    CHECK(found);
  }
  CHECK(identified == 3);
  // the held-back figures are predicted, and the calibrated scenario runs
  int predicted = 0;
  for (const auto& f : j["figures"]) predicted += f["role"] == "predicted";
  CHECK(predicted > 10);
  auto run = test::run_cli("run " + vm + " --duration 200ms --quiet");
  INFO(run.output);
  CHECK(run.status == 0);
  for (const auto& p : {prof, fit, vm}) std::remove(p.c_str());
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
                                       {"--fit guest.tick_policy", "not a numeric key with a range"},
                                       {"--fit host.costs.c6_exit_ns,host.costs.c6_exit_ns", "listed twice"},
                                       {"--fit host.kvm.wfi_trap_policy", "not a key of x86_64"}}) {
    auto r = test::run_cli("calibrate " + path + " " + b.text);
    INFO(b.text << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find(b.says) != std::string::npos);
  }
  auto neither = test::run_cli("calibrate");
  CHECK(neither.status == 2);
  std::remove(path.c_str());
}
