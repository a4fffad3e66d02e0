// vtick explain's report: explain.md for people, explain.json for tools, and the figures
// (gnuplot SVG): the sensitivity ranking and where the best sets land against each band.
#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <spdlog/spdlog.h>

#include "cli/explain.hpp"
#include "cli/output.hpp"
#include "sim/scenario.hpp"

namespace vtick {

using json = nlohmann::ordered_json;

namespace {

std::string fmt(const char* f, double x) {
  char b[512];
  if (!std::isfinite(x)) return "n/a";
  std::snprintf(b, sizeof b, f, x);
  return b;
}

std::string change_text(const SampleStats& s) {
  if (s.n == 0) return "n/a";
  std::string t = fmt("%+.1f", s.mean);
  if (s.n > 1 && std::isfinite(s.ci95)) t += fmt(" ±%.1f", s.ci95);
  return t + " %";
}

std::string band_text(const TargetConstraint& c) {
  if (c.lo == -c.hi) return fmt("|Δ| ≤ %.1f %%", c.hi);
  return fmt("[%.1f, ", c.lo) + fmt("%.1f] %%", c.hi);
}

const std::string& group_name(const ExplainResult& r, const FactorRank& fr) { return r.groups[static_cast<std::size_t>(fr.factor)]; }

std::string group_mechanism(const ExplainResult& r, const FactorRank& fr) {
  for (std::size_t f = 0; f < r.space.factors.size(); ++f)
    if (r.group_of[f] == fr.factor) return r.space.factors[f].mechanism;
  return "other";
}

json evaluated_json(const ExplainResult& r, const Evaluated& e) {
  json j;
  j["phase"] = e.phase;
  json u = json::object();
  for (std::size_t f = 0; f < e.u.size(); ++f)
    if (std::isfinite(e.u[f])) u[r.space.factors[f].key] = e.u[f];
  j["u"] = u;
  if (!e.extra.empty()) j["extra"] = e.extra;
  j["seeds"] = e.seeds;
  json ch = json::object();
  for (std::size_t c = 0; c < e.change.size(); ++c) {
    const auto& s = e.change[c];
    ch[r.target.constraints[c].id] = {{"mean", s.n ? json(s.mean) : json()},
                                      {"ci95", s.n > 1 && std::isfinite(s.ci95) ? json(s.ci95) : json()},
                                      {"n", s.n},
                                      {"miss", e.miss[c]}};
  }
  j["change_pct"] = ch;
  j["distance"] = e.distance;
  j["meets"] = e.meets;
  j["meets_within_noise"] = e.meets_noise;
  return j;
}

std::string quote(std::string s) {
  for (auto& c : s)
    if (c == '"') c = '\'';
  return "\"" + s + "\"";
}

bool figures(const ExplainResult& r, const std::string& dir) {
  if (!gnuplot_available("explain's figures")) return false;
  if (!make_dirs(dir + "/figures")) {
    spdlog::error("explain: cannot create {}/figures: {}", dir, std::strerror(errno));
    return false;
  }
  // the ranking: mu* on the distance, the 15 most influential
  std::string s = "set terminal svg size 900,520 dynamic font 'sans,11' noenhanced\nset output " + quote(dir + "/figures/sensitivity.svg") +
                  "\nset title " + quote("Morris screening: influence on the distance to the signature (mu*, with sigma)") +
                  "\nset style fill solid 0.6\nset boxwidth 0.4\nset grid xtics\nset xlabel 'mu* (distance units per unit of range)'\n"
                  "set ytics nomirror\nset yrange [-1:*] reverse\nunset key\n$d << EOD\n";
  int n = 0;
  for (const auto& fr : r.ranking) {
    if (n >= 15) break;
    s += std::to_string(n) + " " + fmt("%.6g", std::isfinite(fr.on_distance.mu_star) ? fr.on_distance.mu_star : 0) + " " +
         fmt("%.6g", std::isfinite(fr.on_distance.sigma) ? fr.on_distance.sigma : 0) + " " + quote(group_name(r, fr)) + "\n";
    ++n;
  }
  s += "EOD\nplot $d using ($2/2):1:($2/2):(0.35):yticlabels(4) with boxxyerror lc rgb '#4878a8', "
       "$d using 2:1:($2-$3 < 0 ? 0 : $2-$3):($2+$3) with xerrorbars lc rgb '#333333' pt 7 ps 0.5\n";
  // each constraint: its band, the model as shipped and the best sets
  std::string b = "set terminal svg size 900,480 dynamic font 'sans,11' noenhanced\nset output " + quote(dir + "/figures/best.svg") +
                   "\nset title " + quote("change of " + r.target.metric + " per constraint: band (grey), model as shipped, best sets") +
                   "\nset ylabel 'change, %'\nset grid ytics\nset key outside right\nset xtics rotate by -30\nset xrange [-0.7:" +
                   std::to_string(r.target.constraints.size()) + "-0.3]\n$band << EOD\n";
  for (std::size_t c = 0; c < r.target.constraints.size(); ++c) {
    const auto& k = r.target.constraints[c];
    b += std::to_string(c) + " " + fmt("%.4g", (k.lo + k.hi) / 2) + " " + fmt("%.4g", k.lo) + " " + fmt("%.4g", k.hi) + " " +
         quote(k.id) + "\n";
  }
  b += "EOD\n";
  auto pts = [&](const std::string& name, const Evaluated& e, double dx) {
    std::string d = "$" + name + " << EOD\n";
    for (std::size_t c = 0; c < e.change.size(); ++c)
      if (e.change[c].n)
        d += fmt("%.3f", static_cast<double>(c) + dx) + " " + fmt("%.4g", e.change[c].mean) + " " +
             fmt("%.4g", std::isfinite(e.change[c].ci95) ? e.change[c].ci95 : 0) + "\n";
    return d + "EOD\n";
  };
  b += pts("base", r.baseline, -0.15);
  for (std::size_t i = 0; i < r.best.size(); ++i) b += pts("best" + std::to_string(i), r.best[i], 0.05 + 0.1 * static_cast<double>(i));
  b += "plot $band using 1:2:($1-0.25):($1+0.25):3:4:xticlabels(5) with boxxyerror fs solid 0.25 lc rgb '#999999' title 'band', "
       "$base using 1:2:3 with yerrorbars pt 7 lc rgb '#d04040' title 'as shipped'";
  for (std::size_t i = 0; i < r.best.size(); ++i)
    b += ", $best" + std::to_string(i) + " using 1:2:3 with yerrorbars pt " + std::to_string(5 + static_cast<int>(i)) +
         " title 'best set " + std::to_string(i + 1) + "'";
  b += "\n";
  if (!run_gnuplot(s) || !run_gnuplot(b)) {
    spdlog::error("explain: gnuplot failed on the figures in {}/figures", dir);
    return false;
  }
  return true;
}

}  // namespace

std::string point_sets_text(const ExplainResult& r, const Evaluated& e, const std::vector<Scenario>& scenarios) {
  std::string t;
  for (int f : r.searched) {
    const Factor& fa = r.space.factors[static_cast<std::size_t>(f)];
    double u = e.u[static_cast<std::size_t>(f)];
    if (!std::isfinite(u)) continue;
    t += "`" + fa.key + "` = ";
    std::string prev;
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
      std::string v = factor_value(fa, u, scenarios[i]);
      if (v.empty() || v == prev) continue;
      t += (prev.empty() ? "" : ", ") + v + " (" + r.target.runs[i].id + ")";
      prev = v;
    }
    t += fmt(" [u %.2f]; ", u);
  }
  for (const auto& x : e.extra) t += "`" + x + "`; ";
  return t.empty() ? "the scenarios as shipped" : t.substr(0, t.size() - 2);
}

std::string explain_verdict(const ExplainResult& r) {
  const Evaluated* best = r.best.empty() ? nullptr : &r.best.front();
  std::string v;
  if (best && best->meets)
    v = "A set inside the documented ranges meets every constraint (distance 0): " + std::string("see the best set");
  else if (best && best->meets_noise)
    v = fmt("No set meets every constraint on its mean; the best (distance %.2f) meets them within its 95%% intervals", best->distance);
  else
    v = fmt("No set inside the documented ranges meets every constraint; the best is at distance %.2f (half-bands, RMS)",
            best ? best->distance : r.baseline.distance);
  for (const auto& d : r.departures) {
    if (d.smallest >= 0)
      v += "; the smallest departure that meets them all: " + d.departure.key + " = " + d.departure.values[static_cast<std::size_t>(d.smallest)];
    else if (!d.tried.empty()) {
      auto m = std::min_element(d.tried.begin(), d.tried.end(), [](const Evaluated& a, const Evaluated& b) { return a.distance < b.distance; });
      v += "; no tried value of " + d.departure.key + " meets them all (closest " +
           d.departure.values[static_cast<std::size_t>(m - d.tried.begin())] + fmt(", distance %.2f)", m->distance);
    }
  }
  return v + ".";
}

bool write_explain_report(const ExplainResult& r, const std::vector<Scenario>& scenarios, const std::string& dir,
                          const std::string& manifest) {
  const auto& cs = r.target.constraints;
  std::string md = "# vtick explain: " + (r.target.title.empty() ? r.target.source : r.target.title) + "\n\n";
  md += "Target `" + r.target.source + "`, budget `" + r.budget.name + "` (" + r.budget.duration + " per run; " +
        std::to_string(r.budget.screen_seeds) + " seed(s) while searching, " + std::to_string(r.budget.confirm_seeds) +
        " for the baseline, the best sets and the departures), " + std::to_string(r.space.factors.size()) + " factors, " +
        std::to_string(r.runs) + " runs. Metric `" + r.target.metric + "`; every change is variant vs base with seeds paired.\n\n";
  md += "## Verdict\n\n" + r.verdict + "\n\n";
  md += "## Constraints\n\n| constraint | run | base → variant | band | reported | model as shipped | best set |\n|---|---|---|---|---|---|---|\n";
  for (std::size_t c = 0; c < cs.size(); ++c)
    md += "| " + cs[c].id + " | " + cs[c].run + " | " + cs[c].base + " → " + cs[c].variant + " | " + band_text(cs[c]) + " | " +
          (cs[c].has_reported ? fmt("%+.1f %%", cs[c].reported) : std::string("–")) + " | " + change_text(r.baseline.change[c]) +
          " | " + (r.best.empty() ? "n/a" : change_text(r.best.front().change[c])) + " |\n";
  md += "\n![constraints](figures/best.svg)\n\n";
  md += "## Sensitivity (Morris, " + std::to_string(r.budget.morris_r) + " trajectories over " + std::to_string(r.groups.size()) +
        (r.budget.grouped ? " mechanisms" : " factors") +
        ")\n\nμ* is the mean absolute elementary effect on the distance to the signature (half-bands per unit of the factor's "
        "range), σ its spread (interaction, non-linearity or seed noise); the constraint columns give μ* on each change (% per "
        "unit of range).\n\n| rank | factor | mechanism | μ* | σ |";
  for (const auto& c : cs) md += " " + c.id + " |";
  md += "\n|---|---|---|---|---|";
  for (std::size_t c = 0; c < cs.size(); ++c) md += "---|";
  md += "\n";
  int rank = 0;
  for (const auto& fr : r.ranking) {
    if (++rank > 25) break;
    md += "| " + std::to_string(rank) + " | `" + group_name(r, fr) + "` | " + group_mechanism(r, fr) + " | " +
          fmt("%.3f", fr.on_distance.mu_star) + " | " + fmt("%.3f", fr.on_distance.sigma) + " |";
    for (const auto& e : fr.on_constraint) md += " " + fmt("%.2f", e.mu_star) + " |";
    md += "\n";
  }
  if (r.ranking.size() > 25) md += "\n(" + std::to_string(r.ranking.size() - 25) + " more in explain.json)\n";
  md += "\n![sensitivity](figures/sensitivity.svg)\n\n## Best sets\n\n";
  if (r.searched.empty()) md += "No factor moved the distance while screening: the design and the refinement were skipped.\n\n";
  else {
    md += "Searched (the " + std::to_string(r.searched.size()) + " most influential factors; the others as the scenarios have them):";
    for (int f : r.searched) md += " `" + r.space.factors[static_cast<std::size_t>(f)].key + "`";
    md += ".\n\n";
  }
  for (std::size_t i = 0; i < r.best.size(); ++i) {
    const auto& e = r.best[i];
    md += std::to_string(i + 1) + ". distance " + fmt("%.2f", e.distance) + (e.meets ? ", meets every constraint" : e.meets_noise ? ", meets them within noise" : "") +
          ": " + point_sets_text(r, e, scenarios) + "\n";
  }
  if (!r.best.empty()) {
    md += "\n| set | distance |";
    for (const auto& c : cs) md += " " + c.id + " |";
    md += "\n|---|---|";
    for (std::size_t c = 0; c < cs.size(); ++c) md += "---|";
    md += "\n| as shipped | " + fmt("%.2f", r.baseline.distance) + " |";
    for (std::size_t c = 0; c < cs.size(); ++c) md += " " + change_text(r.baseline.change[c]) + (r.baseline.miss[c] == 0 ? " ✓" : "") + " |";
    for (std::size_t i = 0; i < r.best.size(); ++i) {
      md += "\n| " + std::to_string(i + 1) + " | " + fmt("%.2f", r.best[i].distance) + " |";
      for (std::size_t c = 0; c < cs.size(); ++c) md += " " + change_text(r.best[i].change[c]) + (r.best[i].miss[c] == 0 ? " ✓" : "") + " |";
    }
    md += "\n\n✓: the mean change lies in the constraint's band.\n";
  }
  if (!r.departures.empty()) {
    md += "\n## Departures from the documented ranges (from the best set)\n\n| value | distance | meets |";
    for (const auto& c : cs) md += " " + c.id + " |";
    md += "\n|---|---|---|";
    for (std::size_t c = 0; c < cs.size(); ++c) md += "---|";
    md += "\n";
    for (const auto& d : r.departures) {
      for (std::size_t v = 0; v < d.tried.size(); ++v) {
        const auto& e = d.tried[v];
        md += "| `" + d.departure.key + " = " + d.departure.values[v] + "` | " + fmt("%.2f", e.distance) + " | " +
              (e.meets ? "yes" : e.meets_noise ? "within noise" : "no") + " |";
        for (const auto& c : e.change) md += " " + change_text(c) + " |";
        md += "\n";
      }
      if (!d.departure.why.empty()) md += "\n" + d.departure.key + ": " + d.departure.why + "\n";
    }
  }
  md += "\n## What to measure on the real systems\n\nFor each mechanism behind the most influential factors (and the departures), the "
        "measurement that would confirm or refute it:\n\n";
  std::vector<std::string> mech;
  for (const auto& fr : r.ranking) {
    if (mech.size() >= 6 || !(fr.on_distance.mu_star > 0)) break;
    std::string m = group_mechanism(r, fr);
    if (std::find(mech.begin(), mech.end(), m) == mech.end()) mech.push_back(m);
  }
  for (const auto& d : r.departures) {
    std::string m = d.departure.key == "host.tick_wakeup_cost" ? "A" : "other";
    if (std::find(mech.begin(), mech.end(), m) == mech.end()) mech.push_back(m);
  }
  for (const auto& m : mech) {
    const Mechanism& x = mechanism_of(m);
    md += "- **" + x.id + "** " + x.name + ": " + x.measure + ".\n";
  }
  md += "\nThe space: `vtick explain " + r.target.source + " --list-space`.\n";

  json j;
  j["manifest"] = json::parse(manifest);
  j["target"] = r.target.source;
  j["budget"] = {{"name", r.budget.name}, {"duration", r.budget.duration}, {"screen_seeds", r.budget.screen_seeds},
                 {"morris_r", r.budget.morris_r}, {"levels", r.budget.levels}, {"grouped", r.budget.grouped},
                 {"lhs_points", r.budget.lhs_points}, {"top", r.budget.top}, {"starts", r.budget.starts},
                 {"evals_per_start", r.budget.evals_per_start}, {"confirm_seeds", r.budget.confirm_seeds}};
  json cj = json::array();
  for (const auto& c : cs)
    cj.push_back({{"id", c.id}, {"run", c.run}, {"key", c.key}, {"base", c.base}, {"variant", c.variant}, {"lo", c.lo}, {"hi", c.hi},
                  {"reported", c.has_reported ? json(c.reported) : json()}, {"why", c.why}});
  j["constraints"] = cj;
  json sj = json::array();
  for (const auto& f : r.space.factors) {
    json ranges = json::object();
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
      std::string t = factor_range_text(f, scenarios[i]);
      if (!t.empty()) ranges[r.target.runs[i].id] = t;
    }
    sj.push_back({{"key", f.key}, {"mechanism", f.mechanism}, {"ranges", ranges}, {"source", f.source}});
  }
  j["space"] = sj;
  json rk = json::array();
  for (const auto& fr : r.ranking) {
    json per = json::object();
    for (std::size_t c = 0; c < cs.size(); ++c)
      per[cs[c].id] = {{"mu_star", fr.on_constraint[c].mu_star}, {"mu", fr.on_constraint[c].mu}, {"sigma", fr.on_constraint[c].sigma}};
    rk.push_back({{"group", group_name(r, fr)}, {"mechanism", group_mechanism(r, fr)}, {"mu_star", fr.on_distance.mu_star},
                  {"mu", fr.on_distance.mu}, {"sigma", fr.on_distance.sigma}, {"effects", fr.on_distance.n}, {"constraints", per}});
  }
  j["ranking"] = rk;
  json searched = json::array();
  for (int f : r.searched) searched.push_back(r.space.factors[static_cast<std::size_t>(f)].key);
  j["searched"] = searched;
  j["baseline"] = evaluated_json(r, r.baseline);
  json best = json::array();
  for (const auto& e : r.best) {
    json b = evaluated_json(r, e);
    b["settings"] = point_sets_text(r, e, scenarios);
    best.push_back(b);
  }
  j["best"] = best;
  json dep = json::array();
  for (const auto& d : r.departures) {
    json t = json::array();
    for (std::size_t v = 0; v < d.tried.size(); ++v) {
      json e = evaluated_json(r, d.tried[v]);
      e["value"] = d.departure.values[v];
      t.push_back(e);
    }
    dep.push_back({{"key", d.departure.key}, {"documented", {d.departure.documented_lo, d.departure.documented_hi}}, {"tried", t},
                   {"smallest", d.smallest >= 0 ? json(d.departure.values[static_cast<std::size_t>(d.smallest)]) : json()}});
  }
  j["departures"] = dep;
  json ev = json::array();
  for (const auto& e : r.evaluated) ev.push_back(evaluated_json(r, e));
  j["evaluated"] = ev;
  j["verdict"] = r.verdict;
  j["runs"] = r.runs;
  return figures(r, dir) && write_output("--out", dir + "/explain.md", md) && write_output("--out", dir + "/explain.json", j.dump(1) + "\n");
}

}  // namespace vtick
