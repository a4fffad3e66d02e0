// cli/plot: the figures of a sweep over any key, drawn by gnuplot.
#include <catch2/catch.hpp>
#include <fstream>
#include <regex>

#include "helpers.hpp"

using namespace vtick;

namespace {

// A sweep of the default scenario (100 ms a run, a fraction of a second in all) in DIR.
std::string small_sweep(const std::string& name, const std::string& axes) {
  std::string file = test::temp_path(name + ".toml"), dir = test::temp_path(name);
  std::ofstream(file) << "scenario = \"" VTICK_SOURCE_DIR "/scenarios/default.toml\"\n[set]\n\"run.duration\" = \"100ms\"\n[axes]\n"
                      << axes;
  auto r = test::run_cli("sweep " + file + " --out " + dir + " --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  return dir;
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// In each of gnuplot's plot groups (a line and its legend entry), the legend's label is
// right of every point: outside the plot area.
void legend_off_the_data(const std::string& svg) {
  std::regex group("<g id=\"gnuplot_plot_[0-9]+[a-z]*\" >");
  std::regex label("<g transform=\"translate\\(([0-9.]+),[0-9.]+\\)\"[^>]*>\\s*<text>");
  std::regex point("<use xlink:href='#gpPt[0-9]+' transform='translate\\(([0-9.]+),");
  auto begin = std::sregex_iterator(svg.begin(), svg.end(), group);
  std::vector<std::size_t> starts;
  for (auto it = begin; it != std::sregex_iterator(); ++it) starts.push_back(static_cast<std::size_t>(it->position()));
  REQUIRE(!starts.empty());
  starts.push_back(svg.size());
  int checked = 0;
  for (std::size_t i = 0; i + 1 < starts.size(); ++i) {
    std::string g = svg.substr(starts[i], starts[i + 1] - starts[i]);
    std::smatch l;
    if (!std::regex_search(g, l, label)) continue;  // an unnamed line
    double lx = std::stod(l[1]);
    for (auto it = std::sregex_iterator(g.begin(), g.end(), point); it != std::sregex_iterator(); ++it) {
      double px = std::stod((*it)[1]);
      if (px > lx - 60 && px < lx + 60) CHECK(px > lx);  // the legend's own sample point sits right of its label
      else CHECK(px < lx);
      ++checked;
    }
  }
  CHECK(checked > 0);
}

// `vtick plot DIR ARGS` must succeed; the text of its FIGURE (under DIR/plots).
std::string plotted(const std::string& dir, const std::string& args, const std::string& figure) {
  auto r = test::run_cli("plot " + dir + args);
  INFO(r.output);
  REQUIRE(r.status == 0);
  return test::read_file(dir + "/plots/" + figure);
}
}  // namespace

TEST_CASE("vtick plot: a sweep over a key other than HZ gets the metric and two counters against it") {
  std::string dir = small_sweep("hp", "\"host.kvm.halt_poll_ns\" = [0, 200000]\n\"run.seed\" = \"1..2\"\n");
  auto r = test::run_cli("plot " + dir);
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const char* f : {"ops_vs_host_kvm_halt_poll_ns", "counters_vs_host_kvm_halt_poll_ns"}) {
    INFO(f);
    std::string svg = test::read_file(dir + "/plots/" + f + ".svg");
    CHECK(has(svg, "</svg>"));
    CHECK(test::read_file(dir + "/plots/" + f + ".png").substr(0, 4) == "\x89PNG");
    CHECK(has(svg, "<text>host.kvm.halt_poll_ns</text>"));  // the x axis is the swept key
    CHECK(has(svg, "<text>200000</text>"));                 // at its values
  }
  std::string ops = test::read_file(dir + "/plots/ops_vs_host_kvm_halt_poll_ns.svg");
  std::string cnt = test::read_file(dir + "/plots/counters_vs_host_kvm_halt_poll_ns.svg");
  CHECK(has(ops, "round trips/s vs host.kvm.halt_poll_ns"));
  CHECK(has(cnt, "exits_per_s and halt_poll_time_pct vs host.kvm.halt_poll_ns"));
  CHECK(has(cnt, "halt-poll time [% of vCPU time]"));
  CHECK(!has(r.output, "nothing to draw"));
}

TEST_CASE("vtick plot: --counters chooses the counters, a metric the sweep lacks or three of them exit 2") {
  std::string dir = small_sweep("hc", "\"host.kvm.halt_poll_ns\" = [0, 200000]\n");
  auto r = test::run_cli("plot " + dir + " --counters halt_exits_per_s,wake_latency_p99_us");
  INFO(r.output);
  REQUIRE(r.status == 0);
  std::string cnt = test::read_file(dir + "/plots/counters_vs_host_kvm_halt_poll_ns.svg");
  CHECK(has(cnt, "halt_exits_per_s and wake_latency_p99_us vs host.kvm.halt_poll_ns"));
  CHECK(has(cnt, "wake_latency_p99_us [us]"));
  r = test::run_cli("plot " + dir + " --counters nope_per_s");
  CHECK(r.status == 2);
  CHECK(has(r.output, "--counters: 'nope_per_s' is not a metric of " + dir + "/summary.csv (one of: ops_per_s,"));
  r = test::run_cli("plot " + dir + " --counters a,b,c");
  CHECK(r.status == 2);
  CHECK(has(r.output, "expected one or two metrics"));
}

TEST_CASE("vtick plot: one line per value of the second swept key, a string axis as categories, the legend off the data") {
  // summary.csv's columns (a sweep file's keys in name order): guest.tick_policy first
  std::string dir = small_sweep("hs", "\"host.kvm.halt_poll_ns\" = [0, 50000, 200000]\n\"guest.tick_policy\" = [\"legacy\", \"got_tick\"]\n");
  std::string cnt = plotted(dir, "", "counters_vs_guest_tick_policy.svg");
  CHECK(has(cnt, "vs guest.tick_policy, per host.kvm.halt_poll_ns"));
  for (const char* t : {"<text>legacy</text>", "<text>got_tick</text>",  // x tics: the policies
                        "<text>50000</text>", "<text>200000</text>",     // a line each
                        "<text>host.kvm.halt_poll_ns</text>"})            // the legend's title
    CHECK(has(cnt, t));
  legend_off_the_data(cnt);
  legend_off_the_data(test::read_file(dir + "/plots/ops_vs_guest_tick_policy.svg"));
  // --at fixes the first key: the poll limit becomes the x axis, as numbers
  std::string num = plotted(dir, " --at guest.tick_policy=got_tick", "ops_vs_host_kvm_halt_poll_ns.svg");
  CHECK(has(num, "round trips/s vs host.kvm.halt_poll_ns<"));
  CHECK(has(num, "round trips [1/s] (guest.tick_policy = got_tick)"));  // the panel says what is held
  CHECK(has(num, "<text>200000</text>"));
  CHECK(!has(num, "<text>legacy</text>"));
}

TEST_CASE("vtick plot: a sweep of seeds alone has nothing to draw, exit 2") {
  std::string dir = small_sweep("hn", "\"run.seed\" = \"1..2\"\n");
  auto r = test::run_cli("plot " + dir);
  CHECK(r.status == 2);
  CHECK(has(r.output, "nothing to draw"));
}

TEST_CASE("vtick plot: an --at value the sweep lacks, a truncated summary.csv or a short row exit 2 naming them (issue 37 item 6)") {
  std::string dir = small_sweep("bad-at", "\"guest.hz\" = [250, 1000]\n");
  auto r = test::run_cli("plot " + dir + " --at guest.hz=333");
  INFO(r.output);
  CHECK(r.status == 2);  // exit 0 before, the figures drawn at no value
  CHECK(has(r.output, "--at guest.hz=333: 333 is not a value of guest.hz in " + dir + "/summary.csv (its values: 250, 1000)"));
  // the summary cut in its second data row (file line 3), as a full disk or a kill leaves it
  std::string full = test::read_file(dir + "/summary.csv");
  std::size_t row1_end = full.find('\n', full.find('\n') + 1);
  REQUIRE(row1_end + 41 < full.size());
  std::ofstream(dir + "/summary.csv", std::ios::trunc) << full.substr(0, row1_end + 41);
  r = test::run_cli("plot " + dir);
  CHECK(r.status == 2);  // issue 37 saw exit 0 for a truncated summary or a short row
  CHECK(has(r.output, dir + "/summary.csv:3: "));
  CHECK(has(r.output, " fields where the header has "));
}

TEST_CASE("vtick plot: a series equal to another is drawn dashed and named so (issue 37 item 8)") {
  // loehle equals legacy on the default scenario (its tick choice is legacy's there)
  std::string dir = small_sweep("same", "\"guest.hz\" = [250, 1000]\n\"guest.tick_policy\" = [\"legacy\", \"loehle\"]\n\"run.seed\" = \"1..2\"\n");
  std::string svg = plotted(dir, "", "ops_vs_hz.svg");
  CHECK(has(svg, "loehle (= legacy)"));  // hidden under legacy's line before
  CHECK(!has(svg, "legacy (= "));         // the first of equal series keeps its plain name
}
