#include "study/trace_compare.hpp"

#include <cmath>
#include <cstdio>
#include <set>

#include "sim/scenario.hpp"  // InputError
#include "sim/toml_text.hpp"

namespace vtick {

namespace {

const char* const kStatistics[] = {"rate", "p10", "p50", "p90", "share"};

double rate(const TraceSummary& s, std::uint64_t n) { return static_cast<double>(n) / s.seconds(); }

std::uint64_t count_of(const TraceSummary& s, const std::string& name) {
  auto it = s.counts.find(name);
  return it == s.counts.end() ? 0 : it->second;
}

const std::vector<double>& samples(const TraceSummary& s, const std::string& name) {
  static const std::vector<double> none;
  auto it = s.intervals.find(name);
  return it == s.intervals.end() ? none : it->second;
}

std::string num(double v) {
  if (std::isnan(v)) return "-";
  char b[32];
  double a = std::fabs(v);
  std::snprintf(b, sizeof b, a >= 1000 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f", v);
  return b;
}

}  // namespace

double CompareRow::ratio() const {
  if (std::isnan(real) || std::isnan(sim) || real == 0) return std::nan("");
  return sim / real;
}

std::vector<CompareRow> compare_traces(const TraceSummary& real, const TraceSummary& sim) {
  std::set<int> common;
  for (int c : real.cpus_seen)
    if (sim.cpus_seen.count(c)) common.insert(c);
  if (common.empty())
    throw InputError(real.path + " and " + sim.path + ": no CPU in common (each has sched_switch records on CPUs the other lacks)");
  std::vector<CompareRow> rows;
  for (const std::string& n : trace_interval_names()) {
    const auto &a = samples(real, n), &b = samples(sim, n);
    rows.push_back({n, "rate", rate(real, a.size()), rate(sim, b.size())});
    rows.push_back({n, "p10", quantile(a, 0.1), quantile(b, 0.1)});
    rows.push_back({n, "p50", quantile(a, 0.5), quantile(b, 0.5)});
    rows.push_back({n, "p90", quantile(a, 0.9), quantile(b, 0.9)});
  }
  for (const std::string& n : trace_count_names())
    rows.push_back({n, "rate", rate(real, count_of(real, n)), rate(sim, count_of(sim, n))});
  std::set<std::string> msrs;  // MSR writes, by MSR, on either side
  for (const TraceSummary* s : {&real, &sim})
    for (const auto& [n, c] : s->counts)
      if (n.rfind("msr_write.", 0) == 0) msrs.insert(n);
  for (const std::string& n : msrs) rows.push_back({n, "rate", rate(real, count_of(real, n)), rate(sim, count_of(sim, n))});
  for (int c : common) {
    auto share = [c](const TraceSummary& s) { return static_cast<double>(s.idle_ns.at(c)) / static_cast<double>(s.t1 - s.t0); };
    rows.push_back({"idle_share.cpu" + std::to_string(c), "share", share(real), share(sim)});
  }
  return rows;
}

std::vector<Band> load_bands(const std::string& path) {
  toml::table t = parse_toml_file(path);
  for (const auto& [k, v] : t) {
    if (k.str() == "band") continue;
    if (k.str() != "throughput")
      throw InputError(toml_at(path, v) + ": unknown key '" + std::string(k.str()) + "' (allowed: [[band]] tables, [throughput])");
    const toml::table* th = v.as_table();
    if (!th) throw InputError(toml_at(path, v) + ": 'throughput' must be a table with 'within'");
    for (const auto& [tk, tv] : *th) {
      std::optional<double> x = tv.value<double>();
      if (tk.str() != "within")
        throw InputError(toml_at(path, tv) + ": unknown key '" + std::string(tk.str()) + "' in [throughput] (allowed: within)");
      if (!x || !std::isfinite(*x) || *x < 1)
        throw InputError(toml_at(path, tv) + ": 'within' must be a number >= 1 (the allowed factor either way)");
    }
  }
  const toml::array* arr = t["band"].as_array();
  if (!arr) throw InputError(path + ": no [[band]] tables (each: interval, statistic, within or ratio)");
  std::set<std::string> names(trace_interval_names().begin(), trace_interval_names().end());
  names.insert(trace_count_names().begin(), trace_count_names().end());
  std::vector<Band> out;
  for (const toml::node& n : *arr) {
    const toml::table* b = n.as_table();
    std::string at = toml_at(path, n);
    if (!b) throw InputError(at + ": a band must be a table (interval, statistic, within or ratio)");
    Band band;
    band.where = at;
    bool have_range = false;
    for (const auto& [k, v] : *b) {
      std::string key(k.str()), vat = toml_at(path, v);
      if (key == "interval" || key == "statistic") {
        const auto* s = v.as_string();
        if (!s) throw InputError(vat + ": '" + key + "' must be a string");
        (key == "interval" ? band.interval : band.statistic) = s->get();
      } else if (key == "within") {
        std::optional<double> x = v.value<double>();
        if (!x || !std::isfinite(*x) || *x < 1)
          throw InputError(vat + ": 'within' must be a number >= 1 (the allowed factor either way)");
        if (have_range) throw InputError(vat + ": give 'within' or 'ratio', not both");
        band.lo = 1 / *x;
        band.hi = *x;
        have_range = true;
      } else if (key == "ratio") {
        const toml::array* r = v.as_array();
        std::optional<double> lo = r && r->size() == 2 ? (*r)[0].value<double>() : std::nullopt;
        std::optional<double> hi = r && r->size() == 2 ? (*r)[1].value<double>() : std::nullopt;
        if (!lo || !hi || !std::isfinite(*lo) || !std::isfinite(*hi) || *lo < 0 || *lo > *hi)
          throw InputError(vat + ": 'ratio' must be [LO, HI], numbers with 0 <= LO <= HI (sim / real)");
        if (have_range) throw InputError(vat + ": give 'within' or 'ratio', not both");
        band.lo = *lo;
        band.hi = *hi;
        have_range = true;
      } else {
        throw InputError(vat + ": unknown key '" + key + "' in a band (allowed: interval, statistic, within, ratio)");
      }
    }
    bool known = names.count(band.interval) || band.interval.rfind("msr_write.0x", 0) == 0 ||
                 band.interval.rfind("idle_share.cpu", 0) == 0;
    if (band.interval.empty()) throw InputError(at + ": a band needs 'interval'");
    if (!known)
      throw InputError(at + ": unknown interval '" + band.interval +
                       "' (allowed: the rows of vtick trace-compare: pre_hlt_window, halts, idle_share.cpuN, msr_write.0xNNN, ...)");
    bool stat_ok = false;
    for (const char* s : kStatistics) stat_ok = stat_ok || band.statistic == s;
    if (!stat_ok) throw InputError(at + ": statistic '" + band.statistic + "' (allowed: rate, p10, p50, p90, share)");
    bool is_interval = std::find(trace_interval_names().begin(), trace_interval_names().end(), band.interval) !=
                       trace_interval_names().end();
    bool is_share = band.interval.rfind("idle_share.cpu", 0) == 0;
    if ((band.statistic == "share") != is_share || (!is_interval && !is_share && band.statistic != "rate"))
      throw InputError(at + ": '" + band.interval + "' has no statistic '" + band.statistic +
                       "' (intervals: rate, p10, p50, p90; counts: rate; idle_share.cpuN: share)");
    if (!have_range) throw InputError(at + ": a band needs 'within' or 'ratio'");
    out.push_back(band);
  }
  return out;
}

std::vector<BandMiss> check_bands(const std::vector<CompareRow>& rows, const std::vector<Band>& bands) {
  std::vector<BandMiss> misses;
  for (const Band& b : bands) {
    const CompareRow* row = nullptr;
    for (const CompareRow& r : rows)
      if (r.name == b.interval && r.statistic == b.statistic) row = &r;
    char range[64];
    std::snprintf(range, sizeof range, "[%.3g, %.3g]", b.lo, b.hi);
    if (!row) {
      misses.push_back({b, "no such row in these traces"});
      continue;
    }
    double q = row->ratio();
    // neither side has any (a count of 0, or no samples for a quantile): consistent
    if ((row->real == 0 && row->sim == 0) || (std::isnan(row->real) && std::isnan(row->sim))) continue;
    if (std::isnan(q)) {
      misses.push_back({b, "no ratio (real " + num(row->real) + ", sim " + num(row->sim) + ")"});
    } else if (q < b.lo || q > b.hi) {
      char why[160];
      std::snprintf(why, sizeof why, "sim/real %.3g outside %s (real %s, sim %s)", q, range, num(row->real).c_str(),
                    num(row->sim).c_str());
      misses.push_back({b, why});
    }
  }
  return misses;
}

std::string compare_table(const TraceSummary& real, const TraceSummary& sim, const std::vector<CompareRow>& rows) {
  std::string o;
  char line[200];
  for (const TraceSummary* s : {&real, &sim}) {
    o += s == &real ? "real: " : "sim:  ";
    o += s->path + " (" + (s->buffer.empty() ? "top-level buffer" : "instance " + s->buffer);
    std::snprintf(line, sizeof line, ", %d CPUs, %.3f s, %llu records)\n", s->cpus, s->seconds(),
                  static_cast<unsigned long long>(s->records));
    o += line;
  }
  std::snprintf(line, sizeof line, "%-30s %-9s %12s %12s %9s\n", "row", "statistic", "real", "sim", "sim/real");
  o += line;
  for (const CompareRow& r : rows) {
    std::string stat = r.statistic == "rate" ? "rate/s" : r.statistic == "share" ? "share" : r.statistic + " us";
    std::snprintf(line, sizeof line, "%-30s %-9s %12s %12s %9s\n", r.name.c_str(), stat.c_str(), num(r.real).c_str(),
                  num(r.sim).c_str(), num(r.ratio()).c_str());
    o += line;
  }
  return o;
}

nlohmann::json compare_json(const TraceSummary& real, const TraceSummary& sim, const std::vector<CompareRow>& rows,
                            const std::vector<Band>& bands, const std::vector<BandMiss>& misses) {
  auto side = [](const TraceSummary& s) {
    return nlohmann::json{{"path", s.path},       {"buffer", s.buffer},   {"cpus", s.cpus},
                          {"seconds", s.seconds()}, {"records", s.records}};
  };
  auto val = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
  nlohmann::json j;
  j["real"] = side(real);
  j["sim"] = side(sim);
  j["rows"] = nlohmann::json::array();
  for (const CompareRow& r : rows)
    j["rows"].push_back({{"row", r.name}, {"statistic", r.statistic}, {"real", val(r.real)}, {"sim", val(r.sim)}, {"ratio", val(r.ratio())}});
  j["bands"] = nlohmann::json::array();
  for (const Band& b : bands) j["bands"].push_back({{"interval", b.interval}, {"statistic", b.statistic}, {"lo", b.lo}, {"hi", b.hi}});
  j["misses"] = nlohmann::json::array();
  for (const BandMiss& m : misses)
    j["misses"].push_back({{"interval", m.band.interval}, {"statistic", m.band.statistic}, {"where", m.band.where}, {"why", m.why}});
  return j;
}

}  // namespace vtick
