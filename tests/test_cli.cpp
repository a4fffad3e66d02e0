// cli/: exit codes, error messages naming file, line and key, and byte-identical results.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <fstream>
#include <sstream>

#include "helpers.hpp"

using namespace vtick;

namespace {
std::string write_scenario(const std::string& name, const std::string& text) {
  std::string p = test::temp_path(name);
  std::ofstream(p) << text;
  return p;
}
void expect_input_error(const std::string& args, const std::vector<std::string>& fragments) {
  auto r = test::run_cli(args);
  INFO(args << "\n" << r.output);
  CHECK(r.status == 2);
  for (const auto& f : fragments) CHECK(r.output.find(f) != std::string::npos);
}
}  // namespace

TEST_CASE("cli: --version, --help and list") {
  auto v = test::run_cli("--version");
  CHECK(v.status == 0);
  CHECK(v.output.find("vtick 0.1") != std::string::npos);
  CHECK(test::run_cli("--help").status == 0);
  auto p = test::run_cli("list policies");
  CHECK(p.status == 0);
  for (const char* name : {"legacy", "got_tick", "force_retain", "loehle", "tglx_avg", "periodic"})
    CHECK(p.output.find(name) != std::string::npos);
  auto s = test::run_cli("list shapes");
  CHECK(s.output.find("VM.Standard.A1.Flex.N") != std::string::npos);
  CHECK(test::run_cli("list workloads").output.find("pingpong") != std::string::npos);
  CHECK(test::run_cli("list nonsense").status == 2);
  CHECK(test::run_cli("").status == 2);
}

TEST_CASE("cli: a misspelt key names the file, line, key and a suggestion") {
  std::string f = write_scenario("typo.toml", "[guest]\nhz = 1000\ntick_polcy = \"got_tick\"\n");
  expect_input_error("run " + f, {f + ":3:", "unknown key 'guest.tick_polcy'", "did you mean 'guest.tick_policy'"});
  expect_input_error("validate " + f, {f + ":3:"});
  std::string g = write_scenario("section.toml", "[gust]\nhz = 1000\n");
  expect_input_error("run " + g, {g + ":1:", "unknown section [gust]"});
}

TEST_CASE("cli: wrong types and out-of-range values are refused with what is allowed") {
  std::string f1 = write_scenario("hz0.toml", "[guest]\nhz = 0\n");
  expect_input_error("run " + f1, {f1 + ":2:", "guest.hz = 0", "100, 250, 300, 1000"});
  std::string f2 = write_scenario("type.toml", "[guest]\nhz = \"fast\"\n");
  expect_input_error("run " + f2, {f2 + ":2:", "guest.hz", "must be an integer"});
  std::string f3 = write_scenario("vcpus.toml", "[platform]\nshape = \"VM.Standard2.1\"\nvcpus = 4\n");
  expect_input_error("run " + f3, {f3 + ":3:", "platform.vcpus = 4", "allowed 1 .. 2"});
  std::string f4 = write_scenario("neg.toml", "[run]\nduration = \"-1s\"\n");
  expect_input_error("run " + f4, {f4 + ":2:", "run.duration", "out of range"});
  std::string f5 = write_scenario("shape.toml", "[platform]\nshape = \"VM.Standard9.1\"\n");
  expect_input_error("run " + f5, {f5 + ":2:", "unknown shape", "VM.Standard.A1.Flex.N"});
  std::string f6 = write_scenario("policy.toml", "[guest]\ntick_policy = \"sometimes\"\n");
  expect_input_error("run " + f6, {f6 + ":2:", "guest.tick_policy", "legacy, got_tick"});
  std::string f7 = write_scenario("unit.toml", "[run]\nduration = 10\n");
  expect_input_error("run " + f7, {f7 + ":2:", "must be a duration with a unit"});
  std::string f8 = write_scenario("syntax.toml", "[run]\nduration = \"1s\n");
  expect_input_error("run " + f8, {f8 + ":2:", "TOML syntax error"});
  std::string f9 = write_scenario("cost.toml", "[host.costs]\nvmexit_ns = 99999\n");
  expect_input_error("run " + f9, {f9 + ":2:", "host.costs.vmexit_ns", "allowed 300 .. 15000"});
  expect_input_error("run /nonexistent/x.toml", {"/nonexistent/x.toml"});
  const std::string script = "[workload]\nkind = \"script\"\n[[workload.task]]\nname = \"t\"\n";
  std::string f10 = write_scenario("loop.toml", script + "program = [\"run 1ms\",\n  \"loop 5 3\"]\n");
  expect_input_error("run " + f10, {f10 + ":6:", "'loop 5 3'", "earlier phase, 0 .. 0"});
  std::string f11 = write_scenario("cpus.toml", script + "cpus = \"4-5\"\nprogram = [\"run 1ms\"]\n");
  expect_input_error("run " + f11, {f11 + ":3:", "workload.task.cpus of 't'", "0 .. 1"});
  std::string f12 = write_scenario("phase.toml", script + "program = [\"spin 1ms\"]\n");
  expect_input_error("run " + f12, {f12 + ":5:", "unknown phase", "loop TARGET COUNT"});
  std::string f13 = write_scenario("spin.toml", script + "program = [\"lock m\", \"unlock m\"]\n");
  expect_input_error("run " + f13, {f13 + ":5:", "without time", "add a run"});
  // TOML has non-ASCII only in strings and comments (and toml++ 3.3 reached
  // __builtin_unreachable on some such characters: sim/toml_text.hpp)
  std::string f15 = write_scenario("utf8.toml", "# durée\n[guest]\nhz = 250é\n");
  expect_input_error("run " + f15, {f15 + ":3:9:", "a non-ASCII character outside a string or comment"});
  CHECK(test::run_cli("validate " + write_scenario("utf8ok.toml", "# durée, période\n[guest]\nhz = 250 # é\n")).status == 0);
  std::string f14 = write_scenario("loop0.toml", script + "program = [\"loop 0 3\", \"run 1ms\"]\n");
  expect_input_error("run " + f14, {f14 + ":5:", "cannot be the first phase"});
  // whole words only (issue 16: istringstream took 'loop 0 1e3' as 'loop 0 1' and 'loop x 1' as a jump to 0)
  const std::pair<const char*, const char*> words[] = {{"loop 0 1e3", "integers"},          {"loop x 1", "integers"},
                                                       {"loop 0 99999999999999999999", "COUNT 1 .. 1000000000"},
                                                       {"loop 0 1 2", "loop takes 2 arguments, not 3"},
                                                       {"run 1ms 0.5x", "jitter must be a fraction"},
                                                       {"run 1ms nan", "jitter must be a fraction"},
                                                       {"yield now", "yield takes 0 arguments, not 1"},
                                                       {"lock", "lock takes 1 argument, not 0"}};
  for (const auto& [phase, why] : words) {
    std::string f = write_scenario("words.toml", script + "program = [\"run 1ms\", \"" + phase + "\"]\n");
    expect_input_error("run " + f, {f + ":5:", std::string("'") + phase + "'", why});
  }
}

TEST_CASE("cli: --set overrides are validated the same way") {
  std::string f = VTICK_SOURCE_DIR "/scenarios/default.toml";
  expect_input_error("run " + f + " --set guest.hz=0", {"--set 'guest.hz=0'", "100, 250, 300, 1000"});
  expect_input_error("run " + f + " --set guest.hzz=250", {"--set", "did you mean 'guest.hz'"});
  expect_input_error("run " + f + " --set guest.hz", {"expected section.key=value"});
  expect_input_error("run " + f + " --seed -3", {"run.seed"});
  expect_input_error("run " + f + " --duration 5", {"run.duration", "unit"});
  expect_input_error("compare " + f + " --policies legacy,nope", {"unknown policy 'nope'"});
  // an empty value is not the scenario's own: --seed "" used to run with run.seed = 1
  expect_input_error("run " + f + " --seed ''", {"--seed: empty value"});
  expect_input_error("run " + f + " --duration ''", {"--duration: empty value"});
  // nor is an empty file argument the built-in scenario (`validate ""` said ok, issue 37)
  expect_input_error("validate ''", {"scenario: empty value"});
  expect_input_error("run '' --quiet", {"scenario: empty value"});
  expect_input_error("trace-compare '' " + f, {"real: empty value"});
  // a directory is not a scenario: it used to say ok and run the built-in defaults
  expect_input_error(std::string("validate ") + VTICK_SOURCE_DIR "/scenarios", {"a directory, not a scenario file"});
  expect_input_error(std::string("run ") + VTICK_SOURCE_DIR "/scenarios --quiet", {"a directory, not a scenario file"});
  // a device reads as an endless or empty file: the built-in defaults, silently (it said ok)
  expect_input_error("validate /dev/zero", {"/dev/zero: a device or socket, not a scenario file"});
  expect_input_error("run /dev/null --quiet", {"/dev/null: a device or socket, not a scenario file"});
  expect_input_error("sweep /dev/null --list", {"/dev/null: a device or socket, not a sweep file"});
  expect_input_error("calibrate /dev/zero -o " + test::temp_path("z.toml"), {"/dev/zero: a device or socket, not a vtick-probe profile"});
  // a pipe is read to its end
  auto piped = test::shell(std::string(VTICK_BIN) + " validate /dev/stdin < " VTICK_SOURCE_DIR "/scenarios/x86-2vcpu.toml 2>&1");
  CHECK(piped.status == 0);
  CHECK(piped.output.find("workload.kind                      = \"periodic\"") != std::string::npos);
}

// issue 16: SimGrid's own options reach its engine (thread contexts for sanitizer runs);
// thread contexts change no counter; a key SimGrid does not know, a bad value or no
// colon exit 2 naming the option.
TEST_CASE("cli: --sg-cfg passes SimGrid options, bad ones exit 2") {
  std::string f = VTICK_SOURCE_DIR "/scenarios/default.toml";
  std::string a = test::temp_path("raw.json"), b = test::temp_path("thread.json");
  REQUIRE(test::run_cli("run " + f + " --duration 50ms --quiet --json " + a).status == 0);
  REQUIRE(test::run_cli("run " + f + " --duration 50ms --quiet --sg-cfg contexts/factory:thread --json " + b).status == 0);
  auto ja = nlohmann::json::parse(test::read_file(a)), jb = nlohmann::json::parse(test::read_file(b));
  CHECK(ja["metrics"]["workload.ops"].get<double>() > 100);
  CHECK(ja["metrics"] == jb["metrics"]);
  const std::pair<const char*, const char*> bad[] = {{"nonexistent/key:1", "Bad config key: nonexistent/key; SimGrid's keys: "},
                                                     {"contexts/stack-size:abc", "invalid integer"},
                                                     {"nocolon", "KEY:VALUE"}};
  for (const auto& [opt, why] : bad) {
    auto r = test::run_cli("run " + f + " --duration 20ms --quiet --sg-cfg " + opt);
    INFO(r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find(std::string("--sg-cfg '") + opt + "'") != std::string::npos);
    CHECK(r.output.find(why) != std::string::npos);
  }
}

// issue 16: under an address-space limit (a cluster job's ulimit -v) a 512-vCPU VM aborted
// in SimGrid's stack allocation; it now exits 2 saying how much it needs and how to give
// it less, and runs with smaller stacks.
TEST_CASE("cli: a VM whose actor stacks exceed the address-space limit exits 2 with the way out") {
  std::string run = std::string(VTICK_BIN) + " run " VTICK_SOURCE_DIR "/scenarios/default.toml --set platform.shape=generic "
                                             "--set platform.cores=256 --duration 1ms --set run.warmup=0ns --quiet";
  auto r = test::shell("ulimit -v 4194304; " + run + " 2>&1");
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK(r.output.find("520 actors with SimGrid stacks of 8192 KiB need about 4.6 GiB") != std::string::npos);
  CHECK(r.output.find("--sg-cfg contexts/stack-size:KIB") != std::string::npos);
  CHECK(test::shell("ulimit -v 4194304; " + run + " --sg-cfg contexts/stack-size:256 2>&1").status == 0);
}

TEST_CASE("cli: the same scenario and seed give byte-identical JSON") {
  std::string f = VTICK_SOURCE_DIR "/scenarios/default.toml";
  // the command line is part of the manifest: the same command twice
  std::string a = test::temp_path("a.json"), b = test::temp_path("b.json");
  auto r1 = test::run_cli("run " + f + " --duration 100ms --set guest.hz=250 --quiet --json " + a);
  REQUIRE(r1.status == 0);
  std::string ja = test::read_file(a);
  auto r2 = test::run_cli("run " + f + " --duration 100ms --set guest.hz=250 --quiet --json " + a);
  REQUIRE(r2.status == 0);
  std::string jb = test::read_file(a);
  CHECK(ja.size() > 1000);
  CHECK(ja == jb);
  CHECK(ja.find("\"hz\": 250") != std::string::npos);       // resolved config echoed
  CHECK(ja.find("\"halt_exits\"") == std::string::npos);    // metrics are flat dotted keys
  CHECK(ja.find("\"vcpu0.kvm.halt_exits\"") != std::string::npos);
  auto r3 = test::run_cli("run " + f + " --duration 100ms --set guest.hz=250 --seed 2 --quiet --json " + b);
  REQUIRE(r3.status == 0);
  CHECK(test::read_file(b).find("\"seed\": 2") != std::string::npos);
}

TEST_CASE("docs/model.md carries the current generated parameter tables") {
  std::string doc = test::read_file(VTICK_SOURCE_DIR "/docs/model.md");
  auto r = test::run_cli("list params");
  REQUIRE(r.status == 0);
  std::string begin = "<!-- BEGIN GENERATED: vtick list params -->\n";
  auto at = doc.find(begin);
  REQUIRE(at != std::string::npos);
  INFO("run scripts/update-docs.sh");
  CHECK(doc.substr(at + begin.size()) == r.output + "<!-- END GENERATED -->\n");
}

// tests/corpus/ (README there): every input that once crashed, hung or was accepted
// without a word, with the exit status and the message it must now give; generated/ holds
// the shipped scenarios mutated the same ways (scripts/make-corpus.py).
namespace {
std::string substitute(std::string s, const std::string& file, const std::string& tmp) {
  const std::pair<std::string, std::string> subs[] = {
      {"{file}", file}, {"{dir}", file.substr(0, file.rfind('/'))}, {"{tmp}", tmp}};
  for (const auto& [from, to] : subs)
    for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

int run_corpus(const std::string& dir, std::size_t at_least) {
  std::vector<std::string> files = test::files_ending(dir, ".toml");
  REQUIRE(files.size() >= at_least);
  for (const auto& path : files) {
    std::string command, says;
    std::vector<std::string> setup, after;
    int exit = -1;
    std::string text = test::read_file(path);
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // a case may start with a UTF-8 BOM
    std::istringstream in(text);
    for (std::string line; std::getline(in, line) && line.rfind("# ", 0) == 0;) {
      auto field = [&](const char* name, std::string& into) {
        std::string h = std::string("# ") + name + ": ";
        if (line.rfind(h, 0) == 0) into = line.substr(h.size());
        if (line == h.substr(0, h.size() - 1)) into.clear();
      };
      std::string s, a, x;
      field("command", command);
      field("says", says);
      field("setup", s);
      field("after", a);
      field("exit", x);
      if (!s.empty()) setup.push_back(s);
      if (!a.empty()) after.push_back(a);
      if (!x.empty()) exit = std::stoi(x);
    }
    INFO(path);
    REQUIRE((command == "validate" || command == "run" || command == "sweep-list" || command.rfind("args ", 0) == 0));
    REQUIRE(exit >= 0);
    REQUIRE((exit == 0 || !says.empty()));  // a refusal names what it refuses
    std::string tmp = test::temp_path("corpus");
    REQUIRE(test::shell("rm -rf " + tmp + " && mkdir -p " + tmp).status == 0);
    for (const auto& s : setup) REQUIRE(test::shell(substitute(s, path, tmp)).status == 0);
    std::string args = command == "validate" ? "validate " + path
                       : command == "run"    ? "run " + path + " --duration 1ms --set run.warmup=0ns --quiet"
                       : command == "sweep-list" ? "sweep " + path + " --list"
                                                 : substitute(command.substr(5), path, tmp);
    auto r = test::run_cli(args);
    INFO(args);
    INFO(r.output);
    CHECK(r.status == exit);
    CHECK(r.output.find(substitute(says, path, tmp)) != std::string::npos);
    CHECK(r.output.find("internal error") == std::string::npos);
    for (const auto& a : after) CHECK(test::shell(substitute(a, path, tmp)).status == 0);
    test::shell("rm -rf " + tmp);
  }
  return static_cast<int>(files.size());
}
}  // namespace

TEST_CASE("the regression corpus: each input gets its exit status and message") {
  run_corpus(VTICK_SOURCE_DIR "/tests/corpus", 7);
}

TEST_CASE("the generated corpus (mutated shipped scenarios): each gets its exit status and message") {
  run_corpus(VTICK_SOURCE_DIR "/tests/corpus/generated", 300);
}

TEST_CASE("tests/corpus/generated/ is what scripts/make-corpus.py writes") {
  auto r = test::shell("python3 " VTICK_SOURCE_DIR "/scripts/make-corpus.py --check 2>&1");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("up to date") != std::string::npos);
}

TEST_CASE("validate estimates a large scenario from a pilot run, and a traced span is bounded") {
  const std::string f = VTICK_SOURCE_DIR "/scenarios/oci/standard2.1-oltp.toml";
  auto small = test::run_cli("validate " + f);
  REQUIRE(small.status == 0);
  CHECK(small.output.find("estimate:") == std::string::npos);  // 2 vCPUs, 5 s: not large
  auto big = test::run_cli("validate " + f + " --set platform.shape=generic --set platform.cores=16 --set run.duration=600s");
  INFO(big.output);
  REQUIRE(big.status == 0);
  CHECK(big.output.find("estimate: a 10ms pilot run extrapolated to run.duration 600s (32 vCPUs)") != std::string::npos);
  for (const char* row : {"model steps", "SimGrid events", "wall time", "peak memory"})
    CHECK(big.output.find(row) != std::string::npos);
  CHECK(test::run_cli("validate " + f + " --estimate").output.find("estimate:") != std::string::npos);
  // 2 vCPUs traced over 20 s: 40 vCPU-seconds, above 20; a window within it runs
  auto t = test::run_cli("run " + f + " --duration 20s --trace " + test::temp_path("t.json"));
  CHECK(t.status == 2);
  CHECK(t.output.find("40 vCPU-seconds, at most 20") != std::string::npos);
  CHECK(t.output.find("--trace-window") != std::string::npos);
}
