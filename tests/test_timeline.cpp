// cli/timeline: what the SVG says about a trace: a colour and a label per instant kind,
// the host C-states told apart with the state reached, hover text on every slice.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "helpers.hpp"

using namespace vtick;
using json = nlohmann::json;

namespace {

const std::string kTeach = VTICK_SOURCE_DIR "/scenarios/teach/wakeup.toml";

// The teaching scenario's trace (20 ms, every kind of exit, poll, block and tick) and its
// counters.
struct Teach {
  std::string trace = test::temp_path("teach.json"), metrics = test::temp_path("teach-m.json");
  json d, m;
  Teach() {
    auto r = test::run_cli("run " + kTeach + " --quiet --trace " + trace + " --json " + metrics);
    REQUIRE(r.status == 0);
    d = json::parse(test::read_file(trace));
    m = json::parse(test::read_file(metrics))["metrics"];
  }
};

std::string timeline(const std::string& trace, const std::string& extra = "") {
  std::string svg = test::temp_path("t.svg");
  auto r = test::run_cli("timeline " + trace + " --svg " + svg + extra);
  INFO(r.output);
  REQUIRE(r.status == 0);
  return test::read_file(svg);
}

// A trace file in vtick's format with the given events.
std::string trace_file(const std::string& events) {
  std::string path = test::temp_path("hand.json");
  std::ofstream(path) << R"J({"otherData": {"tool": "vtick", "scenario": "hand", "seed": 1, "window_start_ns": 0,
    "window_end_ns": 300000}, "traceEvents": [
    {"ph": "M", "pid": 1, "tid": 0, "name": "process_name", "args": {"name": "host"}},
    {"ph": "M", "pid": 1, "tid": 100, "name": "thread_name", "args": {"name": "pCPU0 (core0.t0)"}})J"
                      << events << "]}\n";
  return path;
}

// kind -> the colours its instant marks are drawn in
std::map<std::string, std::set<std::string>> instant_colors(const std::string& svg) {
  std::map<std::string, std::set<std::string>> out;
  std::regex re("<g class=\"instant\" data-kind=\"([^\"]+)\" stroke=\"(#[0-9a-f]{6})\" fill=\"(#[0-9a-f]{6})\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) {
    CHECK((*it)[2] == (*it)[3]);
    out[(*it)[1]].insert((*it)[2]);
  }
  return out;
}

}  // namespace

TEST_CASE("timeline: each instant kind of the trace has one colour of its own and a legend entry, no other") {
  Teach t;
  std::set<std::string> kinds;
  for (const auto& e : t.d["traceEvents"])
    if (e["ph"] == "i") kinds.insert(e["name"].get<std::string>());
  REQUIRE(kinds.size() >= 10);  // ticks, timers, IPIs, interrupt entries, KVM wake-ups
  std::string svg = timeline(t.trace);
  auto colors = instant_colors(svg);
  std::set<std::string> drawn, used;
  for (const auto& [kind, cs] : colors) {
    INFO(kind);
    drawn.insert(kind);
    CHECK(cs.size() == 1);
    used.insert(*cs.begin());
  }
  CHECK(drawn == kinds);
  CHECK(used.size() == kinds.size());  // no colour stands for two kinds
  // the legend: one entry per kind present, in the colour of its marks
  std::regex re("<g class=\"legend-instant\"[^>]*><path d=\"[^\"]*\" fill=\"(#[0-9a-f]{6})\"/>.*?<text x=\"18\" y=\"10\">instant: ([^<\\[]+?)(?: \\[[^\\]]*\\])?</text>");  // "name [brief]"
  std::set<std::string> listed;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) {
    INFO((*it)[2]);
    listed.insert((*it)[2]);
    REQUIRE(colors.count((*it)[2]));
    CHECK(*colors[(*it)[2]].begin() == (*it)[1]);
  }
  CHECK(listed == kinds);
  // a window shows only what happens in it, in the same colours
  std::string zoom = timeline(t.trace, " --window 700us:730us");
  auto zc = instant_colors(zoom);
  CHECK(zc.size() < kinds.size());
  for (const auto& [kind, cs] : zc) CHECK(cs == colors[kind]);
  CHECK(zoom.find("instant: tick_stop") == std::string::npos);  // no tick_stop in the window
}

TEST_CASE("timeline: instant marks carry their name beside them and their args as hover text") {
  Teach t;
  std::string zoom = timeline(t.trace, " --window 700us:730us");
  // the IPI that wakes vCPU1: sent by vCPU0, accepted by KVM (the short form: the
  // wake-up follows 2 us later), vCPU1 woken, the interrupt entered by the guest
  for (const char* label : {">ipi_send_cpu</text>", ">accept</text>", ">kvm_vcpu_wakeup</text>", ">call_function_single_entry</text>"})
    CHECK(zoom.find(label) != std::string::npos);
  CHECK(zoom.find("<title>ipi_send_cpu callsite=ttwu_queue_wakelist cpu=1 vector=call_function at ") != std::string::npos);
  // the whole run: marks a few pixels apart get the short form or no label, never overlap
  std::string all = timeline(t.trace);
  CHECK(all.find(">expired</text>") != std::string::npos);  // apic_timer_expired's short form
  std::regex re("<text x=\"([0-9.]+)\" y=\"([0-9.]+)\" font-size=\"8\" fill=\"#333333\">([^<]*)</text>");
  std::map<std::string, double> line_end;  // y -> where the last label ends
  int labels = 0;
  for (auto it = std::sregex_iterator(all.begin(), all.end(), re); it != std::sregex_iterator(); ++it) {
    double x = std::stod((*it)[1]);
    std::string y = (*it)[2];
    if (line_end.count(y)) CHECK(x >= line_end[y]);
    line_end[y] = x + 4.7 * static_cast<double>((*it)[3].length());
    ++labels;
  }
  CHECK(labels > 50);
}

TEST_CASE("timeline: the hardware-thread lane shows the C-state reached as well as the one requested") {
  Teach t;
  // The trace: each idle period the host woke from names the state it left, as the
  // counters count them (vCPU1's pCPU asks for C6, its busy sibling keeps the core in C1).
  std::map<std::string, int> reached;
  for (const auto& e : t.d["traceEvents"])
    if (e["ph"] == "X" && e.contains("args") && e["args"].contains("reached"))
      ++reached["pcpu" + std::to_string(e["tid"].get<int>() - 100) + ".wakeups_from." + e["args"]["reached"].get<std::string>()];
  REQUIRE(!reached.empty());
  for (const auto& [k, v] : t.m.items())
    if (k.find(".wakeups_from.") != std::string::npos) {
      INFO(k);
      CHECK(reached[k] == v.get<int>());
    }
  REQUIRE(t.m["pcpu1.wakeups_from.C1"] == 17);  // 15 wake-ups of the worker, 2 nohz kicks
  REQUIRE(t.m["pcpu1.idle_choices.C6"] == 18);
  // The SVG: drawn as C1, with a band of the C6 asked for, said in words.
  std::string svg = timeline(t.trace);
  CHECK(svg.find("<title>idle: C6 requested, C1 reached: ") != std::string::npos);
  CHECK(svg.find(">C1 (C6 req.)</text>") != std::string::npos);
  CHECK(svg.find("pCPU: idle in C1") != std::string::npos);
  CHECK(svg.find("pCPU: top band: a deeper C-state requested") != std::string::npos);
  // the last idle period runs past the end of the run: what it reached is unknown
  CHECK(svg.find("<title>idle: C6 requested, the state reached is not in the trace: ") != std::string::npos);
}

TEST_CASE("timeline: C1, C1E and C6 differ in fill and carry their names") {
  std::string path = trace_file(R"(,
    {"ph": "X", "pid": 1, "tid": 100, "ts": 0, "dur": 90, "name": "idle C1", "cat": "hw.idle_c1"},
    {"ph": "X", "pid": 1, "tid": 100, "ts": 100, "dur": 90, "name": "idle C1E", "cat": "hw.idle_c1e", "args": {"reached": "C1E"}},
    {"ph": "X", "pid": 1, "tid": 100, "ts": 200, "dur": 90, "name": "idle C6", "cat": "hw.idle_c6", "args": {"reached": "C6"}})");
  std::string svg = timeline(path);
  std::regex re("<g class=\"slice\" data-cat=\"hw.idle_(c1|c1e|c6)\"><title>([^<]*)</title><rect [^>]* fill=\"([^\"]+)\"/>");
  std::map<std::string, std::string> fill, title;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) {
    fill[(*it)[1]] = (*it)[3];
    title[(*it)[1]] = (*it)[2];
  }
  REQUIRE(fill.size() == 3);
  CHECK(fill["c1"] != fill["c1e"]);
  CHECK(fill["c1e"] != fill["c6"]);
  CHECK(fill["c1"] != fill["c6"]);
  CHECK(title["c1"].rfind("idle: C1 requested and reached", 0) == 0);  // C1 is the shallowest: no band needed
  CHECK(title["c1e"].rfind("idle: C1E requested and reached", 0) == 0);
  CHECK(title["c6"].rfind("idle: C6 requested and reached", 0) == 0);
  for (const char* label : {">idle C1</text>", ">idle C1E</text>", ">idle C6</text>", ">pCPU: idle in C1<", ">pCPU: idle in C1E<",
                            ">pCPU: idle in C6<"})
    CHECK(svg.find(label) != std::string::npos);
  CHECK(svg.find("top band") == std::string::npos);  // each reached what it asked for
}

TEST_CASE("timeline: every slice and instant has hover text, narrow exit slices are named by their reason") {
  Teach t;
  std::string svg = timeline(t.trace);
  std::size_t slices = 0, titled = 0;
  for (std::size_t p = 0; (p = svg.find("<g class=\"slice\"", p)) != std::string::npos; ++p, ++slices)
    if (svg.compare(svg.find('>', p) + 1, 7, "<title>") == 0) ++titled;
  CHECK(slices > 500);
  CHECK(titled == slices);
  std::size_t instants = 0, ititled = 0;
  for (std::size_t p = 0; (p = svg.find("<g class=\"instant\"", p)) != std::string::npos; ++p, ++instants)
    if (svg.compare(svg.find('>', p) + 1, 7, "<title>") == 0) ++ititled;
  CHECK(instants > 200);
  CHECK(ititled == instants);
  // exits a pixel or two wide over 20 ms: the reason is in the hover text
  std::regex re("<g class=\"slice\" data-cat=\"kvm.exit\"><title>([^<]*)</title><rect x=\"[0-9.]+\" y=\"[0-9.]+\" width=\"([0-9.]+)\"");
  std::set<std::string> narrow;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it)
    if (std::stod((*it)[2]) < 3) narrow.insert((*it)[1].str().substr(0, (*it)[1].str().find(':')));
  INFO(narrow.size());
  CHECK(narrow.count("kvm_exit HLT"));
  CHECK(narrow.count("kvm_exit MSR_WRITE TSC_DEADLINE"));
  // and visible where it fits: the close-up of the wake-up names the ICR write and LVTT
  std::string zoom = timeline(t.trace, " --window 700us:730us");
  CHECK(zoom.find(">ICR</text>") != std::string::npos);
  CHECK(zoom.find(">LVTT</text>") != std::string::npos);
}

TEST_CASE("timeline: instant kinds it does not know get colours of their own, the same each time") {
  std::string path = trace_file(R"(,
    {"ph": "i", "pid": 1, "tid": 100, "ts": 10, "name": "zz_new", "cat": "x", "s": "t"},
    {"ph": "i", "pid": 1, "tid": 100, "ts": 20, "name": "aa_new", "cat": "x", "s": "t"},
    {"ph": "i", "pid": 1, "tid": 100, "ts": 30, "name": "tick", "cat": "tick.tick", "s": "t"})");
  std::string svg = timeline(path);
  auto c = instant_colors(svg);
  REQUIRE(c.size() == 3);
  CHECK(c["aa_new"] != c["zz_new"]);
  CHECK(c["aa_new"] != c["tick"]);
  CHECK(c["zz_new"] != c["tick"]);
  CHECK(svg == timeline(path));
}
