// vtick validate-suite: the fast cases of validation/ give the verdicts their files
// expect, and bad case files are refused with where and what is allowed.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "helpers.hpp"

using json = nlohmann::json;
using namespace vtick;

namespace {
const std::string kSuite = std::string(VTICK_SOURCE_DIR) + "/validation";

std::string write_case(const std::string& dir, const std::string& name, const std::string& body) {
  std::string p = dir + "/" + name;
  std::ofstream(p) << body;
  return p;
}

const char* kGood = R"([case]
title = "t"
arch = "arm64"
source = "s"
setup = "u"
published = "13.48 us/op"
value = 13.48
metric = "us_per_op"
band = [6.74, 26.96]
band_rule = "B"
band_chosen = "test"
scenario = "SCEN"
set = ["run.duration=50ms", "run.warmup=10ms"]
)";

std::string with_scenario(std::string body) {
  std::string sc = kSuite + "/scenarios/pipe-arm64.toml";
  body.replace(body.find("SCEN"), 4, sc);
  return body;
}
}  // namespace

TEST_CASE("validate-suite: the fast cases give the verdicts their files expect") {
  std::string j = test::temp_path("suite.json");
  auto r = test::run_cli("validate-suite --dir " + kSuite + " --fast --quiet --json " + j);
  json d = json::parse(test::read_file(j));
  REQUIRE(d.size() >= 10);
  int expected_fail = 0;
  for (const auto& c : d) {
    INFO(c["case"].get<std::string>() << ": " << c["verdict"].get<std::string>() << ", vtick " << c["vtick"].dump());
    CHECK(c["verdict"] == (c["expect"] == "fail" ? "FAIL" : "PASS"));
    CHECK_FALSE(c["source"].get<std::string>().empty());
    if (c["expect"] == "fail") {
      ++expected_fail;
      CHECK(c["explanation"].get<std::string>().size() > 40);  // a failure says why
    }
  }
  // exit 0 only when every case passes
  CHECK(r.status == (expected_fail ? 1 : 0));
}

TEST_CASE("validate-suite: a case's figure is its scenario's, and a ratio divides by the baseline") {
  std::string dir = test::temp_path("suite-ratio");
  std::filesystem::create_directories(dir);
  std::string body = with_scenario(kGood);
  write_case(dir, "a.toml", body);
  // the same run as its own baseline: the ratio is exactly 1
  std::string ratio = body;
  ratio.replace(ratio.find("value = 13.48"), 13, "value = 1.0");
  ratio.replace(ratio.find("band = [6.74, 26.96]"), 20, "band = [0.9, 1.1]");
  ratio.replace(ratio.find("band_rule = \"B\""), 15, "band_rule = \"C\"");
  write_case(dir, "b.toml", ratio + "\n[baseline]\nset = [\"run.duration=50ms\", \"run.warmup=10ms\"]\n");
  std::string j = test::temp_path("suite-ratio.json");
  auto r = test::run_cli("validate-suite --dir " + dir + " --quiet --json " + j);
  json d = json::parse(test::read_file(j));
  REQUIRE(d.size() == 2);
  CHECK(d[1]["vtick"].get<double>() == 1.0);
  CHECK(d[1]["verdict"] == "PASS");
  // the round trip of vtick run on the same scenario and keys
  std::string rj = test::temp_path("suite-run.json");
  auto rr = test::run_cli("run " + kSuite + "/scenarios/pipe-arm64.toml --quiet --duration 50ms --set run.warmup=10ms --json " + rj);
  REQUIRE(rr.status == 0);
  json run = json::parse(test::read_file(rj));
  CHECK(d[0]["vtick"].get<double>() == Approx(1e6 / run["summary"]["ops_per_s"].get<double>()));
  CHECK(r.status == (d[0]["verdict"] == "PASS" ? 0 : 1));
}

TEST_CASE("validate-suite: bad case files are refused with file, line and what is allowed") {
  std::string dir = test::temp_path("suite-bad");
  std::filesystem::create_directories(dir);
  std::string good = with_scenario(kGood);
  struct Bad {
    std::string body, expect;
  } bad[] = {
      {good + "colour = \"red\"\n", "unknown key case.colour"},
      {[&] { std::string b = good; b.replace(b.find("us_per_op\""), 10, "furlongs\""); return b; }(), "allowed us_per_op"},
      {[&] { std::string b = good; b.replace(b.find("[6.74, 26.96]"), 13, "[26.96, 6.74]"); return b; }(), "low < high"},
      {[&] { std::string b = good; b.replace(b.find("band = [6.74, 26.96]\n"), 21, ""); return b; }(), "case.band must be"},
      {good + "expect = \"fail\"\n", "needs case.explanation"},
      {[&] { std::string b = good; b.replace(b.find("arm64"), 5, "sparc"); return b; }(), "allowed x86_64, arm64"},
      {"[case\n", "a.toml:"},
      {[&] { std::string b = good; b.replace(b.find("[6.74, 26.96]"), 13, "[6.0, 26.96]"); return b; }(), "is not rule B's band"},
      {[&] { std::string b = good; b.replace(b.find("\"B\""), 3, "\"Z\""); return b; }(), "allowed A, B, C"},
      {good + "[baseline]\nset = []\n", "takes band_rule C"},
      {"baseline = 1\n" + good, "baseline must be a table"},
      {[&] { std::string b = good; b.replace(b.find("arm64"), 5, "x86_64"); return b; }(), "but its scenario runs arm64"},
      {[&] { std::string b = good; b.replace(b.find("run.duration=50ms"), 17, "no.such_key=1"); return b; }(), "no.such_key"},
  };
  for (const auto& b : bad) {
    write_case(dir, "a.toml", b.body);
    auto r = test::run_cli("validate-suite --dir " + dir + " --quiet");
    INFO(b.expect << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find(b.expect) != std::string::npos);
    CHECK(r.output.find(dir + "/a.toml") != std::string::npos);
  }
  {  // a scenario that is a directory is not silently the built-in default
    std::string b = good;
    b.replace(b.find(kSuite + "/scenarios/pipe-arm64.toml"), (kSuite + "/scenarios/pipe-arm64.toml").size(), dir);
    write_case(dir, "a.toml", b);
    auto r = test::run_cli("validate-suite --dir " + dir + " --quiet");
    CHECK(r.status == 2);
    CHECK(r.output.find("is not a file") != std::string::npos);
  }
  auto r = test::run_cli("validate-suite --dir /nonexistent --quiet");
  CHECK(r.status == 2);
  CHECK(r.output.find("not a directory") != std::string::npos);
}
