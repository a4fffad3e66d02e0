// vtick sweep: the grid, one point by index, and a sweep killed midway and resumed giving
// the same tables as one that never stopped.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <dirent.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "helpers.hpp"

using namespace vtick;

namespace {

std::string sweep_file(const std::string& name, const std::string& body) {
  std::string path = test::temp_path(name);
  std::ofstream(path) << "scenario = \"" VTICK_SOURCE_DIR "/scenarios/default.toml\"\n" << body;
  return path;
}

const char* kGrid =
    "[set]\n\"run.duration\" = \"300ms\"\n"
    "[axes]\n\"guest.hz\" = [250, 1000]\n\"guest.tick_policy\" = [\"legacy\", \"got_tick\"]\n\"run.seed\" = \"1..3\"\n"
    "[[exclude]]\n\"guest.hz\" = 250\n\"guest.tick_policy\" = \"got_tick\"\n";

int count_results(const std::string& dir) {
  int n = 0;
  if (DIR* d = opendir((dir + "/runs").c_str())) {
    while (dirent* e = readdir(d)) {
      std::string s = e->d_name;
      n += s.size() == 11 && s.substr(6) == ".json";
    }
    closedir(d);
  }
  return n;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  std::size_t a = 0, b;
  while ((b = text.find('\n', a)) != std::string::npos) {
    v.push_back(text.substr(a, b - a));
    a = b + 1;
  }
  return v;
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> v;
  std::size_t a = 0, b;
  while ((b = line.find(',', a)) != std::string::npos) {
    v.push_back(line.substr(a, b - a));
    a = b + 1;
  }
  v.push_back(line.substr(a));
  return v;
}

}  // namespace

TEST_CASE("sweep --list: the product of the axes minus exclusions, run.seed fastest") {
  auto r = test::run_cli("sweep " + sweep_file("g.toml", kGrid) + " --list");
  REQUIRE(r.status == 0);
  auto l = lines(r.output);
  REQUIRE(l.size() == 9);  // 2 hz x 2 policies x 3 seeds, minus 250 Hz got_tick (3)
  CHECK(l[0] == "0 guest.hz=250 guest.tick_policy=legacy run.seed=1");
  CHECK(l[2] == "2 guest.hz=250 guest.tick_policy=legacy run.seed=3");
  CHECK(l[3] == "3 guest.hz=1000 guest.tick_policy=legacy run.seed=1");
  CHECK(l[8] == "8 guest.hz=1000 guest.tick_policy=got_tick run.seed=3");
}

TEST_CASE("sweep --index N runs exactly that point") {
  std::string dir = test::temp_path("one");
  auto r = test::run_cli("sweep " + sweep_file("g.toml", kGrid) + " --out " + dir + " --index 7 --quiet");
  REQUIRE(r.status == 0);
  CHECK(count_results(dir) == 1);
  std::string j = test::read_file(dir + "/runs/000007.json");
  CHECK(j.find("\"tick_policy\": \"got_tick\"") != std::string::npos);
  CHECK(j.find("\"seed\": 2") != std::string::npos);
  CHECK(test::run_cli("sweep " + sweep_file("g.toml", kGrid) + " --out " + dir + " --index 9").status == 2);
}

TEST_CASE("a sweep killed midway and resumed gives the tables of an uninterrupted one") {
  std::string file = sweep_file("g.toml", kGrid);
  std::string whole = test::temp_path("whole"), cut = test::temp_path("cut");
  REQUIRE(test::run_cli("sweep " + file + " --out " + whole + " --quiet").status == 0);

  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    execl(VTICK_BIN, "vtick", "sweep", file.c_str(), "--out", cut.c_str(), "--jobs", "1", "--quiet", static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);
  auto t0 = std::chrono::steady_clock::now();
  while (count_results(cut) < 3 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(-pid, SIGKILL);  // the sweep and the run in flight, without warning
  int st;
  waitpid(pid, &st, 0);
  int before = count_results(cut);
  REQUIRE(before >= 3);
  REQUIRE(before < 9);

  CHECK(test::run_cli("sweep " + file + " --out " + cut + " --quiet").status == 2);  // not without --resume
  auto r = test::run_cli("sweep " + file + " --out " + cut + " --resume");
  REQUIRE(r.status == 0);
  CHECK(r.output.find(std::to_string(9 - before) + " to run") != std::string::npos);  // nothing run twice
  for (const char* t : {"/runs.csv", "/summary.csv", "/delta.csv"}) {
    INFO(t);
    CHECK(test::read_file(cut + t) == test::read_file(whole + t));
  }
  auto rows = lines(test::read_file(cut + "/runs.csv"));
  CHECK(rows.size() == 10);  // header + every point once
}

TEST_CASE("sweep: bad input names the file, line and what is allowed") {
  auto bad = [](const std::string& body) { return test::run_cli("sweep " + sweep_file("b.toml", body) + " --list"); };
  auto r = bad("[axes]\n\"guest.hzz\" = [250]\n");
  CHECK(r.status == 2);
  CHECK(r.output.find("b.toml:3:") != std::string::npos);
  CHECK(r.output.find("unknown scenario key 'guest.hzz'") != std::string::npos);
  r = bad("[axes]\n\"guest.hz\" = [250, 7]\n");
  CHECK(r.status == 2);
  CHECK(r.output.find("guest.hz = 7") != std::string::npos);
  r = bad("[[zip]]\n\"platform.shape\" = [\"VM.Standard2.1\", \"VM.Standard2.2\"]\n\"platform.vcpus\" = [2]\n");
  CHECK(r.status == 2);
  CHECK(r.output.find("same length") != std::string::npos);
  r = bad("[axes]\n\"guest.hz\" = [250]\n[[exclude]]\n\"guest.tick_policy\" = \"legacy\"\n");
  CHECK(r.status == 2);
  CHECK(r.output.find("not a swept key") != std::string::npos);
  r = bad("[axes]\n\"guest.hz\" = [250]\n[axis]\n");
  CHECK(r.status == 2);
  CHECK(r.output.find("unknown entry 'axis'") != std::string::npos);
  r = bad("[axes]\n\"platform.vcpus\" = [2, 64]\n");  // more vCPUs than the shape has
  CHECK(r.status == 2);
  CHECK(r.output.find("platform.vcpus") != std::string::npos);
  // a product of axes no machine could run: refused at once, with its size and its axes
  r = bad("[axes]\n\"guest.hz\" = [100, 250, 300, 1000]\n\"host.kvm.halt_poll_ns\" = \"0..99\"\n\"run.seed\" = \"1..1000\"\n");
  CHECK(r.status == 2);
  CHECK(r.output.find("the grid has 400000 points, 4 (guest.hz) x 100 (host.kvm.halt_poll_ns) x 1000 (run.seed); at most 100000") !=
        std::string::npos);
  r = bad("[axes]\n\"run.seed\" = \"1..1000000\"\n");
  CHECK(r.status == 2);
  CHECK(r.output.find("at most 100000 values") != std::string::npos);
}

// issue 16: an empty or corrupt sweep.json cannot vouch for the run files beside it, not
// even with --force (it used to compare equal to any grid and label one grid's runs with
// another's values).
TEST_CASE("sweep --resume over an empty or corrupt sweep.json exits 2 naming it") {
  std::string dir = test::temp_path("corrupt");
  std::string f = sweep_file("c.toml", "[set]\n\"run.duration\" = \"20ms\"\n[axes]\n\"run.seed\" = \"1..2\"\n");
  REQUIRE(test::run_cli("sweep " + f + " --out " + dir + " --quiet").status == 0);
  for (const char* text : {"", "{\"axes\": [", "garbage"}) {
    INFO("sweep.json: " << text);
    std::ofstream(dir + "/sweep.json") << text;
    auto r = test::run_cli("sweep " + f + " --out " + dir + " --resume --force --quiet");
    CHECK(r.status == 2);
    CHECK(r.output.find("sweep.json is not a sweep's grid") != std::string::npos);
  }
}

// issue 16: 99,999 seeds used to load the scenario 200,000 times before saying anything
// (minutes); a seed's validity is its range's, so the list comes at once (a long run of
// --list here would time the test out, not fail it: the count is checked).
TEST_CASE("sweep: 99,999 seeds list without loading the scenario for each") {
  auto r = test::run_cli("sweep " + sweep_file("seeds.toml", "[axes]\n\"run.seed\" = \"1..99999\"\n") + " --list");
  REQUIRE(r.status == 0);
  CHECK(r.output.find("99998 run.seed=99999\n") != std::string::npos);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 99999);
}

TEST_CASE("sweep: [[zip]] keys vary together and the grid cannot change under a results directory") {
  std::string file = sweep_file("z.toml",
                                "[set]\n\"run.duration\" = \"100ms\"\n[[zip]]\n\"platform.shape\" = [\"VM.Standard2.1\", \"VM.Standard2.2\"]\n"
                                "\"platform.vcpus\" = [2, 4]\n");
  auto r = test::run_cli("sweep " + file + " --list");
  REQUIRE(r.status == 0);
  CHECK(lines(r.output) == std::vector<std::string>{"0 platform.shape=VM.Standard2.1 platform.vcpus=2",
                                                     "1 platform.shape=VM.Standard2.2 platform.vcpus=4"});
  std::string dir = test::temp_path("zip");
  REQUIRE(test::run_cli("sweep " + file + " --out " + dir + " --quiet").status == 0);
  std::string other = sweep_file("z.toml", "[set]\n\"run.duration\" = \"100ms\"\n[axes]\n\"guest.hz\" = [250]\n");
  r = test::run_cli("sweep " + other + " --out " + dir + " --resume");
  CHECK(r.status == 2);
  CHECK(r.output.find("another grid") != std::string::npos);
}

TEST_CASE("vtick plot draws a sweep's figures as SVG and PNG") {
  std::string file = sweep_file("p.toml",
                                "[set]\n\"run.duration\" = \"100ms\"\n\"workload.kind\" = \"periodic\"\n[axes]\n\"guest.hz\" = [250, 1000]\n"
                                "\"guest.tick_policy\" = [\"legacy\", \"got_tick\"]\n\"run.seed\" = \"1..2\"\n"
                                "[[zip]]\n\"platform.shape\" = [\"VM.Standard2.1\", \"VM.Standard2.1\"]\n\"platform.vcpus\" = [1, 2]\n");
  std::string dir = test::temp_path("plot");
  REQUIRE(test::run_cli("sweep " + file + " --out " + dir + " --quiet").status == 0);
  auto r = test::run_cli("plot " + dir);
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const char* f : {"ops_vs_hz", "exits_halt_poll_vs_hz", "delta_vs_vcpus"}) {
    INFO(f);
    std::string svg = test::read_file(dir + "/plots/" + f + ".svg");
    std::string png = test::read_file(dir + "/plots/" + f + ".png");
    CHECK(svg.find("<svg") != std::string::npos);
    CHECK(svg.find("</svg>") != std::string::npos);
    CHECK(svg.find("got_tick") != std::string::npos);  // underscores printed as such, not as subscripts
    CHECK(png.substr(0, 4) == "\x89PNG");
  }
  CHECK(test::read_file(dir + "/plots/ops_vs_hz.svg").find("legacy") != std::string::npos);
  CHECK(test::run_cli("plot " + test::temp_path("nowhere")).status == 2);
  CHECK(test::run_cli("plot " + dir + " --at guest.nope=1").status == 2);
}

TEST_CASE("sweep progress: a bar with rate and ETA on a terminal, plain lines otherwise") {
  std::string f = sweep_file("p.toml", "[set]\n\"run.duration\" = \"50ms\"\n[axes]\n\"run.seed\" = \"1..3\"\n");
  // on a pseudo-terminal (script(1) gives the command one): one bar redrawn with \r
  std::string tty_dir = test::temp_path("ptty"), tty_log = test::temp_path("ptty.log");
  std::string cmd = "script -qec '" VTICK_BIN " sweep " + f + " --out " + tty_dir + " --jobs 1' " + tty_log + " >/dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string tty = test::read_file(tty_log);
  CHECK(tty.find("\r[") != std::string::npos);
  CHECK(tty.find("runs/s") != std::string::npos);
  CHECK(tty.find("ETA") != std::string::npos);
  CHECK(tty.find("3/3 runs") != std::string::npos);
  // not a terminal: one plain line per finished point
  auto r = test::run_cli("sweep " + f + " --out " + test::temp_path("pplain") + " --jobs 1");
  REQUIRE(r.status == 0);
  CHECK(r.output.find('\r') == std::string::npos);
  CHECK(r.output.find("[1/3] point") != std::string::npos);
  CHECK(r.output.find("[3/3] point") != std::string::npos);
}

namespace {
// A file's text with the first `from` replaced by `to`.
void edit_file(const std::string& path, const std::string& from, const std::string& to) {
  std::string t = test::read_file(path);
  auto at = t.find(from);
  REQUIRE(at != std::string::npos);
  t.replace(at, from.size(), to);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << t;
}
}  // namespace

TEST_CASE("sweep: sweep.json and every run file carry the manifest, runs.csv a version column") {
  std::string file = sweep_file("m.toml", "[set]\n\"run.duration\" = \"20ms\"\n[axes]\n\"guest.hz\" = [250, 1000]\n\"run.seed\" = \"1..2\"\n");
  std::string dir = test::temp_path("manifest");
  REQUIRE(test::run_cli("sweep " + file + " --out " + dir + " --quiet").status == 0);
  nlohmann::json s = nlohmann::json::parse(test::read_file(dir + "/sweep.json"));
  CHECK(s["manifest"]["git_revision"].is_string());
  CHECK(s["manifest"]["simgrid_version"].is_string());
  CHECK(s["manifest"]["command_line"].size() == 6);
  CHECK(s["manifest"]["seeds"] == nlohmann::json::array({1, 2}));
  nlohmann::json r0 = nlohmann::json::parse(test::read_file(dir + "/runs/000000.json"));
  nlohmann::json r2 = nlohmann::json::parse(test::read_file(dir + "/runs/000002.json"));
  const std::string rev = r0["manifest"]["git_revision"];
  CHECK(rev == s["manifest"]["git_revision"]);
  CHECK(r0["manifest"]["command_line"] == s["manifest"]["command_line"]);
  CHECK(r0["manifest"]["scenario_hash"] != r2["manifest"]["scenario_hash"]);  // HZ 250 vs 1000
  auto rows = lines(test::read_file(dir + "/runs.csv"));
  REQUIRE(rows.size() == 5);
  CHECK(rows[0].rfind("index,guest.hz,run.seed,status,version,", 0) == 0);
  CHECK(rows[1].rfind("0,250,1,ok," + rev + ",", 0) == 0);
}

TEST_CASE("sweep --collect and --resume refuse run files of another revision or scenario (exit 2, naming the file) unless --force") {
  std::string file = sweep_file("f.toml", "[set]\n\"run.duration\" = \"20ms\"\n[axes]\n\"run.seed\" = \"1..3\"\n");
  std::string dir = test::temp_path("foreign");
  REQUIRE(test::run_cli("sweep " + file + " --out " + dir + " --quiet").status == 0);
  REQUIRE(test::run_cli("sweep " + file + " --out " + dir + " --collect --quiet").status == 0);
  std::string one = dir + "/runs/000001.json";
  std::string rev = nlohmann::json::parse(test::read_file(one))["manifest"]["git_revision"];
  edit_file(one, "\"git_revision\": \"" + rev + "\"", "\"git_revision\": \"0123456789ab\"");
  for (const char* mode : {"--collect", "--resume"}) {
    auto r = test::run_cli("sweep " + file + " --out " + dir + " " + mode);
    INFO(mode << ": " << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find(one + " was written by vtick revision 0123456789ab, this is " + rev) != std::string::npos);
    CHECK(r.output.find("--force") != std::string::npos);
  }
  auto forced = test::run_cli("sweep " + file + " --out " + dir + " --collect --force");
  INFO(forced.output);
  CHECK(forced.status == 0);
  CHECK(forced.output.find("warning: " + one + " was written by vtick revision 0123456789ab") != std::string::npos);
  CHECK(lines(test::read_file(dir + "/runs.csv"))[2].find(",ok,0123456789ab,") != std::string::npos);  // the version column tells

  // another scenario: the run file of another configuration in this grid point's place
  std::string dir2 = test::temp_path("foreign2");
  REQUIRE(test::run_cli("sweep " + file + " --out " + dir2 + " --quiet").status == 0);
  std::string other = test::temp_path("other.json");
  REQUIRE(test::run_cli("run " VTICK_SOURCE_DIR "/scenarios/default.toml --duration 20ms --seed 3 --set guest.hz=250 --quiet --json " +
                        other).status == 0);
  std::string three = dir2 + "/runs/000002.json";
  std::ofstream(three, std::ios::binary | std::ios::trunc) << test::read_file(other);
  auto r = test::run_cli("sweep " + file + " --out " + dir2 + " --resume");
  CHECK(r.status == 2);
  CHECK(r.output.find(three + " was written for another scenario") != std::string::npos);
  CHECK(test::run_cli("sweep " + file + " --out " + dir2 + " --resume --force --quiet").status == 0);
}

TEST_CASE("sweep delta.csv: a baseline near zero gives no percentage but the absolute difference") {
  // tick wake-ups of halted vCPUs: none under legacy in the ping-pong, ~1000/s with got_tick
  std::string file = sweep_file("d.toml", "[set]\n\"run.duration\" = \"50ms\"\n[axes]\n\"guest.tick_policy\" = [\"legacy\", \"got_tick\"]\n"
                                          "\"run.seed\" = \"1..2\"\n");
  std::string dir = test::temp_path("delta");
  REQUIRE(test::run_cli("sweep " + file + " --out " + dir + " --quiet").status == 0);
  auto rows = lines(test::read_file(dir + "/delta.csv"));
  REQUIRE(rows.size() == 2);
  auto head = split_fields(rows[0]), row = split_fields(rows[1]);
  auto col = [&](const std::string& name) {
    auto it = std::find(head.begin(), head.end(), name);
    REQUIRE(it != head.end());
    return row[static_cast<size_t>(it - head.begin())];
  };
  CHECK(col("tick_wakeups_per_s_delta_pct_mean").empty());  // n/a: from zero
  CHECK(std::stod(col("tick_wakeups_per_s_delta_mean")) > 100);
  CHECK(!col("ops_per_s_delta_pct_mean").empty());           // a real baseline
  // every pair present: the mean paired difference is the difference of summary.csv's means
  auto srows = lines(test::read_file(dir + "/summary.csv"));
  REQUIRE(srows.size() == 3);
  auto shead = split_fields(srows[0]);
  auto mean_of = [&](std::size_t r) {
    auto it = std::find(shead.begin(), shead.end(), "ops_per_s_mean");
    REQUIRE(it != shead.end());
    return std::stod(split_fields(srows[r])[static_cast<size_t>(it - shead.begin())]);
  };
  CHECK(std::stod(col("ops_per_s_delta_mean")) == Approx(mean_of(2) - mean_of(1)));
}

namespace {

// `vtick ARGS` with extra environment, through the shell
test::CliResult cli_env(const std::string& env, const std::string& args) { return test::run_cli(args, {env}); }

}  // namespace

TEST_CASE("a sweep killed while a run file or sweep.json is written resumes to the tables of an uninterrupted one") {
  std::string file = sweep_file("fk.toml", kGrid);
  std::string whole = test::temp_path("fk-whole");
  test::shell("rm -rf " + whole);
  REQUIRE(test::run_cli("sweep " + file + " --out " + whole + " --quiet").status == 0);
  for (const char* point : {"runs/000000.json", "runs/000004.json", "runs/000008.json", "sweep.json"}) {
    INFO(point);
    std::string cut = test::temp_path("fk-cut");
    test::shell("rm -rf " + cut);
    // SIGKILL once the bytes are in the temporary file, before the rename (cli/output.cpp)
    std::string name = std::string(point).substr(std::string(point).rfind('/') + 1);
    auto r = cli_env("VTICK_FAULT_KILL=" + name + ":1", "sweep " + file + " --out " + cut + " --jobs 1 --quiet");
    CHECK(r.status != 0);
    // the name was never half written: absent, not empty or cut short
    CHECK(access((cut + "/" + point).c_str(), F_OK) != 0);
    const std::string temps = "find " + cut + " -name '*.tmp.*' | grep -q .";
    CHECK(test::shell(temps).status == 0);  // the killed writer's temporary file is there
    r = test::run_cli("sweep " + file + " --out " + cut + " --resume");
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(test::shell(temps).status != 0);  // and gone once the name is written (issue 37 item 7)
    if (name != "sweep.json") CHECK(r.output.find("1 to run") != std::string::npos);  // only the lost point again
    for (const char* t : {"/runs.csv", "/summary.csv", "/delta.csv"}) {
      INFO(t);
      CHECK(test::read_file(cut + t) == test::read_file(whole + t));
    }
  }
}

TEST_CASE("a sweep whose output directory turns read-only fails cleanly and resumes once it is writable again") {
  REQUIRE(geteuid() == 0);  // make test runs as root; the sweep runs as nobody (setpriv): root ignores the mode
  std::string file = sweep_file("ro.toml", kGrid);
  std::string whole = test::temp_path("ro-whole"), cut = test::temp_path("ro-cut");
  test::shell("rm -rf " + whole + " " + cut + " && mkdir -p " + cut + " && chown 65534:65534 " + cut + " && chmod a+r " + file);
  REQUIRE(test::run_cli("sweep " + file + " --out " + whole + " --quiet").status == 0);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    execl("/usr/bin/setpriv", "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", VTICK_BIN, "sweep", file.c_str(), "--out",
          cut.c_str(), "--jobs", "1", "--quiet", static_cast<char*>(nullptr));
    _exit(127);
  }
  auto t0 = std::chrono::steady_clock::now();
  while (count_results(cut) < 3 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  test::shell("chmod 0555 " + cut + "/runs");
  int st = 0;
  waitpid(pid, &st, 0);
  REQUIRE(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 1);  // a failed write: exit 1, no crash
  int kept = count_results(cut);
  CHECK(kept >= 3);
  CHECK(kept < 9);
  test::shell("chmod 0755 " + cut + "/runs");
  auto r = test::run_cli("sweep " + file + " --out " + cut + " --resume");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.find(std::to_string(9 - kept) + " to run") != std::string::npos);
  for (const char* t : {"/runs.csv", "/summary.csv", "/delta.csv"}) {
    INFO(t);
    CHECK(test::read_file(cut + t) == test::read_file(whole + t));
  }
}
