// cli/: output options ('-', non-regular files, directories, failed writes), the manifest
// of every JSON, logging options, and the tables' n/a and absolute changes.
#include <catch2/catch.hpp>
#include <cmath>
#include <fcntl.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "helpers.hpp"
#include "sim/results.hpp"

using namespace vtick;
using json = nlohmann::json;

namespace {

const std::string kDefault = VTICK_SOURCE_DIR "/scenarios/default.toml";

struct Split {
  int status;
  std::string out, err;
};

// Runs vtick with stdout (a pipe) and stderr apart.
Split run_split(const std::string& args) {
  std::string err;
  test::CliResult r = test::run_cli_apart(args, err);
  return {r.status, r.output, err};
}

bool is_symlink(const char* path) {
  struct stat st;
  return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

json parse(const std::string& text) { return json::parse(text, nullptr, false); }

}  // namespace

TEST_CASE("run --json /dev/stdout writes the JSON to stdout and leaves /dev/stdout a symlink") {
  REQUIRE(is_symlink("/dev/stdout"));  // else this machine's /dev/stdout was replaced before the test
  auto r = run_split("run " + kDefault + " --duration 50ms --json /dev/stdout");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(is_symlink("/dev/stdout"));
  json j = parse(r.out);  // nothing but the JSON on stdout: the table went to stderr
  REQUIRE(j.is_object());
  CHECK(j["manifest"]["status"] == "ok");
  CHECK(r.err.find("round trips/s") != std::string::npos);
}

TEST_CASE("run --json - prints the JSON on stdout and creates no file named '-'") {
  std::string dir = test::temp_path("dash");
  mkdir(dir.c_str(), 0777);
  auto r = run_split("run " + kDefault + " --duration 50ms --json - --quiet");
  REQUIRE(r.status == 0);
  CHECK(parse(r.out).is_object());
  std::string cmd = "cd " + dir + " && " VTICK_BIN " run " + kDefault + " --duration 50ms --quiet --json - >/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  struct stat st;
  CHECK(lstat((dir + "/-").c_str(), &st) != 0);
}

TEST_CASE("run --json FIFO writes into the FIFO (in place, not renamed over)") {
  std::string fifo = test::temp_path("json.fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  std::string got;
  std::thread reader([&] {
    std::ifstream f(fifo, std::ios::binary);  // blocks until vtick opens it for writing
    got.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  });
  auto r = test::run_cli("run " + kDefault + " --duration 50ms --quiet --json " + fifo);
  reader.join();
  CHECK(r.status == 0);
  struct stat st;
  REQUIRE(lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  json j = parse(got);
  REQUIRE(j.is_object());
  CHECK(j["manifest"]["seed"] == 1);
  std::remove(fifo.c_str());
}

TEST_CASE("a symlink to a regular file stays a symlink and its target gets the output") {
  std::string target = test::temp_path("target.json"), link = test::temp_path("link.json");
  std::ofstream(target) << "old\n";
  REQUIRE(symlink(target.c_str(), link.c_str()) == 0);
  REQUIRE(test::run_cli("run " + kDefault + " --duration 50ms --quiet --json " + link).status == 0);
  CHECK(is_symlink(link.c_str()));
  CHECK(parse(test::read_file(target)).is_object());
}

TEST_CASE("an output option naming a directory or nothing is refused with exit 2 naming the option and path") {
  std::string dir = test::temp_path("outdir");
  mkdir(dir.c_str(), 0777);
  for (const char* opt : {"--json", "--events", "--trace", "--ftrace"}) {
    auto r = test::run_cli("run " + kDefault + " --duration 10ms --quiet " + opt + " " + dir);
    INFO(opt << ": " << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find(std::string(opt) + " " + dir + ": is a directory") != std::string::npos);
  }
  auto r = test::run_cli("run " + kDefault + " --duration 10ms --quiet --json ''");
  CHECK(r.status == 2);
  CHECK(r.output.find("--json: empty file name") != std::string::npos);
  r = test::run_cli("compare " + kDefault + " --policies legacy --set run.duration=10ms --quiet --json " + dir);
  CHECK(r.status == 2);
  CHECK(r.output.find("--json " + dir + ": is a directory") != std::string::npos);
  r = test::run_cli("timeline /nonexistent.json --svg " + dir);
  CHECK(r.status == 2);
  CHECK(r.output.find("--svg " + dir + ": is a directory") != std::string::npos);
  r = test::run_cli("run " + kDefault + " --duration 10ms --quiet --json - --ftrace -");
  CHECK(r.status == 2);
  CHECK(r.output.find("both write to stdout") != std::string::npos);
}

TEST_CASE("a failed write (/dev/full) is exit 1 with a message naming the path, never success") {
  for (const char* opt : {"--json", "--events", "--ftrace"}) {
    auto r = test::run_cli("run " + kDefault + " --duration 10ms --quiet " + opt + " /dev/full");
    INFO(opt << ": " << r.output);
    CHECK(r.status == 1);
    CHECK(r.output.find(std::string(opt) + ": cannot write /dev/full: No space left on device") != std::string::npos);
  }
  auto r = test::run_cli("compare " + kDefault + " --policies legacy --set run.duration=10ms --quiet --json /dev/full");
  CHECK(r.status == 1);
  CHECK(r.output.find("cannot write /dev/full") != std::string::npos);
}

TEST_CASE("the run JSON's manifest: version, revision, SimGrid, the command line, the scenario hash and the seed") {
  auto r = run_split("run " + kDefault + " --duration 20ms --seed 3 --quiet --json -");
  REQUIRE(r.status == 0);
  json m = parse(r.out)["manifest"];
  CHECK(m["tool"] == "vtick");
  CHECK(m["version"].get<std::string>().rfind("0.", 0) == 0);
  CHECK(!m["git_revision"].get<std::string>().empty());
  CHECK(m["simgrid_version"].get<std::string>().find("3.32") != std::string::npos);
  CHECK(m["command_line"] == json::array({VTICK_BIN, "run", kDefault, "--duration", "20ms", "--seed", "3", "--quiet", "--json", "-"}));
  CHECK(m["seeds"] == json::array({3}));
  CHECK(m["seed"] == 3);
  std::string h = m["scenario_hash"];
  CHECK(h.size() == 8 + 16);
  CHECK(h.rfind("fnv1a64:", 0) == 0);
  // the hash names the configuration: the same under another seed, another with another key
  auto other_seed = run_split("run " + kDefault + " --duration 20ms --seed 4 --quiet --json -");
  CHECK(parse(other_seed.out)["manifest"]["scenario_hash"] == h);
  auto other_hz = run_split("run " + kDefault + " --duration 20ms --seed 3 --set guest.hz=250 --quiet --json -");
  CHECK(parse(other_hz.out)["manifest"]["scenario_hash"] != h);
}

TEST_CASE("compare --json carries the manifest with every seed and the varied values") {
  auto r = run_split("compare " + kDefault + " --policies legacy,got_tick --seeds 2 --set run.duration=20ms --quiet --json -");
  INFO(r.err);
  REQUIRE(r.status == 0);
  json j = parse(r.out);  // the table went to stderr
  REQUIRE(j.is_object());
  json m = j["manifest"];
  CHECK(m["git_revision"].is_string());
  CHECK(m["simgrid_version"].is_string());
  CHECK(m["command_line"].size() == 12);
  CHECK(m["scenario_hash"].get<std::string>().rfind("fnv1a64:", 0) == 0);
  CHECK(m["seeds"] == json::array({1, 2}));
  CHECK(m["values"] == json::array({"legacy", "got_tick"}));
  CHECK(r.err.find("round trips/s") != std::string::npos);
}

TEST_CASE("logging options on every subcommand (--log-level, -v, -q), a bad level is exit 2 naming the allowed values") {
  for (const char* sub : {"run", "validate", "list", "compare", "sweep", "plot", "timeline"}) {
    auto r = test::run_cli(std::string(sub) + " --help");
    INFO(sub);
    CHECK(r.output.find("--log-level") != std::string::npos);
    CHECK(r.output.find("verbose: --log-level debug") != std::string::npos);      // -v
    CHECK(r.output.find("only warnings and errors, no progress") != std::string::npos);  // -q
  }
  auto r = test::run_cli("validate " + kDefault + " --log-level loud");
  CHECK(r.status == 2);
  CHECK(r.output.find("--log-level 'loud': allowed trace, debug, info, warn, error, critical, off") != std::string::npos);
  CHECK(test::run_cli("list policies --log-level warn").status == 0);
  CHECK(test::run_cli("run " + kDefault + " -v -q").status == 2);
}

TEST_CASE("logs go to stderr only: -v debug lines do not reach stdout, -q and --log-level off keep stderr quiet") {
  auto r = run_split("run " + kDefault + " --duration 20ms --quiet -v --json -");
  REQUIRE(r.status == 0);
  CHECK(parse(r.out).is_object());
  CHECK(r.err.find("vtick: debug: --json -: written to file descriptor 1") != std::string::npos);
  // informational messages and progress: shown by default, hidden by -q
  std::string sweep = test::temp_path("q.toml");
  std::ofstream(sweep) << "scenario = \"" << kDefault << "\"\n[set]\n\"run.duration\" = \"20ms\"\n[axes]\n\"run.seed\" = \"1..2\"\n";
  auto loud = run_split("sweep " + sweep + " --out " + test::temp_path("qa"));
  REQUIRE(loud.status == 0);
  CHECK(loud.err.find("vtick: sweep: 2 points") != std::string::npos);
  CHECK(loud.err.find("[2/2] point") != std::string::npos);
  auto quiet = run_split("sweep " + sweep + " --out " + test::temp_path("qb") + " -q");
  REQUIRE(quiet.status == 0);
  CHECK(quiet.err.empty());
  // errors stay at -q, go at off
  auto bad = run_split("run /nonexistent.toml -q");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("vtick: ") == 0);
  auto off = run_split("run /nonexistent.toml --log-level off");
  CHECK(off.status == 2);
  CHECK(off.err.empty());
}

TEST_CASE("compare: a zero baseline prints the absolute difference with its unit, an undefined value n/a") {
  // got_tick keeps the tick on idle vCPUs: tick wake-ups of halted vCPUs go from 0 to ~1000/s
  auto r = test::run_cli("compare " + kDefault + " --policies legacy,got_tick --set run.duration=100ms --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  auto row = [&](const std::string& label) {
    auto at = r.output.find("  " + label);
    REQUIRE(at != std::string::npos);
    return r.output.substr(at, r.output.find('\n', at) - at);
  };
  std::string wake = row("tick wake-ups of halted vCPUs/s");
  CHECK(wake.find("/s abs)") != std::string::npos);
  CHECK(wake.find('%') == std::string::npos);
  CHECK(row("round trips/s").find("%)") != std::string::npos);  // a real baseline: a percentage
  // halt polling off: no poll attempted, so no success rate: n/a, and no change against it
  auto h = test::run_cli("compare " + kDefault + " --vary host.kvm.halt_poll_ns=0,200000 --set run.duration=50ms --quiet");
  REQUIRE(h.status == 0);
  auto at = h.output.find("  halt-poll success");
  REQUIRE(at != std::string::npos);
  std::string line = h.output.substr(at, h.output.find('\n', at) - at);
  CHECK(line.find("n/a") != std::string::npos);
  CHECK(line.find("nan") == std::string::npos);
  // and in the JSON: null, not 0
  auto j = run_split("compare " + kDefault + " --vary host.kvm.halt_poll_ns=0,200000 --set run.duration=50ms --quiet --json -");
  json c = parse(j.out);
  CHECK(c["policies"][0]["summary"]["halt_poll_success_pct"]["mean"].is_null());
  CHECK(c["policies"][1]["delta_pct"]["halt_poll_success_pct"].is_null());
}

TEST_CASE("run: an undefined headline prints n/a in the table and null in the JSON") {
  auto r = run_split("run " + kDefault + " --duration 20ms --set host.kvm.halt_poll_ns=0 --json -");
  REQUIRE(r.status == 0);
  auto at = r.err.find("  halt-poll success");
  REQUIRE(at != std::string::npos);
  CHECK(r.err.substr(at, r.err.find('\n', at) - at).find("n/a") != std::string::npos);
  CHECK(parse(r.out)["summary"]["halt_poll_success_pct"].is_null());
}

TEST_CASE("compare progress: the finished runs' rate and an ETA, as lines off a terminal and a bar on one") {
  auto r = run_split("compare " + kDefault + " --policies legacy,got_tick --seeds 2 --jobs 1 --set run.duration=20ms");
  REQUIRE(r.status == 0);
  CHECK(r.err.find("[1/4] legacy seed 1 done") != std::string::npos);
  CHECK(r.err.find("[4/4] got_tick seed 2 done") != std::string::npos);
  CHECK(r.err.find("ETA") != std::string::npos);
  CHECK(r.err.find('\r') == std::string::npos);
  CHECK(r.out.find("ETA") == std::string::npos);  // progress is not data
  std::string log = test::temp_path("cmp.log");
  std::string cmd = "script -qec '" VTICK_BIN " compare " + kDefault + " --policies legacy,got_tick --jobs 1 --set run.duration=20ms' " + log +
                    " >/dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string tty = test::read_file(log);
  CHECK(tty.find("\r[") != std::string::npos);
  CHECK(tty.find("2/2 runs") != std::string::npos);
  CHECK(tty.find("ETA") != std::string::npos);
}

TEST_CASE("run: progress on a terminal once a run takes more than 2 s, none off it, and the same JSON either way") {
  // 5-9 s of wall time on the development machine (the default scenario: 35-55 simulated
  // s per wall s since issue 14), well past the 2 s after which progress shows
  std::string json_path = test::temp_path("progress.json"), log = test::temp_path("run.log");
  std::string args = " run " + kDefault + " --duration 300s --json " + json_path;
  std::string cmd = "script -qec '" VTICK_BIN + args + "' " + log + " >/dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string tty = test::read_file(log);
  std::string with_progress = test::read_file(json_path);
  CHECK(tty.find("% of 300s simulated") != std::string::npos);
  CHECK(tty.find("ETA") != std::string::npos);
  auto plain = run_split(args);  // the same command line: the manifest holds it
  REQUIRE(plain.status == 0);
  CHECK(plain.err.empty());
  CHECK(plain.out.find("simulated,") == std::string::npos);
  CHECK(plain.out.find('\r') == std::string::npos);
  std::string without = test::read_file(json_path);
  CHECK(without.size() > 1000);
  CHECK(without == with_progress);  // the progress callback changes no result, no event count
}

TEST_CASE("docs/cli.md's headline keys name every field of a run's summary") {
  std::ifstream in(VTICK_SOURCE_DIR "/docs/cli.md");
  REQUIRE(in);
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::vector<std::string> keys = summary_keys();
  REQUIRE(keys.size() > 20);
  for (const std::string& k : keys) {
    INFO("summary key " << k);
    CHECK(doc.find("`" + k + "`") != std::string::npos);
  }
}
