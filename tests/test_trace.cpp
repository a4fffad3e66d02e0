// sim/trace_writer + cli/timeline: Perfetto JSON and ftrace traces of a run, and the SVG
// timelines of docs/tutorial.md.
#include <catch2/catch.hpp>
#include <cmath>
#include <dirent.h>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "core/sg.hpp"
#include "helpers.hpp"
#include "platform/sg_platform.hpp"
#include "sim/trace_dat.hpp"
#include "sim/trace_writer.hpp"

using namespace vtick;
using json = nlohmann::json;

namespace {

const std::string kDefault = VTICK_SOURCE_DIR "/scenarios/default.toml";

long long ns(const json& us) { return std::llround(us.get<double>() * 1000.0); }

// The structural rules every vtick trace keeps; returns the X slices by (pid, tid).
std::map<std::pair<int, int>, std::vector<std::pair<long long, long long>>> check_structure(const json& d) {
  REQUIRE(d["displayTimeUnit"] == "ns");
  REQUIRE(d["otherData"]["tool"] == "vtick");
  std::set<std::pair<int, int>> named;
  std::set<int> processes;
  for (const auto& e : d["traceEvents"])
    if (e["ph"] == "M") {
      REQUIRE(e["args"]["name"].is_string());
      if (e["name"] == "thread_name") named.insert({e["pid"].get<int>(), e["tid"].get<int>()});
      if (e["name"] == "process_name") processes.insert(e["pid"].get<int>());
    }
  CHECK(processes == std::set<int>{1, 101});
  std::map<std::pair<int, int>, std::vector<std::pair<long long, long long>>> slices;
  long long last_ts = -1;
  for (const auto& e : d["traceEvents"]) {
    std::string ph = e["ph"];
    if (ph == "M") continue;
    INFO(e.dump());
    REQUIRE(e["ts"].is_number());
    REQUIRE(ns(e["ts"]) >= last_ts);  // written in time order
    last_ts = ns(e["ts"]);
    CHECK(processes.count(e["pid"].get<int>()));
    if (ph == "X") {
      REQUIRE(e["dur"].is_number());
      CHECK(ns(e["dur"]) > 0);
      CHECK(named.count({e["pid"], e["tid"]}));
      CHECK(e["name"].is_string());
      CHECK(e["cat"].is_string());
      slices[{e["pid"], e["tid"]}].push_back({ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])});
    } else if (ph == "i") {
      CHECK(e["s"] == "t");
      CHECK(named.count({e["pid"], e["tid"]}));
    } else if (ph == "C") {
      REQUIRE(e["args"].is_object());
      CHECK(e["args"].size() == 1);
      for (const auto& [k, v] : e["args"].items()) CHECK(v.is_number());
    } else {
      FAIL("unexpected phase " << ph);
    }
  }
  for (auto& [track, v] : slices) {
    std::sort(v.begin(), v.end());
    for (std::size_t i = 1; i < v.size(); ++i) {
      INFO("pid " << track.first << " tid " << track.second << " at " << v[i].first);
      CHECK(v[i].first >= v[i - 1].second);  // X slices on one track never overlap
    }
  }
  return slices;
}

std::size_t count(const json& d, const std::string& ph, const std::string& name) {
  std::size_t n = 0;
  for (const auto& e : d["traceEvents"])
    if (e["ph"] == ph && e["name"] == name) ++n;
  return n;
}

double metric(const json& m, const std::string& key) { return m["metrics"][key].get<double>(); }

ModelEvent state_event(sim_ns t, int cpu, int state) {
  return model_event(t, cpu, ev::guest_cpu_state{static_cast<GuestCpuState>(state)});
}

}  // namespace

TEST_CASE("trace: --trace writes Perfetto JSON: named tracks, non-overlapping slices, the run's counters") {
  std::string t = test::temp_path("t.json"), j = test::temp_path("m.json");
  auto r = test::run_cli("run " + kDefault + " --duration 30ms --quiet --trace " + t + " --json " + j);
  REQUIRE(r.status == 0);
  json d = json::parse(test::read_file(t)), m = json::parse(test::read_file(j));
  auto slices = check_structure(d);
  CHECK(slices.size() >= 12);  // 2 pCPUs, 2 vCPU threads, 3 tracks per vCPU, 2 tasks
  // what the trace shows is what the counters count
  CHECK(count(d, "X", "kvm_exit HLT") == metric(m, "vcpu0.exits.hlt") + metric(m, "vcpu1.exits.hlt"));
  // each tick_nohz_idle_stop_tick() that stops (or keeps stopped) the tick: the trace comes
  // before the count, as the kernel orders them, so a vCPU still inside that timer write's
  // exit when the run ends has one more instant than count
  double sleeps = metric(m, "vcpu0.tick.idle_sleeps") + metric(m, "vcpu1.tick.idle_sleeps");
  double stops = static_cast<double>(count(d, "i", "tick_stop"));
  CHECK(stops >= sleeps);
  CHECK(stops <= sleeps + 2);
  CHECK(count(d, "i", "tick_restart") == metric(m, "vcpu0.tick.restarts") + metric(m, "vcpu1.tick.restarts"));
  CHECK(count(d, "i", "ipi_send_cpu") == metric(m, "vcpu0.exits.ipi") + metric(m, "vcpu1.exits.ipi"));
  std::size_t exits = 0;
  for (const auto& e : d["traceEvents"])
    if (e["ph"] == "X" && e["name"].get<std::string>().rfind("kvm_exit ", 0) == 0) ++exits;
  CHECK(exits == metric(m, "vcpu0.exits.total") + metric(m, "vcpu1.exits.total"));
  // the tick counter goes to 1 at each stop and back to 0 at each restart
  std::set<long long> tick_values;
  for (const auto& e : d["traceEvents"])
    if (e["ph"] == "C" && e["name"] == "vCPU1 tick") tick_values.insert(e["args"]["stopped"].get<long long>());
  CHECK(tick_values == std::set<long long>{0, 1});
  CHECK(count(d, "X", "ping") > 100);  // the sched track names the task
}

TEST_CASE("trace: tracing changes nothing in the run, and the trace is the same with run.quantum on and off") {
  // under both schedulers, tracing changes no counter
  for (const char* s : {"vtick", "simgrid"}) {
    INFO(s);
    std::string a = test::temp_path("a.json"), b = test::temp_path("b.json"), set = std::string(" --set run.scheduler=") + s;
    REQUIRE(test::run_cli("run " + kDefault + set + " --duration 50ms --quiet --json " + a).status == 0);
    REQUIRE(test::run_cli("run " + kDefault + set + " --duration 50ms --quiet --json " + b + " --trace " + test::temp_path("t.json") +
                          " --ftrace " + test::temp_path("f.txt") + " --events " + test::temp_path("ev.txt")).status == 0);
    CHECK(json::parse(test::read_file(a))["metrics"] == json::parse(test::read_file(b))["metrics"]);
  }
  // SimGrid's scheduler with run-ahead delivers events out of global order; the trace does not show it
  std::string ta = test::temp_path("ta.json"), tb = test::temp_path("tb.json");
  std::string fa = test::temp_path("fa.txt"), fb = test::temp_path("fb.txt");
  std::string da = test::temp_path("da.dat"), db = test::temp_path("db.dat");
  REQUIRE(test::run_cli("run " + kDefault + " --set run.scheduler=simgrid --duration 50ms --quiet --trace " + ta + " --ftrace " + fa +
                        " --trace-dat " + da).status == 0);
  REQUIRE(test::run_cli("run " + kDefault + " --set run.scheduler=simgrid --duration 50ms --quiet --set run.quantum=0ns --trace " + tb +
                        " --ftrace " + fb + " --trace-dat " + db).status == 0);
  CHECK(test::read_file(ta) == test::read_file(tb));
  CHECK(test::read_file(fa) == test::read_file(fb));
  CHECK(test::read_file(da) == test::read_file(db));
  CHECK(test::read_file(test::temp_path("da-vm0.dat")) == test::read_file(test::temp_path("db-vm0.dat")));
}

TEST_CASE("trace: --trace-window writes only the window, slices clipped to it") {
  std::string full = test::temp_path("full.json"), win = test::temp_path("win.json");
  REQUIRE(test::run_cli("run " + kDefault + " --duration 20ms --quiet --trace " + full).status == 0);
  REQUIRE(test::run_cli("run " + kDefault + " --duration 20ms --quiet --trace " + win + " --trace-window 5ms:7ms").status == 0);
  json f = json::parse(test::read_file(full)), w = json::parse(test::read_file(win));
  auto wslices = check_structure(w);
  CHECK(w["otherData"]["window_start_ns"] == 5000000);
  CHECK(w["otherData"]["window_end_ns"] == 7000000);
  for (const auto& e : w["traceEvents"]) {
    if (e["ph"] == "M") continue;
    CHECK(ns(e["ts"]) >= 5000000);
    CHECK(ns(e["ts"]) + (e.contains("dur") ? ns(e["dur"]) : 0) <= 7000000);
  }
  // exactly the full trace's slices cut to the window
  std::map<std::pair<int, int>, std::vector<std::pair<long long, long long>>> expect;
  for (const auto& e : f["traceEvents"])
    if (e["ph"] == "X") {
      long long b = std::max(ns(e["ts"]), 5000000LL), en = std::min(ns(e["ts"]) + ns(e["dur"]), 7000000LL);
      if (en > b) expect[{e["pid"], e["tid"]}].push_back({b, en});
    }
  for (auto& [k, v] : expect) std::sort(v.begin(), v.end());
  CHECK(wslices == expect);
  // counters start the window with their value there
  std::set<std::string> at_start;
  for (const auto& e : w["traceEvents"])
    if (e["ph"] == "C" && ns(e["ts"]) == 5000000) at_start.insert(e["name"]);
  CHECK(at_start.count("vCPU0 tick"));
  CHECK(at_start.count("vCPU1 kvm"));
}

TEST_CASE("trace: bad --trace-window, a window without a trace and unwritable paths are refused (exit 2)") {
  std::string t = test::temp_path("t.json");
  auto r = test::run_cli("run " + kDefault + " --duration 5ms --quiet --trace " + t + " --trace-window 5ms");
  CHECK(r.status == 2);
  CHECK(r.output.find("--trace-window") != std::string::npos);
  CHECK(r.output.find("START:END") != std::string::npos);
  r = test::run_cli("run " + kDefault + " --duration 5ms --quiet --trace " + t + " --trace-window 3ms:1ms");
  CHECK(r.status == 2);
  CHECK(r.output.find("END must be after START") != std::string::npos);
  r = test::run_cli("run " + kDefault + " --duration 5ms --quiet --trace " + t + " --trace-window 6ms:");
  CHECK(r.status == 2);
  CHECK(r.output.find("after the end of the run") != std::string::npos);
  r = test::run_cli("run " + kDefault + " --duration 5ms --quiet --trace-window 1ms:2ms");
  CHECK(r.status == 2);
  CHECK(r.output.find("needs --trace") != std::string::npos);
  r = test::run_cli("run " + kDefault + " --duration 5ms --quiet --ftrace /nonexistent-dir/t.txt");
  CHECK(r.status == 2);
  CHECK(r.output.find("cannot write /nonexistent-dir/t.txt") != std::string::npos);
  r = test::run_cli("run " + kDefault + " --duration 5ms --quiet --trace-dat /nonexistent-dir/t.dat");
  CHECK(r.status == 2);
  CHECK(r.output.find("cannot write /nonexistent-dir/t.dat") != std::string::npos);
}

TEST_CASE("trace: a run that fails midway still gives a complete, parseable trace") {
  Scenario sc = test::scenario("[run]\nduration = \"10ms\"\n");
  TraceWriter w;
  SimHooks hooks;
  hooks.sink = &w;
  hooks.vm_setup = [&](Kvm& vm, GuestKernel& k) { w.describe(trace_topology(sc, vm, k)); };
  hooks.host_setup = [](Machine& m) {
    spawn_actor("thrower", m.threads[0]->host(), [] {
      sleep_until(2 * NSEC_PER_MSEC);
      throw std::runtime_error("model invariant broken");
    });
  };
  RunResult r = run_simulation(sc, hooks);
  REQUIRE(r.failed);
  w.finish(-1);
  json d = json::parse(w.json());
  check_structure(d);
  long long end = d["otherData"]["window_end_ns"];
  CHECK(end > 1500000);  // the last event before the failure at 2 ms
  CHECK(end < 10000000);
  CHECK(count(d, "X", "busy") + count(d, "X", "idle loop") > 0);
  CHECK(w.ftrace().rfind("# tracer: nop\n", 0) == 0);
  std::vector<FtraceEvent> records = w.ftrace_events();
  for (bool host : {true, false}) CHECK(trace_dat_check(trace_dat_bytes(w, records, host), trace_dat_records(records, host)) == "");
}

TEST_CASE("trace: events from behind (out of global order) never make slices overlap") {
  auto feed = [](TraceWriter& w, std::vector<ModelEvent> evs) {
    for (const auto& e : evs) w.on_event(e);
    w.finish(-1);
    return json::parse(w.json());
  };
  std::vector<ModelEvent> ordered, shuffled;
  for (int i = 0; i < 200; ++i) {
    sim_ns t = i * 1000;
    ordered.push_back(state_event(t, 0, i % 5));
    ordered.push_back(state_event(t + 500, 1, (i + 2) % 5));
  }
  // each actor's own events stay in order, the two interleave out of time order
  for (int i = 0; i < 200; ++i) shuffled.push_back(ordered[static_cast<std::size_t>(2 * i + 1)]);
  for (int i = 0; i < 200; ++i) shuffled.push_back(ordered[static_cast<std::size_t>(2 * i)]);
  TraceWriter a, b;
  json ja = feed(a, ordered), jb = feed(b, shuffled);
  check_structure(jb);
  CHECK(ja == jb);  // re-ordered within TraceWriter::kReorderNs: the same trace
  // later than the re-order window: still one slice at a time per track
  TraceWriter c;
  std::vector<ModelEvent> late = {state_event(50 * NSEC_PER_MSEC, 0, 0), state_event(80 * NSEC_PER_MSEC, 0, 1),
                                  state_event(10 * NSEC_PER_MSEC, 0, 2), state_event(90 * NSEC_PER_MSEC, 0, 3)};
  check_structure(feed(c, late));
}

TEST_CASE("timeline: an SVG with a lane per track and a legend, the same bytes each time, bad input exits 2") {
  std::string t = test::temp_path("t.json"), s1 = test::temp_path("1.svg"), s2 = test::temp_path("2.svg");
  REQUIRE(test::run_cli("run " + kDefault + " --duration 5ms --quiet --trace " + t).status == 0);
  REQUIRE(test::run_cli("timeline " + t + " --svg " + s1).status == 0);
  REQUIRE(test::run_cli("timeline " + t + " --svg " + s2).status == 0);
  std::string svg = test::read_file(s1);
  CHECK(svg == test::read_file(s2));
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.size() > 10000);
  for (const char* lane : {"pCPU0 (core0.t0)", "vCPU1 thread (KVM)", "vCPU1 tick", "ping (pid 1)", "vCPU1 tick stopped"})
    CHECK(svg.find(std::string(">") + lane + "<") != std::string::npos);
  CHECK(svg.find(">Legend<") != std::string::npos);
  CHECK(svg.find("vCPU thread: exit, block, wake-up paths") != std::string::npos);
  CHECK(svg.find("instant: tick_stop") != std::string::npos);
  CHECK(svg.find(">5 ms<") != std::string::npos);  // the axis reaches the end of the run
  // a window: its own axis
  REQUIRE(test::run_cli("timeline " + t + " --svg " + s2 + " --window 1ms:1.1ms").status == 0);
  std::string zoom = test::read_file(s2);
  CHECK(zoom.find(">1000 us<") != std::string::npos);
  CHECK(zoom.find(">1100 us<") != std::string::npos);
  CHECK(zoom.find(" ms<") == std::string::npos);

  auto r = test::run_cli("timeline /nonexistent.json --svg " + s2);
  CHECK(r.status == 2);
  CHECK(r.output.find("cannot read /nonexistent.json") != std::string::npos);
  std::string other = test::temp_path("other.json");
  {
    std::ofstream f(other);
    f << R"({"traceEvents": [{"ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 1, "name": "a"}]})";
  }
  r = test::run_cli("timeline " + other + " --svg " + s2);
  CHECK(r.status == 2);
  CHECK(r.output.find("not a trace written by vtick") != std::string::npos);
  {
    std::ofstream f(other);
    f << "{\"traceEvents\": [";
  }
  r = test::run_cli("timeline " + other + " --svg " + s2);
  CHECK(r.status == 2);
  CHECK(r.output.find("not JSON") != std::string::npos);
  r = test::run_cli("timeline " + t + " --svg " + s2 + " --window 2ms");
  CHECK(r.status == 2);
  CHECK(r.output.find("--window") != std::string::npos);
}

static std::set<std::string> svgs(const std::string& dir) {
  std::set<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.rfind("tutorial-", 0) == 0 && n.size() > 4 && n.substr(n.size() - 4) == ".svg") out.insert(n);
    }
    closedir(d);
  }
  return out;
}

TEST_CASE("docs/img carries the current timelines of docs/tutorial.md") {
  std::string out = test::temp_path("img");
  std::string cmd = std::string("cd " VTICK_SOURCE_DIR " && VTICK=" VTICK_BIN " OUT=") + out +
                    " bash scripts/update-tutorial.sh >/dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string tutorial = test::read_file(VTICK_SOURCE_DIR "/docs/tutorial.md");
  INFO("run scripts/update-tutorial.sh");
  auto fresh = svgs(out);
  CHECK(fresh.size() >= 4);
  CHECK(svgs(VTICK_SOURCE_DIR "/docs/img") == fresh);
  for (const auto& name : fresh) {
    INFO(name);
    CHECK(test::read_file(VTICK_SOURCE_DIR "/docs/img/" + name) == test::read_file(out + "/" + name));
    CHECK(tutorial.find("img/" + name) != std::string::npos);
  }
}

TEST_CASE("trace: the teaching scenario under got_tick: every instant the tutorial reads matches its counter") {
  std::string t = test::temp_path("teach.json"), j = test::temp_path("teach-m.json");
  auto r = test::run_cli("run " VTICK_SOURCE_DIR "/scenarios/teach/wakeup.toml --set guest.tick_policy=got_tick --quiet --trace " +
                         t + " --json " + j);
  REQUIRE(r.status == 0);
  json d = json::parse(test::read_file(t)), m = json::parse(test::read_file(j));
  check_structure(d);
  auto both = [&](const std::string& k) { return metric(m, "vcpu0." + k) + metric(m, "vcpu1." + k); };
  REQUIRE(both("kvm.halt_poll_grow") > 0);
  REQUIRE(both("kvm.halt_poll_shrink") > 0);
  REQUIRE(both("tick.retains") > 0);
  CHECK(count(d, "i", "kvm_halt_poll_ns grow") == both("kvm.halt_poll_grow"));
  CHECK(count(d, "i", "kvm_halt_poll_ns shrink") == both("kvm.halt_poll_shrink"));
  CHECK(count(d, "i", "tick_retain") == both("tick.retains"));
  CHECK(count(d, "i", "tick_stop") == both("tick.idle_sleeps"));
  CHECK(count(d, "i", "apic_timer_expired") == both("host.guest_timer_fired"));
  CHECK(count(d, "i", "clockevent_write") == both("clockevent.deadline_writes") + both("clockevent.control_writes"));
  CHECK(count(d, "i", "ipi_send_cpu") == both("exits.ipi"));
}

TEST_CASE("trace: a slice never ends after the next one on its track starts, in floating point or in Perfetto's integer ns") {
  std::string t = test::temp_path("teach-f.json");
  REQUIRE(test::run_cli("run " VTICK_SOURCE_DIR "/scenarios/teach/wakeup.toml --quiet --trace " + t).status == 0);
  json d = json::parse(test::read_file(t));
  check_structure(d);
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
  for (const auto& e : d["traceEvents"])
    if (e["ph"] == "X") slices[{e["pid"], e["tid"]}].push_back({e["ts"].get<double>(), e["dur"].get<double>()});
  std::size_t adjacent = 0;
  // Perfetto's json_utils CoerceToTs(): int64(us * 1000), a truncation
  auto perfetto_ns = [](double us) { return static_cast<long long>(us * 1000.0); };
  for (auto& [track, v] : slices) {
    std::sort(v.begin(), v.end());
    for (std::size_t i = 1; i < v.size(); ++i) {
      auto [ts, dur] = v[i - 1];
      double next = v[i].first;
      INFO("pid " << track.first << " tid " << track.second << ": " << ts << " + " << dur << " vs " << next);
      CHECK(ts + dur <= next);
      CHECK(perfetto_ns(ts) + perfetto_ns(dur) <= perfetto_ns(next));
      CHECK(std::llround((ts + dur) * 1000.0) <= std::llround(next * 1000.0));
      adjacent += std::llround((ts + dur) * 1000.0) == std::llround(next * 1000.0);
    }
  }
  CHECK(adjacent > 500);  // most slices end where the next begins: the case that nests
}

TEST_CASE("run --events: one line per model event with its declared fields by name, the same bytes each run") {
  std::string e1 = test::temp_path("e1.txt"), e2 = test::temp_path("e2.txt"), j = test::temp_path("e.json");
  REQUIRE(test::run_cli("run " VTICK_SOURCE_DIR "/scenarios/teach/wakeup.toml --quiet --events " + e1 + " --json " + j).status == 0);
  REQUIRE(test::run_cli("run " VTICK_SOURCE_DIR "/scenarios/teach/wakeup.toml --quiet --events " + e2).status == 0);
  std::string text = test::read_file(e1);
  CHECK(text == test::read_file(e2));  // pointer fields are written as their order of appearance
  json m = json::parse(test::read_file(j));
  std::istringstream in(text);
  std::size_t hlt = 0, halts = 0, lines = 0;
  std::regex line(R"(^\d+\.\d{9} cpu-?\d+ [a-z_]+( [a-z_]+=\S.*)?$)");
  for (std::string l; std::getline(in, l);) {
    ++lines;
    INFO(l);
    CHECK(std::regex_match(l, line));
    hlt += l.find(" kvm_exit reason=HLT") != std::string::npos;
    if (l.find(" kvm_vcpu_halt ") != std::string::npos) {
      ++halts;
      CHECK(std::regex_search(l, std::regex(R"( kvm_vcpu_halt halt_poll_ns=\d+ poll_allowed=[01]$)")));
    }
  }
  CHECK(lines > 1000);
  CHECK(hlt == metric(m, "vcpu0.exits.hlt") + metric(m, "vcpu1.exits.hlt"));
  CHECK(halts > 0);
  CHECK(text.find(" hrtimer_start hrtimer=#0 function=tick_nohz_handler expires=") != std::string::npos);
}
