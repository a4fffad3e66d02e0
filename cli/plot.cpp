// vtick plot: the figures of a sweep directory (summary.csv, delta.csv), drawn by gnuplot
// (Debian gnuplot-nox) as SVG and PNG, with 95% confidence intervals as error bars: the
// HZ x tick-policy family, the change-by-vCPU-count family, and for any other sweep the
// metric and two counters against its first swept key.
#include "core/parse_num.hpp"
#include <algorithm>
#include <cmath>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "cli/output.hpp"

namespace vtick {

namespace {

struct Csv {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  int col(const std::string& name) const {
    auto it = std::find(head.begin(), head.end(), name);
    return it == head.end() ? -1 : static_cast<int>(it - head.begin());
  }
  // A row's field, "" where the row is short (a malformed file).
  const std::string& at(const std::vector<std::string>& r, int c) const {
    static const std::string none;
    return c >= 0 && static_cast<std::size_t>(c) < r.size() ? r[static_cast<std::size_t>(c)] : none;
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

// false when the file cannot be read; `bad` names a row whose field count is not the
// header's (a truncated or hand-edited file), "" otherwise
bool read_csv(const std::string& path, Csv& csv, std::string& bad) {
  std::ifstream f(path);
  if (!f) return false;
  std::string line;
  if (!std::getline(f, line)) return false;
  csv.head = split_csv(line);
  for (int n = 2; std::getline(f, line); ++n) {
    if (line.empty()) continue;
    csv.rows.push_back(split_csv(line));
    if (bad.empty() && csv.rows.back().size() != csv.head.size())
      bad = path + ":" + std::to_string(n) + ": " + std::to_string(csv.rows.back().size()) + " fields where the header has " +
            std::to_string(csv.head.size()) + " (a truncated or edited file: run the sweep again, or --resume it)";
  }
  return true;
}

bool to_num(const std::string& s, double& v) {
  return parse_number(s, v);
}

// A swept key of summary.csv (the columns before "n") with its values in the sweep's
// order. Keys of a [[zip]] vary with another: a key whose value follows from another's
// is that axis's dependent (platform.shape of platform.vcpus), never an axis of its own.
struct Axis {
  int col = -1;
  std::string key;
  std::vector<std::string> values;
  bool numeric = true;
  std::vector<int> deps;  // columns that follow from this one
};

bool follows(const Csv& c, int dep, int from) {  // dep's value is a function of from's
  std::map<std::string, std::string> m;
  for (const auto& r : c.rows) {
    auto [it, fresh] = m.emplace(c.at(r, from), c.at(r, dep));
    if (!fresh && it->second != c.at(r, dep)) return false;
  }
  return true;
}

std::vector<Axis> axes_of(const Csv& c) {
  int n = c.col("n");
  std::vector<Axis> out;
  for (int k = 0; k < n; ++k) {
    Axis a;
    a.col = k;
    a.key = c.head[static_cast<std::size_t>(k)];
    for (const auto& r : c.rows) {
      const std::string& v = c.at(r, k);
      if (std::find(a.values.begin(), a.values.end(), v) == a.values.end()) a.values.push_back(v);
      double d;
      a.numeric = a.numeric && to_num(v, d);
    }
    auto it = std::find_if(out.begin(), out.end(), [&](const Axis& p) { return follows(c, k, p.col); });
    if (it != out.end()) {
      it->deps.push_back(k);
      continue;
    }
    // the new key determines an earlier one: it becomes the axis, the earlier its dependent
    it = std::find_if(out.begin(), out.end(), [&](const Axis& p) { return follows(c, p.col, k); });
    if (it != out.end()) {
      a.deps = it->deps;
      a.deps.push_back(it->col);
      *it = a;
      continue;
    }
    out.push_back(a);
  }
  out.erase(std::remove_if(out.begin(), out.end(), [](const Axis& a) { return a.values.size() < 2; }), out.end());
  return out;
}

using Filter = std::map<std::string, std::string>;  // column -> the value kept

bool keep(const Csv& c, const std::vector<std::string>& r, const Filter& at) {
  for (const auto& [k, v] : at)
    if (int ki = c.col(k); ki >= 0 && c.at(r, ki) != v) return false;
  return true;
}

struct Series {
  std::string name;
  std::vector<std::array<double, 3>> pts;  // x, y, ci
};

// Points of `y`(+ci) against `x` (numbers, or the index of the value in `cats` when
// given), one series per value of `by` (one series when empty), rows filtered by `at`.
std::vector<Series> series(const Csv& c, const std::string& x, const std::string& y, const std::string& ci,
                           const std::string& by, const Filter& at, const std::vector<std::string>* cats = nullptr) {
  std::vector<Series> out;
  int xi = c.col(x), yi = c.col(y), ei = c.col(ci), bi = by.empty() ? -2 : c.col(by);
  if (xi < 0 || yi < 0 || bi == -1) return out;
  for (const auto& r : c.rows) {
    double xv, yv, ev = 0;
    if (!keep(c, r, at) || !to_num(c.at(r, yi), yv)) continue;
    if (cats) {
      auto it = std::find(cats->begin(), cats->end(), c.at(r, xi));
      if (it == cats->end()) continue;
      xv = static_cast<double>(it - cats->begin());
    } else if (!to_num(c.at(r, xi), xv)) {
      continue;
    }
    if (ei >= 0 && !to_num(c.at(r, ei), ev)) ev = 0;
    const std::string s = bi >= 0 ? c.at(r, bi) : "";
    auto it = std::find_if(out.begin(), out.end(), [&](const Series& z) { return z.name == s; });
    if (it == out.end()) it = out.insert(out.end(), Series{s, {}});
    it->pts.push_back({xv, yv, ev});
  }
  for (auto& s : out) std::sort(s.pts.begin(), s.pts.end());
  return out;
}

struct Panel {
  std::string title, xlabel, ylabel;
  std::vector<Series> lines;
  bool zero_line = false;
  std::string key_title;                              // what the lines are
  std::vector<std::pair<double, std::string>> xtics;  // empty: one per x value, as a number
  bool logx = true;                                   // numeric x spanning a wide range
  bool categories = false;                            // x is the index of a string value
};

Panel panel_of(std::string title, std::string xlabel, std::string ylabel, std::vector<Series> lines, std::string key_title,
               bool zero_line = false) {
  Panel p;
  p.title = std::move(title);
  p.xlabel = std::move(xlabel);
  p.ylabel = std::move(ylabel);
  p.lines = std::move(lines);
  p.key_title = std::move(key_title);
  p.zero_line = zero_line;
  return p;
}

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '\'' ? std::string("''") : std::string(1, c);  // noenhanced: only quotes need care
  return o;
}

std::string g_num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.10g", v);
  return b;
}

// Two series with the same points (an undefined error bar equal to an undefined one).
bool same_points(const Series& a, const Series& b) {
  if (a.pts.size() != b.pts.size()) return false;
  for (std::size_t k = 0; k < a.pts.size(); ++k)
    for (int c = 0; c < 3; ++c) {
      double x = a.pts[k][static_cast<std::size_t>(c)], y = b.pts[k][static_cast<std::size_t>(c)];
      if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
    }
  return true;
}

// One figure (panels side by side, a title over them) as NAME.svg and NAME.png. Each
// panel's legend is outside its plot area, on the right, so it never covers a point.
std::string gnuplot_script(const std::string& base, const std::string& title, const std::vector<Panel>& panels) {
  std::ostringstream g;
  int b = 0;
  for (const auto& p : panels)
    for (std::size_t i = 0; i < p.lines.size(); ++i) {
      // categories: the lines side by side around each value so that error bars do not hide each other
      double shift = p.categories ? 0.06 * (static_cast<double>(i) - static_cast<double>(p.lines.size() - 1) / 2) : 0;
      g << "$d" << b++ << " << EOD\n";
      for (const auto& pt : p.lines[i].pts) g << g_num(pt[0] + shift) << " " << g_num(pt[1]) << " " << g_num(pt[2]) << "\n";
      g << "EOD\n";
    }
  int w = std::max(680 * static_cast<int>(panels.size()) + 80, 900);
  for (const char* term : {"svg", "png"}) {
    if (std::string(term) == "svg") g << "set terminal svg size " << w << ",460 noenhanced font 'Helvetica,12' background '#ffffff'\n";
    else g << "set terminal pngcairo size " << w << ",460 noenhanced font 'Helvetica,10'\n";
    g << "set output '" << base << "." << term << "'\n";
    g << "set multiplot layout 1," << panels.size() << " title '" << esc(title) << "' font ',13'\nset grid\n";
    g << "set key outside right top vertical box width 1 height 1\n";  // height: room between the title and the box
    b = 0;
    for (const auto& p : panels) {
      std::vector<std::pair<double, std::string>> tics = p.xtics;
      if (tics.empty()) {
        for (const auto& s : p.lines)
          for (const auto& pt : s.pts) tics.push_back({pt[0], g_num(pt[0])});
        std::sort(tics.begin(), tics.end());
        tics.erase(std::unique(tics.begin(), tics.end()), tics.end());
      }
      g << "set title '" << esc(p.title) << "'\nset xlabel '" << esc(p.xlabel) << "'\nset ylabel '" << esc(p.ylabel) << "'\n";
      bool named = std::any_of(p.lines.begin(), p.lines.end(), [](const Series& s) { return !s.name.empty(); });
      if (named) g << "set key on\nset key title '" << esc(p.key_title) << "'\n";
      else g << "set key off\n";
      g << (p.logx ? "set logscale x 2\n" : "unset logscale x\n");
      g << "set xtics (";
      std::size_t longest = 0;
      for (std::size_t i = 0; i < tics.size(); ++i) {
        g << (i ? ", " : "") << "'" << esc(tics[i].second) << "' " << g_num(tics[i].first);
        longest = std::max(longest, tics[i].second.size());
      }
      g << ")" << (longest * tics.size() > 60 ? " rotate by -30" : " norotate") << "\n";
      if (!tics.empty()) {
        double lo = tics.front().first, hi = tics.back().first;
        if (p.categories) lo -= 0.5, hi += 0.5;
        else if (p.logx) lo /= 1.3, hi *= 1.3;
        else lo -= 0.06 * (hi - lo), hi += 0.06 * (hi - lo);
        g << "set xrange [" << g_num(lo) << ":" << g_num(hi) << "]\n";
      }
      // the y range holds every error bar whole (gnuplot's autoscale follows the points)
      double ylo = INFINITY, yhi = -INFINITY;
      for (const auto& s : p.lines)
        for (const auto& pt : s.pts)
          if (std::isfinite(pt[1])) {
            double e = std::isfinite(pt[2]) ? std::fabs(pt[2]) : 0;
            ylo = std::min(ylo, pt[1] - e);
            yhi = std::max(yhi, pt[1] + e);
          }
      if (p.zero_line && std::isfinite(ylo)) ylo = std::min(ylo, 0.0), yhi = std::max(yhi, 0.0);
      if (std::isfinite(ylo)) {
        double pad = yhi > ylo ? 0.08 * (yhi - ylo) : std::max(1e-9, 0.05 * std::fabs(yhi));
        g << "set yrange [" << g_num(ylo - pad) << ":" << g_num(yhi + pad) << "]\n";
      } else {
        g << "set autoscale y\n";
      }
      g << "plot ";
      for (std::size_t i = 0; i < p.lines.size(); ++i) {
        std::string n = p.lines[i].name;
        // a series equal to an earlier one would hide under it: dashed, open points, named so
        std::string same;
        for (std::size_t j = 0; j < i && same.empty(); ++j)
          if (same_points(p.lines[j], p.lines[i])) same = p.lines[j].name.empty() ? "line " + std::to_string(j + 1) : p.lines[j].name;
        std::string style = same.empty() ? "lw 2 pt 7 ps 0.8" : "lw 2 dt 2 pt 6 ps 1.4";
        if (!same.empty() && !n.empty()) n += " (= " + same + ")";
        g << (i ? ", " : "") << "$d" << b++ << " using 1:2:3 with yerrorlines " << style << " "
          << (n.empty() ? std::string("notitle") : "title '" + esc(n) + "'");
      }
      if (p.zero_line) g << ", 0 with lines lc 'black' dt 2 notitle";
      g << "\n";
    }
    g << "unset multiplot\n";
  }
  return g.str();
}

std::string at_text(const Filter& at) {
  std::string s;
  for (const auto& [k, v] : at) s += (s.empty() ? "" : ", ") + k + " = " + v;
  return s;
}

// "host.kvm.halt_poll_ns" -> "host_kvm_halt_poll_ns": a file name.
std::string file_part(const std::string& key) {
  std::string o;
  for (char c : key) o += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return o;
}

// A summary metric's axis label: the headline's words where known, else its name with
// the unit its suffix says.
std::string metric_label(const std::string& m) {
  static const std::pair<const char*, const char*> kKnown[] = {
      {"exits_per_s", "VM exits [1/s]"},
      {"halt_poll_time_pct", "halt-poll time [% of vCPU time]"},
      {"halt_poll_success_pct", "halt-poll success [% of polls]"},
      {"blocked_pct", "vCPU thread blocked [% of vCPU time]"},
      {"guest_mode_pct", "in guest mode [% of vCPU time]"},
      {"steal_pct", "steal [% of vCPU time]"},
  };
  for (const auto& [k, l] : kKnown)
    if (m == k) return l;
  auto ends = [&](const std::string& s) { return m.size() > s.size() && m.compare(m.size() - s.size(), s.size(), s) == 0; };
  if (ends("_per_s")) return m + " [1/s]";
  if (ends("_pct")) return m + " [%]";
  if (ends("_us")) return m + " [us]";
  if (ends("_ms")) return m + " [ms]";
  return m;
}

int bad(const std::string& msg) {
  spdlog::error("plot: {}", msg);
  return 2;
}

}  // namespace

int cmd_plot(const PlotOptions& o) {
  Csv sum, del;
  std::string broken;
  if (!read_csv(o.dir + "/summary.csv", sum, broken) || sum.col("n") < 0)
    return bad("cannot read " + o.dir + "/summary.csv (a vtick sweep --out directory)");
  if (!broken.empty()) return bad(broken);
  bool have_delta = read_csv(o.dir + "/delta.csv", del, broken) && del.col("baseline") >= 0;
  if (have_delta && !broken.empty()) return bad(broken);
  Filter at;
  for (const auto& a : o.at) {
    auto eq = a.find('=');
    if (eq == std::string::npos || sum.col(a.substr(0, eq)) < 0 || sum.col(a.substr(0, eq)) >= sum.col("n"))
      return bad("--at " + a + ": expected KEY=VALUE with KEY a swept column of " + o.dir + "/summary.csv");
    const std::string key = a.substr(0, eq), value = a.substr(eq + 1);
    std::vector<std::string> values;
    for (const auto& r : sum.rows) {
      const std::string& v = sum.at(r, sum.col(key));
      if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
    }
    if (std::find(values.begin(), values.end(), value) == values.end()) {
      std::string list;
      for (const auto& v : values) list += (list.empty() ? "" : ", ") + v;
      return bad("--at " + a + ": " + value + " is not a value of " + key + " in " + o.dir + "/summary.csv (its values: " + list + ")");
    }
    at[key] = value;
  }
  std::vector<std::string> counters;
  if (!o.counters.empty()) {
    std::stringstream ss(o.counters);
    std::string c;
    while (std::getline(ss, c, ','))
      if (!c.empty()) counters.push_back(c);
    if (counters.empty() || counters.size() > 2) return bad("--counters " + o.counters + ": expected one or two metrics, A or A,B");
    for (const auto& c : counters)
      if (sum.col(c + "_mean") < 0) {
        std::string known;
        for (const auto& h : sum.head)
          if (h.size() > 5 && h.compare(h.size() - 5, 5, "_mean") == 0) known += (known.empty() ? "" : ", ") + h.substr(0, h.size() - 5);
        return bad("--counters: '" + c + "' is not a metric of " + o.dir + "/summary.csv (one of: " + known + ")");
      }
  }
  if (!gnuplot_available("plot")) return 1;
  const std::vector<Axis> axes = axes_of(sum);
  // Every axis a figure does not draw is fixed: by --at (on it or a key that follows it),
  // else at 2 vCPUs when swept (the reported shape), else at its first value.
  auto fixed = [&](const std::vector<std::string>& drawn) {
    Filter f = at;
    for (const auto& a : axes) {
      if (std::find(drawn.begin(), drawn.end(), a.key) != drawn.end()) continue;
      bool given = at.count(a.key) > 0;
      for (int d : a.deps) given = given || at.count(sum.head[static_cast<std::size_t>(d)]) > 0;
      if (given) continue;
      bool two = a.key == "platform.vcpus" && std::find(a.values.begin(), a.values.end(), "2") != a.values.end();
      f[a.key] = two ? "2" : a.values.front();
    }
    for (const auto& d : drawn) f.erase(d);
    return f;
  };
  auto where = [](const Filter& f) { return f.empty() ? std::string() : " (" + at_text(f) + ")"; };

  std::string out = o.dir + "/plots";
  if (!make_dirs(out)) {
    spdlog::error("plot: cannot create {}: {}", out, std::strerror(errno));
    return 1;
  }
  std::string sweep = o.dir;
  while (sweep.size() > 1 && sweep.back() == '/') sweep.pop_back();
  sweep = sweep.substr(sweep.find_last_of('/') == std::string::npos ? 0 : sweep.find_last_of('/') + 1);
  const std::string metric = "ops_per_s";
  // the workload metric's name (transactions, events, ...) from the sweep's first run
  std::string ops = "ops";
  {
    std::ifstream f(o.dir + "/runs/000000.json");
    nlohmann::json j = f ? nlohmann::json::parse(f, nullptr, false) : nlohmann::json();
    if (j.is_object() && j.contains("summary") && j["summary"].is_object()) ops = j["summary"].value("ops_name", ops);
  }
  int made = 0, failed = 0;
  // the family's title over the figure, the keys held fixed under each panel's title
  auto draw = [&](const std::string& name, const std::string& title, std::vector<Panel> panels, const Filter& held) {
    for (auto& p : panels) {
      if (p.lines.empty()) return false;
      p.title += where(held);
    }
    if (!run_gnuplot(gnuplot_script(out + "/" + name, sweep + ": " + title, panels))) {
      spdlog::error("plot: gnuplot failed on {}", name);
      ++failed;
      return false;
    }
    std::printf("%s/%s.svg %s/%s.png\n", out.c_str(), name.c_str(), out.c_str(), name.c_str());
    ++made;
    return true;
  };

  // HZ x tick policy
  const std::string hz = "guest CONFIG_HZ [Hz]";
  const Filter fh = fixed({"guest.hz", "guest.tick_policy"});
  bool hz_family =
      draw("ops_vs_hz", "workload throughput vs guest HZ, per tick policy",
           {panel_of(ops + "/s", hz, ops + " [1/s] (mean, 95% CI)",
                     series(sum, "guest.hz", metric + "_mean", metric + "_ci95", "guest.tick_policy", fh), "guest.tick_policy")},
           fh);
  draw("exits_halt_poll_vs_hz", "VM exits and halt polling vs guest HZ, per tick policy",
       {panel_of("VM exits", hz, "VM exits [1/s]",
                 series(sum, "guest.hz", "exits_per_s_mean", "exits_per_s_ci95", "guest.tick_policy", fh), "guest.tick_policy"),
        panel_of("halt polling", hz, "halt-poll time [% of vCPU time]",
                 series(sum, "guest.hz", "halt_poll_time_pct_mean", "halt_poll_time_pct_ci95", "guest.tick_policy", fh),
                 "guest.tick_policy")},
       fh);
  if (have_delta) {
    Filter pat = fixed({"platform.vcpus", "guest.hz"});
    pat["guest.tick_policy"] = o.policy;
    std::string base = del.rows.empty() ? "" : del.at(del.rows[0], del.col("baseline"));
    Panel p = panel_of("change of " + ops + "/s", "vCPUs", "change of " + ops + "/s [%] (mean, 95% CI)",
                       series(del, "platform.vcpus", metric + "_delta_pct_mean", metric + "_delta_pct_ci95", "guest.hz", pat),
                       "guest.hz", true);
    for (auto& s : p.lines) s.name = "HZ=" + s.name;
    Filter shown = pat;
    shown.erase("guest.tick_policy");
    draw("delta_vs_vcpus", o.policy + " vs " + base + " by vCPU count, per HZ", {p}, shown);
  }

  // Any swept key: the metric and two counters against the first axis not fixed by --at,
  // one line per value of the second. Drawn unless the HZ figures above say it already.
  std::vector<const Axis*> free;
  for (const auto& a : axes)
    if (!at.count(a.key)) free.push_back(&a);
  if (!free.empty() && (!hz_family || !counters.empty())) {
    const Axis& x = *free[0];
    const Axis* by = free.size() > 1 ? free[1] : nullptr;
    std::vector<std::string> drawn{x.key};
    if (by) drawn.push_back(by->key);
    const Filter f = fixed(drawn);
    std::string xl = x.key;
    for (int d : x.deps) xl += " / " + sum.head[static_cast<std::size_t>(d)];
    Panel tmpl;
    tmpl.xlabel = xl;
    tmpl.key_title = by ? by->key : "";
    tmpl.categories = !x.numeric;
    double lo = 0, hi = 0;
    if (x.numeric) {
      std::vector<double> xs;
      for (const auto& v : x.values) {
        double d = 0;
        xs.push_back(parse_number(v, d) ? d : 0);  // numeric: every value parsed before (x.numeric)
      }
      lo = *std::min_element(xs.begin(), xs.end());
      hi = *std::max_element(xs.begin(), xs.end());
      for (std::size_t i = 0; i < xs.size(); ++i) tmpl.xtics.push_back({xs[i], x.values[i]});
      std::sort(tmpl.xtics.begin(), tmpl.xtics.end());
    } else {
      for (std::size_t i = 0; i < x.values.size(); ++i) tmpl.xtics.push_back({static_cast<double>(i), x.values[i]});
    }
    tmpl.logx = x.numeric && lo > 0 && hi / lo >= 8;
    auto panel = [&](const std::string& m, const std::string& ylabel) {
      Panel p = tmpl;
      p.title = ylabel;
      p.ylabel = ylabel + " (mean, 95% CI)";
      p.lines = series(sum, x.key, m + "_mean", m + "_ci95", by ? by->key : "", f, x.numeric ? nullptr : &x.values);
      return p;
    };
    const std::string per = by ? ", per " + by->key : "", fx = file_part(x.key);
    draw("ops_vs_" + fx, ops + "/s vs " + x.key + per, {panel(metric, ops + " [1/s]")}, f);
    if (counters.empty()) counters = {"exits_per_s", "halt_poll_time_pct"};
    std::vector<Panel> cp;
    std::string names;
    for (const auto& c : counters)
      if (sum.col(c + "_mean") >= 0) {
        cp.push_back(panel(c, metric_label(c)));
        names += (names.empty() ? "" : " and ") + c;
      }
    if (!cp.empty()) draw("counters_vs_" + fx, names + " vs " + x.key + per, cp, f);
  }
  if (failed) return 1;
  if (!made)
    return bad("nothing to draw: " + o.dir + "/summary.csv has no swept key with two or more values and results " +
               "(run.seed alone is not an axis; --at may fix every other)");
  return 0;
}

}  // namespace vtick
