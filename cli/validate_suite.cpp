// vtick validate-suite: the published measurements of validation/*.toml, each run as its
// file says and compared with the band fixed in that file (validation/README.md).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <toml++/toml.h>
#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/run_json.hpp"
#include "sim/fork_pool.hpp"
#include "sim/results.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"

namespace vtick {

using json = nlohmann::ordered_json;  // as compare and run write them: keys in their order
namespace fs = std::filesystem;

namespace {

// What a case compares, computed from a run's JSON. Declared once: the loader's allowed
// values, the table's unit and validation/README.md's list come from here.
struct SuiteMetric {
  const char* name;
  const char* unit;
  const char* meaning;
  double (*of)(const json& run);
};

double us_per_op(const json& r) { return 1e6 / summary_value(r, "ops_per_s"); }
// tsuna/contextswitch timectxsw.c divides by iterations << 2: four switches per round trip.
double ns_per_ctxsw(const json& r) { return 1e9 / (4 * summary_value(r, "ops_per_s")); }
double op_latency_p50_us(const json& r) { return summary_value(r, "op_latency_p50_ms") * 1e3; }
double wake_latency_p50_us(const json& r) { return summary_value(r, "wake_latency_p50_us"); }
double c0_pct(const json& r) {  // mean over the VM's hardware threads
  double measured = r["manifest"].value("measured_ns", 0.0), sum = 0;
  int n = 0;
  for (auto& [k, v] : r["metrics"].items())
    if (k.rfind("pcpu", 0) == 0 && k.size() > 11 && k.compare(k.size() - 11, 11, ".time.c0_ns") == 0 && v.is_number()) {
      sum += v.get<double>();
      ++n;
    }
  return n && measured > 0 ? 100.0 * sum / (n * measured) : NAN;
}

const SuiteMetric kMetrics[] = {
    {"us_per_op", "us/op", "wall time per op of the workload (1 / ops_per_s): a round trip of pingpong", us_per_op},
    {"ns_per_ctxsw", "ns", "a pingpong round trip / 4, as timectxsw counts context switches (iterations << 2)", ns_per_ctxsw},
    {"op_latency_p50_us", "us", "median op latency of a script task with a mark phase", op_latency_p50_us},
    {"wake_latency_p50_us", "us", "median wake-up latency (try_to_wake_up() to running)", wake_latency_p50_us},
    {"c0_pct", "%", "time the VM's hardware threads spend out of a C-state (C0), mean", c0_pct},
};

const SuiteMetric* find_metric(const std::string& name) {
  for (const auto& m : kMetrics)
    if (name == m.name) return &m;
  return nullptr;
}

std::string num(double x) {
  if (!std::isfinite(x)) return "n/a";
  char b[32];
  double a = std::fabs(x);
  std::snprintf(b, sizeof b, a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f", x);
  return b;
}

struct Case {
  std::string id, file, title, arch, source, url, setup, published, band_rule, band_chosen, pins, explanation;
  double value = NAN, lo = NAN, hi = NAN;
  const SuiteMetric* metric = nullptr;
  bool fast = false, expect_fail = false, has_baseline = false;
  std::string scenario;  // path, resolved against the case file's directory
  std::vector<std::string> sets, baseline_sets;
  double vtick = NAN;
  std::string verdict;  // PASS, FAIL, ERROR
};

struct Bad : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string where(const std::string& file, const toml::node& n) {
  const auto& s = n.source();
  return file + ":" + std::to_string(s.begin.line) + ":" + std::to_string(s.begin.column);
}

std::string text(const std::string& file, const toml::table& t, const char* key, bool required) {
  const toml::node* n = t.get(key);
  if (!n) {
    if (required) throw Bad(file + ": [case] needs '" + key + "' (a string)");
    return "";
  }
  if (!n->is_string()) throw Bad(where(file, *n) + ": case." + key + " must be a string");
  return n->as_string()->get();
}

std::vector<std::string> strings(const std::string& file, const toml::table& t, const char* key, const char* section) {
  std::vector<std::string> out;
  const toml::node* n = t.get(key);
  if (!n) return out;
  const toml::array* a = n->as_array();
  if (!a) throw Bad(where(file, *n) + ": " + section + "." + key + " must be an array of \"section.key=value\" strings");
  for (const auto& e : *a) {
    if (!e.is_string()) throw Bad(where(file, e) + ": " + section + "." + key + " holds strings only");
    out.push_back(e.as_string()->get());
  }
  return out;
}

void only_keys(const std::string& file, const toml::table& t, const char* section, const std::vector<std::string>& allowed) {
  for (const auto& [k, v] : t)
    if (std::find(allowed.begin(), allowed.end(), std::string(k.str())) == allowed.end()) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw Bad(where(file, v) + ": unknown key " + (*section ? std::string(section) + "." : std::string()) + std::string(k.str()) +
                "; allowed: " + list);
    }
}

Case load_case(const fs::path& path) {
  const std::string file = path.string();
  toml::table doc;
  try {
    doc = toml::parse_file(file);
  } catch (const toml::parse_error& e) {
    throw Bad(file + ":" + std::to_string(e.source().begin.line) + ":" + std::to_string(e.source().begin.column) + ": " +
              std::string(e.description()));
  }
  only_keys(file, doc, "", {"case", "baseline"});
  const toml::table* c = doc["case"].as_table();
  if (!c) throw Bad(file + ": needs a [case] table");
  only_keys(file, *c, "case",
            {"title", "arch", "source", "url", "setup", "published", "value", "metric", "band", "band_rule", "band_chosen",
             "fast", "scenario", "set", "expect", "explanation", "pins"});
  Case k;
  k.id = path.stem().string();
  k.file = file;
  k.title = text(file, *c, "title", true);
  k.arch = text(file, *c, "arch", true);
  if (k.arch != "x86_64" && k.arch != "arm64") throw Bad(where(file, *c->get("arch")) + ": case.arch: allowed x86_64, arm64");
  k.source = text(file, *c, "source", true);
  k.url = text(file, *c, "url", false);
  k.setup = text(file, *c, "setup", true);
  k.published = text(file, *c, "published", true);
  k.band_rule = text(file, *c, "band_rule", true);
  k.band_chosen = text(file, *c, "band_chosen", true);
  k.pins = text(file, *c, "pins", false);
  k.explanation = text(file, *c, "explanation", false);
  std::string metric = text(file, *c, "metric", true);
  k.metric = find_metric(metric);
  if (!k.metric) {
    std::string list;
    for (const auto& m : kMetrics) list += std::string(list.empty() ? "" : ", ") + m.name;
    throw Bad(where(file, *c->get("metric")) + ": case.metric = \"" + metric + "\": allowed " + list);
  }
  const toml::node* v = c->get("value");
  if (!v || !(v->is_floating_point() || v->is_integer()))
    throw Bad((v ? where(file, *v) : file) + ": case.value (the published figure, a finite number) is required");
  k.value = v->value<double>().value_or(NAN);
  if (!std::isfinite(k.value)) throw Bad(where(file, *v) + ": case.value must be a finite number");
  const toml::node* b = c->get("band");
  const toml::array* ba = b ? b->as_array() : nullptr;
  if (!ba || ba->size() != 2 || !(*ba)[0].value<double>() || !(*ba)[1].value<double>())
    throw Bad((b ? where(file, *b) : file) + ": case.band must be [low, high], two numbers");
  k.lo = *(*ba)[0].value<double>();
  k.hi = *(*ba)[1].value<double>();
  if (!(std::isfinite(k.lo) && std::isfinite(k.hi) && k.lo < k.hi)) throw Bad(where(file, *b) + ": case.band: low < high, both finite");
  // validation/README.md's rule, from the value: the band is the rule's, not a choice
  if (k.band_rule != "A" && k.band_rule != "B" && k.band_rule != "C")
    throw Bad(where(file, *c->get("band_rule")) + ": case.band_rule = \"" + k.band_rule + "\": allowed A, B, C (validation/README.md)");
  double rlo, rhi;
  if (k.band_rule == "A") rlo = k.value / 1.5, rhi = k.value * 1.5;
  else if (k.band_rule == "B") rlo = k.value / 2, rhi = k.value * 2;
  else {
    double d = std::max(0.1, std::fabs(1 - k.value) / 2);
    rlo = k.value - d, rhi = k.value + d;
  }
  auto off = [](double x, double want) { return std::fabs(x - want) > 1e-3 * std::fabs(want) + 1e-4; };
  if (off(k.lo, rlo) || off(k.hi, rhi)) {
    char want[96];
    std::snprintf(want, sizeof want, "[%.4g, %.4g]", rlo, rhi);
    throw Bad(where(file, *b) + ": case.band is not rule " + k.band_rule + "'s band for value " + num(k.value) + ": " + want);
  }
  if (const toml::node* f = c->get("fast")) {
    if (!f->is_boolean()) throw Bad(where(file, *f) + ": case.fast must be true or false");
    k.fast = f->as_boolean()->get();
  }
  std::string expect = text(file, *c, "expect", false);
  if (!expect.empty() && expect != "pass" && expect != "fail")
    throw Bad(where(file, *c->get("expect")) + ": case.expect: allowed \"pass\" (the default), \"fail\"");
  k.expect_fail = expect == "fail";
  if (k.expect_fail && k.explanation.empty()) throw Bad(file + ": case.expect = \"fail\" needs case.explanation (why it fails)");
  std::string sc = text(file, *c, "scenario", true);
  k.scenario = (path.parent_path() / sc).lexically_normal().string();
  if (!fs::is_regular_file(k.scenario))
    throw Bad(where(file, *c->get("scenario")) + ": case.scenario = \"" + sc + "\": " + k.scenario + " is not a file");
  k.sets = strings(file, *c, "set", "case");
  if (const toml::node* bn = doc.get("baseline")) {
    const toml::table* bt = bn->as_table();
    if (!bt) throw Bad(where(file, *bn) + ": baseline must be a table ([baseline] with set = [...])");
    only_keys(file, *bt, "baseline", {"set"});
    k.has_baseline = true;
    k.baseline_sets = strings(file, *bt, "set", "baseline");
  }
  if (k.has_baseline != (k.band_rule == "C"))
    throw Bad(file + ": a ratio ([baseline]) takes band_rule C, an absolute figure A or B");
  return k;
}


// A band's bound as written in its file (4 significant digits), never rounded into it.
std::string band_text(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", x);
  return b;
}

// Text in a markdown table cell: a '|' would end the cell, a newline the row.
std::string cell(std::string t) {
  std::string o;
  for (char ch : t) o += ch == '|' ? std::string("\\|") : ch == '\n' ? std::string(" ") : std::string(1, ch);
  return o;
}

std::string unit_of(const Case& k) { return k.has_baseline ? "ratio" : k.metric->unit; }

std::string markdown(const std::vector<Case>& cases) {
  std::ostringstream o;
  o << "| case | arch | published | band | vtick | verdict |\n|---|---|---|---|---|---|\n";
  for (const auto& k : cases) {
    std::string esc;  // the source's own brackets ("[PATCH v8 ...]") would end the link text
    for (char ch : k.source) esc += (ch == '[' || ch == ']') ? std::string("\\") + ch : std::string(1, ch);
    std::string src = k.url.empty() ? esc : "[" + esc + "](" + k.url + ")";
    o << "| `" << k.id << "`: " << cell(k.title) << " (" << cell(src) << ") | " << k.arch << " | " << cell(k.published) << " | "
      << band_text(k.lo) << " .. " << band_text(k.hi) << " " << unit_of(k) << " | " << num(k.vtick) << " | " << k.verdict
      << (k.verdict != "PASS" && !k.explanation.empty() ? ": " + cell(k.explanation) : "") << " |\n";
  }
  return o.str();
}

}  // namespace

int cmd_validate_suite(const SuiteOptions& o) {
  std::vector<Case> cases;
  try {
    if (!fs::is_directory(o.dir)) throw Bad("--dir " + o.dir + ": not a directory (the suite is validation/ in the source tree)");
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(o.dir))
      if (e.is_regular_file() && e.path().extension() == ".toml") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      Case k = load_case(f);
      if (o.fast && !k.fast) continue;
      if (!o.only.empty() && k.id != o.only) continue;
      cases.push_back(std::move(k));
    }
    if (cases.empty())
      throw Bad(o.only.empty() ? o.dir + ": no case files (*.toml)"
                               : "--case " + o.only + ": no such case in " + o.dir + (o.fast ? " among the fast ones" : ""));
    for (const auto& k : cases) {  // bad input fails here, before any run
      auto check = [&](const std::vector<std::string>& sets, const char* what) {
        Scenario sc;
        try {
          sc = load_scenario(k.scenario, sets);
        } catch (const InputError& e) {
          throw Bad(k.file + ": " + what + " of this case: " + e.what());
        }
        const char* isa = sc.costs.isa == Isa::X86_64 ? "x86_64" : "arm64";
        if (k.arch != isa) throw Bad(k.file + ": case.arch = \"" + k.arch + "\" but its scenario runs " + isa);
      };
      check(k.sets, "the scenario with case.set");
      if (k.has_baseline) check(k.baseline_sets, "the scenario with baseline.set");
    }
  } catch (const Bad& e) {
    spdlog::error("{}", e.what());
    return 2;
  } catch (const InputError& e) {
    spdlog::error("{}", e.what());
    return 2;
  }
  if (!o.json_path.empty())
    if (int rc = check_output("--json", o.json_path)) return rc;
  if (!o.markdown_path.empty())
    if (int rc = check_output("--markdown", o.markdown_path)) return rc;

  struct Job {
    size_t c;
    bool baseline;
  };
  std::vector<Job> jobs;
  for (size_t i = 0; i < cases.size(); ++i) {
    jobs.push_back({i, false});
    if (cases[i].has_baseline) jobs.push_back({i, true});
  }
  char tmpl[] = "/tmp/vtick-suite-XXXXXX";
  if (!mkdtemp(tmpl)) {
    spdlog::error("cannot create a temporary directory in /tmp");
    return 1;
  }
  std::string dir = tmpl;
  auto out_path = [&](size_t j) { return dir + "/run" + std::to_string(j) + ".json"; };
  Progress bar(static_cast<int>(jobs.size()), o.quiet);
  auto status = run_forked(
      static_cast<int>(jobs.size()), o.jobs > 0 ? o.jobs : default_jobs(),
      [&](int j) {
        const Job& jb = jobs[static_cast<size_t>(j)];
        const Case& k = cases[jb.c];
        Scenario sc = load_scenario(k.scenario, jb.baseline ? k.baseline_sets : k.sets);
        RunResult r = run_simulation(sc);
        if (!write_output("", out_path(static_cast<size_t>(j)), results_json(sc, r, false))) return 1;
        return r.failed ? 1 : 0;
      },
      [&](int j, int rc) {
        const Job& jb = jobs[static_cast<size_t>(j)];
        bar.step(cases[jb.c].id + (jb.baseline ? " (baseline)" : ""), rc == 0);
      });
  std::vector<json> runs(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    std::ifstream f(out_path(j));
    if (f) runs[j] = json::parse(f, nullptr, false);
    std::remove(out_path(j).c_str());
  }
  rmdir(dir.c_str());
  int failed = 0;
  bool input_error = false;  // a case file asking for what its scenario cannot give
  std::vector<std::string> errors(cases.size());
  json out = json::array();
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (jobs[j].baseline) continue;
    Case& k = cases[jobs[j].c];
    bool ok = status[j] == 0 && runs[j].is_object();
    double x = ok ? k.metric->of(runs[j]) : NAN;
    if (ok && k.has_baseline) {
      bool bok = status[j + 1] == 0 && runs[j + 1].is_object();
      x = bok ? x / k.metric->of(runs[j + 1]) : NAN;
      ok = bok;
    }
    k.vtick = x;
    k.verdict = !ok || !std::isfinite(x) ? "ERROR" : (x >= k.lo && x <= k.hi ? "PASS" : "FAIL");
    for (size_t r : {j, j + 1})
      if (r < jobs.size() && jobs[r].c == jobs[j].c && status[r] != 0)
        errors[jobs[j].c] = runs[r].is_object() ? runs[r]["manifest"].value("error", "the run failed") : "the run left no result";
    // the runs went through but gave no figure: the case asks its scenario for a metric it
    // does not give (an op latency from a workload that marks no ops)
    if (ok && !std::isfinite(x) && errors[jobs[j].c].empty()) {
      errors[jobs[j].c] = std::string("its scenario's runs give no ") + k.metric->name +
                          " (their workload does not record it: case.metric asks for what the scenario cannot give)";
      input_error = true;
    }
    if (k.verdict != "PASS") ++failed;
    out.push_back({{"case", k.id},
                   {"title", k.title},
                   {"arch", k.arch},
                   {"source", k.source},
                   {"url", k.url},
                   {"published", k.published},
                   {"value", k.value},
                   {"metric", k.metric->name},
                   {"unit", unit_of(k)},
                   {"band", {k.lo, k.hi}},
                   {"vtick", std::isfinite(x) ? json(x) : json(nullptr)},
                   {"verdict", k.verdict},
                   {"expect", k.expect_fail ? "fail" : "pass"},
                   {"explanation", k.explanation}});
  }
  std::printf("%-34s %-6s %-24s %-22s %-10s %s\n", "case", "arch", "published", "band", "vtick", "verdict");
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& k = cases[i];
    std::string note = k.verdict == "ERROR"  ? ": " + errors[i]
                       : k.verdict == "FAIL" ? (k.expect_fail ? " (known: see its file)" : " (unexpected)")
                       : k.expect_fail       ? " (unexpected: its file says expect = \"fail\")"
                                             : "";
    std::printf("%-34s %-6s %-24s %-22s %-10s %s%s\n", k.id.c_str(), k.arch.c_str(), k.published.substr(0, 24).c_str(),
                (band_text(k.lo) + " .. " + band_text(k.hi) + " " + unit_of(k)).c_str(), num(k.vtick).c_str(), k.verdict.c_str(),
                note.c_str());
  }
  std::printf("%zu cases: %zu pass, %d fail\n", cases.size(), cases.size() - static_cast<size_t>(failed), failed);
  if (!o.json_path.empty() && !write_output("--json", o.json_path, out.dump(1) + "\n")) return 1;
  if (!o.markdown_path.empty() && !write_output("--markdown", o.markdown_path, markdown(cases))) return 1;
  if (input_error) return 2;
  return failed ? 1 : 0;
}

}  // namespace vtick
