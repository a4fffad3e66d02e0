// vtick plot: the standard figures of a sweep directory (summary.csv, delta.csv), drawn by
// gnuplot (Debian gnuplot-nox) as SVG and PNG, with 95% confidence intervals as error bars.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"

namespace vtick {

namespace {

struct Csv {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  int col(const std::string& name) const {
    auto it = std::find(head.begin(), head.end(), name);
    return it == head.end() ? -1 : static_cast<int>(it - head.begin());
  }
};

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool q = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (q) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') cur += '"', ++i;
      else if (c == '"') q = false;
      else cur += c;
    } else if (c == '"') q = true;
    else if (c == ',') out.push_back(cur), cur.clear();
    else cur += c;
  }
  out.push_back(cur);
  return out;
}

bool read_csv(const std::string& path, Csv& csv) {
  std::ifstream f(path);
  if (!f) return false;
  std::string line;
  if (!std::getline(f, line)) return false;
  csv.head = split_csv(line);
  while (std::getline(f, line))
    if (!line.empty()) csv.rows.push_back(split_csv(line));
  return true;
}

struct Series {
  std::string name;
  std::vector<std::array<double, 3>> pts;  // x, y, ci
};

// Points of `y`(+ci) against `x`, one series per value of `by`, rows filtered by `at`.
std::vector<Series> series(const Csv& c, const std::string& x, const std::string& y, const std::string& ci, const std::string& by,
                           const std::map<std::string, std::string>& at) {
  std::vector<Series> out;
  int xi = c.col(x), yi = c.col(y), ei = c.col(ci), bi = c.col(by);
  if (xi < 0 || yi < 0 || bi < 0) return out;
  for (const auto& r : c.rows) {
    bool keep = true;
    for (const auto& [k, v] : at) {
      int ki = c.col(k);
      if (ki >= 0 && r[static_cast<size_t>(ki)] != v) keep = false;
    }
    if (!keep || r[static_cast<size_t>(yi)].empty()) continue;
    const std::string& s = r[static_cast<size_t>(bi)];
    auto it = std::find_if(out.begin(), out.end(), [&](const Series& z) { return z.name == s; });
    if (it == out.end()) it = out.insert(out.end(), Series{s, {}});
    it->pts.push_back({std::stod(r[static_cast<size_t>(xi)]), std::stod(r[static_cast<size_t>(yi)]),
                       ei >= 0 && !r[static_cast<size_t>(ei)].empty() ? std::stod(r[static_cast<size_t>(ei)]) : 0.0});
  }
  for (auto& s : out) std::sort(s.pts.begin(), s.pts.end());
  return out;
}

struct Panel {
  std::string title, xlabel, ylabel;
  std::vector<Series> lines;
  bool zero_line = false;
};

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '\'' ? std::string("''") : std::string(1, c);  // noenhanced: only quotes need care
  return o;
}

// One figure (1 or 2 panels side by side) as NAME.svg and NAME.png.
std::string gnuplot_script(const std::string& base, const std::vector<Panel>& panels) {
  std::ostringstream g;
  int b = 0;
  for (const auto& p : panels)
    for (const auto& s : p.lines) {
      g << "$d" << b++ << " << EOD\n";
      for (const auto& pt : s.pts) g << pt[0] << " " << pt[1] << " " << pt[2] << "\n";
      g << "EOD\n";
    }
  int w = 560 * static_cast<int>(panels.size()) + 160;
  for (const char* term : {"svg", "png"}) {
    if (std::string(term) == "svg") g << "set terminal svg size " << w << ",440 noenhanced font 'Helvetica,12' background '#ffffff'\n";
    else g << "set terminal pngcairo size " << w << ",440 noenhanced font 'Helvetica,10'\n";
    g << "set output '" << base << "." << term << "'\n";
    g << "set multiplot layout 1," << panels.size() << "\nset grid\nset key top left box opaque width 1\nset logscale x 2\n";
    b = 0;
    for (const auto& p : panels) {
      std::vector<double> xs;
      for (const auto& s : p.lines)
        for (const auto& pt : s.pts) xs.push_back(pt[0]);
      std::sort(xs.begin(), xs.end());
      xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
      g << "set title '" << esc(p.title) << "'\nset xlabel '" << esc(p.xlabel) << "'\nset ylabel '" << esc(p.ylabel) << "'\n";
      g << "set xtics (";
      for (std::size_t i = 0; i < xs.size(); ++i) g << (i ? ", " : "") << xs[i];
      g << ")\n";
      if (!xs.empty()) g << "set xrange [" << xs.front() / 1.3 << ":" << xs.back() * 1.3 << "]\n";
      g << "plot ";
      for (std::size_t i = 0; i < p.lines.size(); ++i)
        g << (i ? ", " : "") << "$d" << b++ << " using 1:2:3 with yerrorlines lw 2 pt 7 ps 0.8 title '" << esc(p.lines[i].name) << "'";
      if (p.zero_line) g << ", 0 with lines lc 'black' dt 2 notitle";
      g << "\n";
    }
    g << "unset multiplot\n";
  }
  return g.str();
}

bool run_gnuplot(const std::string& script) {
  FILE* p = popen("gnuplot 2>&1", "w");
  if (!p) return false;
  std::fwrite(script.data(), 1, script.size(), p);
  return pclose(p) == 0;
}

std::string at_text(const std::map<std::string, std::string>& at) {
  std::string s;
  for (const auto& [k, v] : at) s += (s.empty() ? "" : ", ") + k + " = " + v;
  return s;
}

}  // namespace

int cmd_plot(const PlotOptions& o) {
  Csv sum, del;
  if (!read_csv(o.dir + "/summary.csv", sum)) {
    std::fprintf(stderr, "vtick: plot: cannot read %s/summary.csv (a vtick sweep --out directory)\n", o.dir.c_str());
    return 2;
  }
  bool have_delta = read_csv(o.dir + "/delta.csv", del);
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    std::fprintf(stderr, "vtick: plot needs gnuplot (Debian: apt-get install gnuplot-nox)\n");
    return 1;
  }
  std::map<std::string, std::string> at;
  for (const auto& a : o.at) {
    auto eq = a.find('=');
    if (eq == std::string::npos || sum.col(a.substr(0, eq)) < 0) {
      std::fprintf(stderr, "vtick: plot: --at %s: expected KEY=VALUE with KEY a swept column of summary.csv\n", a.c_str());
      return 2;
    }
    at[a.substr(0, eq)] = a.substr(eq + 1);
  }
  // Default: the smallest shape of the sweep (2 vCPUs when swept), as in the report.
  if (!at.count("platform.vcpus") && sum.col("platform.vcpus") >= 0) {
    bool has2 = std::any_of(sum.rows.begin(), sum.rows.end(), [&](const auto& r) { return r[static_cast<size_t>(sum.col("platform.vcpus"))] == "2"; });
    if (has2) at["platform.vcpus"] = "2";
  }
  std::string out = o.dir + "/plots";
  mkdir(out.c_str(), 0777);
  std::string metric = "ops_per_s", where = at.empty() ? "" : " (" + at_text(at) + ")";
  // the workload metric's name (transactions, events, ...) from the sweep's first run
  std::string ops = "ops";
  {
    std::ifstream f(o.dir + "/runs/000000.json");
    nlohmann::json j = f ? nlohmann::json::parse(f, nullptr, false) : nlohmann::json();
    if (j.is_object() && j.contains("summary") && j["summary"].is_object()) ops = j["summary"].value("ops_name", ops);
  }
  const std::string hz = "guest CONFIG_HZ [Hz]";
  int made = 0, failed = 0;
  auto draw = [&](const std::string& name, const std::vector<Panel>& panels) {
    for (const auto& p : panels)
      if (p.lines.empty()) return;
    if (!run_gnuplot(gnuplot_script(out + "/" + name, panels))) {
      std::fprintf(stderr, "vtick: plot: gnuplot failed on %s\n", name.c_str());
      ++failed;
      return;
    }
    std::printf("%s/%s.svg %s/%s.png\n", out.c_str(), name.c_str(), out.c_str(), name.c_str());
    ++made;
  };
  draw("ops_vs_hz", {{"workload throughput vs HZ" + where, hz, ops + " [1/s] (mean, 95% CI)",
                      series(sum, "guest.hz", metric + "_mean", metric + "_ci95", "guest.tick_policy", at)}});
  draw("exits_halt_poll_vs_hz",
       {{"VM exits vs HZ" + where, hz, "VM exits [1/s]", series(sum, "guest.hz", "exits_per_s_mean", "exits_per_s_ci95", "guest.tick_policy", at)},
        {"halt polling vs HZ" + where, hz, "halt-poll time [% of vCPU time]",
         series(sum, "guest.hz", "halt_poll_time_pct_mean", "halt_poll_time_pct_ci95", "guest.tick_policy", at)}});
  if (have_delta) {
    std::map<std::string, std::string> pat = at;
    pat.erase("platform.vcpus");
    pat["guest.tick_policy"] = o.policy;
    std::string base = del.rows.empty() ? "" : del.rows[0][static_cast<size_t>(del.col("baseline"))];
    Panel p{o.policy + " vs " + base + " by vCPU count", "vCPUs", "change of " + ops + "/s [%] (mean, 95% CI)",
            series(del, "platform.vcpus", metric + "_delta_pct_mean", metric + "_delta_pct_ci95", "guest.hz", pat), true};
    for (auto& s : p.lines) s.name = "HZ=" + s.name;
    draw("delta_vs_vcpus", {p});
  }
  if (failed) return 1;
  if (!made) {
    std::fprintf(stderr, "vtick: plot: nothing to draw: the sweep needs guest.hz and guest.tick_policy axes "
                         "(and platform.vcpus for the delta figure)\n");
    return 2;
  }
  return 0;
}

}  // namespace vtick
