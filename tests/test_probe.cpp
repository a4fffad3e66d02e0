// vtick-probe on the machine the tests run on (a Linux guest): the profile it writes
// validates against probe/profile.schema.json and is sane; its values are never checked
// (they are the machine's). Bad command lines get exit 2 and say what is allowed.
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace vtick;

namespace {
test::CliResult probe(const std::string& args) {
  std::string out = test::temp_path("probe-out.txt");
  int st = std::system((std::string(VTICK_PROBE_BIN) + " " + args + " >" + out + " 2>&1").c_str());
  std::string text = test::read_file(out);
  std::remove(out.c_str());
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, text};
}
std::string check_profile(const std::string& path) {
  return std::string("/usr/bin/python3 ") + VTICK_SOURCE_DIR + "/scripts/check-profile.py " + VTICK_SOURCE_DIR +
         "/probe/profile.schema.json " + path + " >/dev/null 2>&1";
}
}  // namespace

TEST_CASE("vtick-probe --quick writes a profile that validates against its schema") {
  std::string path = test::temp_path("profile.json");
  auto r = probe("--quick --quiet -o " + path);
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(std::system(check_profile(path).c_str()) == 0);
  auto p = nlohmann::json::parse(test::read_file(path));
  CHECK(p["schema"] == "vtick-probe/1");
  CHECK(p["duration_s"].get<double>() < 60);  // --quick is bounded (30 s on an idle machine)
  CHECK(p["environment"]["online_cpus"].get<int>() >= 1);
  for (const char* k : {"exit_cost", "futex_wake", "pingpong", "wake_after_idle", "timer_overshoot", "irq_rates"})
    CHECK(p["figures"].contains(k));
  for (const char* k : {"sched_yield_ns", "sched_yield_switch_ns"})  // the guest's own speed, which calibrate writes
    CHECK(p["figures"]["exit_cost"][k].is_object());
  // the check can fail: the same profile without a required statistic is refused
  p["figures"]["exit_cost"].erase("syscall_ns");
  std::string bad = test::temp_path("profile-bad.json");
  std::system(("echo '" + p.dump() + "' > " + bad).c_str());
  CHECK(std::system(check_profile(bad).c_str()) != 0);
  std::remove(path.c_str());
  std::remove(bad.c_str());
}

TEST_CASE("vtick-probe refuses bad command lines with exit 2, naming the option") {
  struct Bad {
    std::string args, says;
  };
  for (const Bad& b : std::vector<Bad>{{"--cpus 0,0", "--cpus '0,0'"},
                                       {"--cpus 1", "two different CPU numbers"},
                                       {"--cpus 0,99999", "--cpus"},
                                       {"--only nosuch", "unknown experiment 'nosuch'"},
                                       {"-o ''", "-o: an empty path"},
                                       {"-o", "-o needs a value"},
                                       {"--frobnicate", "unknown option '--frobnicate'"},
                                       {"-o /nonexistent-dir/p.json --only exit_cost", "cannot write"}}) {
    auto r = probe(b.args);
    INFO(b.args << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find(b.says) != std::string::npos);
  }
}

TEST_CASE("vtick-probe reports a failed write and never replaces a device") {
  auto r = probe("--quick --quiet --only exit_cost -o /dev/full");
  INFO(r.output);
  CHECK(r.status == 1);
  CHECK(r.output.find("write failed") != std::string::npos);
  struct stat st {};
  REQUIRE(stat("/dev/full", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
}
