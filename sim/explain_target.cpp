#include "sim/explain_target.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "core/time.hpp"
#include "sim/results.hpp"
#include "sim/scenario.hpp"
#include "sim/toml_text.hpp"

namespace vtick {

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& msg) { throw InputError(where + ": " + msg); }

std::string at(const std::string& file, const toml::node& n) { return toml_at(file, n); }
bool scalar_text(const toml::node& n, std::string& out) { return toml_scalar_text(n, out); }

// A finite number, or a duration string ("200us": ns).
bool number_of(const toml::node& n, double& out) {
  if (auto i = n.as_integer()) out = static_cast<double>(i->get());
  else if (auto f = n.as_floating_point()) out = f->get();
  else if (auto s = n.as_string()) {
    sim_ns d = 0;
    if (!parse_duration(s->get(), d)) return false;
    out = static_cast<double>(d);
  } else return false;
  return std::isfinite(out);
}

std::string need_string(const std::string& file, const toml::node& n, const std::string& key) {
  if (!n.is_string() || n.as_string()->get().empty()) fail(at(file, n), key + ": a non-empty string");
  return n.as_string()->get();
}

void need_pair(const std::string& file, const toml::node& n, const std::string& key, double& lo, double& hi) {
  const toml::array* a = n.as_array();
  if (!a || a->size() != 2 || !number_of(*a->get(0), lo) || !number_of(*a->get(1), hi) || lo > hi)
    fail(at(file, n), key + ": [LO, HI], two finite numbers (or durations such as \"50us\") with LO <= HI");
}

bool known_key(const std::string& k) { return is_scenario_key(k); }

bool known_pattern(const std::string& p) {
  for (const auto& [key, what] : scenario_keys())
    if (key_matches(p, key)) return true;
  return false;
}

std::vector<std::string> patterns(const std::string& file, const toml::node& n, const std::string& key) {
  const toml::array* a = n.as_array();
  if (!a) fail(at(file, n), key + ": an array of key patterns (\"host.kvm.*\" or a key)");
  std::vector<std::string> v;
  for (const toml::node& e : *a) {
    std::string p = need_string(file, e, key);
    if (!known_pattern(p)) fail(at(file, e), key + ": '" + p + "' matches no scenario key (vtick list keys)");
    v.push_back(p);
  }
  return v;
}

void allow_only(const std::string& file, const toml::table& t, const std::string& what, const std::set<std::string>& keys) {
  for (auto&& [k, n] : t) {
    std::string key(k.str());
    if (!keys.count(key)) {
      std::string list;
      for (const auto& x : keys) list += (list.empty() ? "" : ", ") + x;
      fail(at(file, n), "unknown key '" + key + "' in " + what + " (allowed: " + list + ")");
    }
  }
}

TargetRun read_run(const std::string& file, const std::string& dir, const toml::table& t) {
  allow_only(file, t, "[[run]]", {"id", "scenario", "set"});
  TargetRun r;
  if (!t.get("id")) fail(at(file, t), "[[run]] needs id");
  if (!t.get("scenario")) fail(at(file, t), "[[run]] needs scenario (a path relative to this file)");
  r.id = need_string(file, *t.get("id"), "id");
  std::string sc = need_string(file, *t.get("scenario"), "scenario");
  r.scenario = sc[0] == '/' ? sc : dir + sc;
  if (const toml::node* s = t.get("set")) {
    if (!s->is_table()) fail(at(file, *s), "set: a table of \"section.key\" = value");
    for (auto&& [k, v] : *s->as_table()) {
      std::string key(k.str()), text;
      if (!known_key(key)) fail(at(file, v), "unknown scenario key '" + key + "' (vtick list keys)");
      if (!scalar_text(v, text)) fail(at(file, v), key + ": a finite number, string or boolean");
      r.sets.push_back(key + "=" + text);
    }
  }
  try {
    load_scenario(r.scenario, r.sets);
  } catch (const InputError& e) {
    fail(at(file, t), "[[run]] " + r.id + ": " + e.what());
  }
  return r;
}

TargetConstraint read_constraint(const std::string& file, const toml::table& t, const ExplainTarget& tg) {
  allow_only(file, t, "[[constraint]]", {"id", "run", "key", "base", "variant", "band", "within", "reported", "why"});
  TargetConstraint c;
  for (const char* k : {"id", "run", "base", "variant"})
    if (!t.get(k)) fail(at(file, t), std::string("[[constraint]] needs ") + k);
  c.id = need_string(file, *t.get("id"), "id");
  c.run = need_string(file, *t.get("run"), "run");
  if (std::none_of(tg.runs.begin(), tg.runs.end(), [&](const TargetRun& r) { return r.id == c.run; }))
    fail(at(file, *t.get("run")), "run: '" + c.run + "' is no [[run]] id above");
  c.key = t.get("key") ? need_string(file, *t.get("key"), "key") : "guest.tick_policy";
  if (!known_key(c.key)) fail(at(file, *t.get("key")), "key: unknown scenario key '" + c.key + "'");
  if (!scalar_text(*t.get("base"), c.base)) fail(at(file, *t.get("base")), "base: a value of key");
  if (!scalar_text(*t.get("variant"), c.variant)) fail(at(file, *t.get("variant")), "variant: a value of key");
  const toml::node* band = t.get("band");
  const toml::node* within = t.get("within");
  if (!!band == !!within)
    fail(at(file, t), "[[constraint]] " + c.id + ": give band = [LO, HI] (% change) or within = X (|change| <= X %), one of them");
  if (band) {
    const toml::array* a = band->as_array();
    if (a && std::any_of(a->begin(), a->end(), [](const toml::node& e) { return e.is_string(); }))
      fail(at(file, *band), "band: [LO, HI], the change of the metric in percent, two numbers (not durations)");
    need_pair(file, *band, "band", c.lo, c.hi);
  }
  else {
    double x = 0;
    if (!number_of(*within, x) || x <= 0 || within->is_string()) fail(at(file, *within), "within: a positive number of percent");
    c.lo = -x;
    c.hi = x;
  }
  if (c.hi - c.lo < 0.5) fail(at(file, band ? *band : *within), "the band must be at least 0.5 % wide (seed noise)");
  if (const toml::node* r = t.get("reported")) {
    if (!number_of(*r, c.reported) || r->is_string()) fail(at(file, *r), "reported: the reported change in %, a number");
    c.has_reported = true;
  }
  if (const toml::node* w = t.get("why")) c.why = need_string(file, *w, "why");
  const TargetRun& run = *std::find_if(tg.runs.begin(), tg.runs.end(), [&](const TargetRun& r) { return r.id == c.run; });
  for (const std::string* v : {&c.base, &c.variant}) {
    std::vector<std::string> sets = run.sets;
    sets.push_back(c.key + "=" + *v);
    try {
      load_scenario(run.scenario, sets);
    } catch (const InputError& e) {
      fail(at(file, t), "[[constraint]] " + c.id + ": " + e.what());
    }
  }
  return c;
}

void read_space(const std::string& file, const toml::table& t, ExplainTarget& tg) {
  allow_only(file, t, "[space]", {"exclude", "only", "add"});
  if (const toml::node* n = t.get("exclude")) tg.exclude = patterns(file, *n, "exclude");
  if (const toml::node* n = t.get("only")) tg.only = patterns(file, *n, "only");
  if (const toml::node* a = t.get("add")) {
    if (!a->is_table()) fail(at(file, *a), "[space.add]: \"key\" = [LO, HI] (a range) or { choices = [...] } / { range = [LO, HI], source = \"...\" }");
    for (auto&& [k, v] : *a->as_table()) {
      TargetFactor f;
      f.key = std::string(k.str());
      f.where = at(file, v);
      if (!known_key(f.key)) fail(f.where, "unknown scenario key '" + f.key + "' (vtick list keys)");
      const toml::node* range = &v;
      if (const toml::table* ft = v.as_table()) {
        allow_only(file, *ft, "[space.add]." + f.key, {"range", "choices", "source"});
        if (const toml::node* s = ft->get("source")) f.source = need_string(file, *s, "source");
        range = ft->get("range");
        if (const toml::node* ch = ft->get("choices")) {
          const toml::array* arr = ch->as_array();
          if (range || !arr || arr->size() < 2) fail(at(file, *ch), f.key + ": choices = [two or more values], without range");
          for (const toml::node& e : *arr) {
            std::string x;
            if (!scalar_text(e, x)) fail(at(file, e), f.key + ": each choice a number, string or boolean");
            f.choices.push_back(x);
          }
        }
      }
      if (f.choices.empty()) {
        if (!range) fail(f.where, f.key + ": a range [LO, HI] or choices");
        need_pair(file, *range, f.key, f.lo, f.hi);
        f.numeric = true;
      }
      tg.add.push_back(f);
    }
  }
}

void read_departures(const std::string& file, const toml::table& t, ExplainTarget& tg) {
  for (auto&& [k, v] : t) {
    TargetDeparture d;
    d.key = std::string(k.str());
    d.where = at(file, v);
    if (!known_key(d.key)) fail(d.where, "unknown scenario key '" + d.key + "' (vtick list keys)");
    const toml::table* dt = v.as_table();
    if (!dt) fail(d.where, d.key + ": { documented = [LO, HI], values = [...], why = \"...\" }");
    allow_only(file, *dt, "[departure]." + d.key, {"documented", "values", "why"});
    if (!dt->get("documented") || !dt->get("values")) fail(d.where, d.key + ": needs documented = [LO, HI] and values = [...]");
    need_pair(file, *dt->get("documented"), "documented", d.documented_lo, d.documented_hi);
    const toml::array* vals = dt->get("values")->as_array();
    if (!vals || vals->empty()) fail(at(file, *dt->get("values")), "values: a non-empty array, smallest departure first");
    for (const toml::node& e : *vals) {
      std::string x;
      double num = 0;
      if (!scalar_text(e, x) || !number_of(e, num)) fail(at(file, e), "values: numbers or durations");
      if (num >= d.documented_lo && num <= d.documented_hi) fail(at(file, e), "values: " + x + " is inside the documented range");
      d.values.push_back(x);
      d.numbers.push_back(num);
    }
    if (const toml::node* w = dt->get("why")) d.why = need_string(file, *w, "why");
    tg.departures.push_back(d);
  }
}

void read_budget(const std::string& file, const toml::table& t, ExplainTarget& tg) {
  for (auto&& [k, v] : t) {
    std::string key(k.str());
    if (key == "duration") {
      sim_ns d = 0;
      if (!v.is_string() || !parse_duration(v.as_string()->get(), d) || d < 1000000 || d > 3600000000000LL)
        fail(at(file, v), "duration: a duration from 1ms to 1h, e.g. \"500ms\"");
      tg.budget_duration = v.as_string()->get();
      continue;
    }
    const BudgetKey* b = nullptr;
    for (const auto& x : budget_keys())
      if (key == x.key) b = &x;
    if (!b) {
      std::string list = "duration";
      for (const auto& x : budget_keys()) list += std::string(", ") + x.key;
      fail(at(file, v), "unknown key '" + key + "' in [budget] (allowed: " + list + ")");
    }
    auto i = v.as_integer();
    if (!i || i->get() < b->lo || i->get() > b->hi)
      fail(at(file, v), key + ": an integer from " + std::to_string(b->lo) + " to " + std::to_string(b->hi));
    tg.budget_ints.emplace_back(key, static_cast<int>(i->get()));
  }
}

}  // namespace

const std::vector<BudgetKey>& budget_keys() {
  static const std::vector<BudgetKey> v = {
      {"screen_seeds", 1, 100}, {"morris_r", 1, 100},      {"lhs_points", 0, 10000}, {"top", 1, 1000},
      {"starts", 0, 100},       {"evals_per_start", 1, 10000}, {"confirm_seeds", 1, 100}, {"best_sets", 1, 100},
      {"batch", 1, 100000},
  };
  return v;
}

bool key_matches(const std::string& pattern, const std::string& key) {
  if (!pattern.empty() && pattern.back() == '*') return key.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
  return pattern == key;
}

ExplainTarget load_target(const std::string& path) {
  check_input_file(path, "a target file (TOML: [[run]], [[constraint]], [space], [departure])");
  toml::table t = parse_toml_file(path);
  ExplainTarget tg;
  tg.source = path;
  std::string dir = path.find('/') == std::string::npos ? "" : path.substr(0, path.rfind('/') + 1);
  allow_only(path, t, "a target file", {"title", "metric", "run", "constraint", "space", "departure", "budget"});
  if (const toml::node* n = t.get("title")) tg.title = need_string(path, *n, "title");
  if (const toml::node* n = t.get("metric")) {
    tg.metric = need_string(path, *n, "metric");
    std::vector<std::string> keys = summary_keys();
    if (std::find(keys.begin(), keys.end(), tg.metric) == keys.end()) {
      std::string all;
      for (const std::string& k : keys) all += (all.empty() ? "" : ", ") + k;
      fail(at(path, *n), "metric: '" + tg.metric + "' is not a field of a run's summary (allowed: " + all + ")");
    }
  }
  const toml::array* runs = t.get("run") ? t.get("run")->as_array() : nullptr;
  if (!runs || !runs->is_array_of_tables() || runs->empty()) fail(path, "needs [[run]] tables (id, scenario, set)");
  if (runs->size() > kMaxTargetRuns)
    fail(at(path, *t.get("run")), std::to_string(runs->size()) + " [[run]] tables: at most " + std::to_string(kMaxTargetRuns));
  for (const toml::node& r : *runs) {
    tg.runs.push_back(read_run(path, dir, *r.as_table()));
    for (std::size_t i = 0; i + 1 < tg.runs.size(); ++i)
      if (tg.runs[i].id == tg.runs.back().id) fail(at(path, r), "[[run]] id '" + tg.runs.back().id + "' given twice");
  }
  const toml::array* cs = t.get("constraint") ? t.get("constraint")->as_array() : nullptr;
  if (!cs || !cs->is_array_of_tables() || cs->empty()) fail(path, "needs [[constraint]] tables (id, run, base, variant, band or within)");
  if (cs->size() > kMaxTargetConstraints)
    fail(at(path, *t.get("constraint")),
         std::to_string(cs->size()) + " [[constraint]] tables: at most " + std::to_string(kMaxTargetConstraints));
  for (const toml::node& c : *cs) {
    tg.constraints.push_back(read_constraint(path, *c.as_table(), tg));
    for (std::size_t i = 0; i + 1 < tg.constraints.size(); ++i)
      if (tg.constraints[i].id == tg.constraints.back().id)
        fail(at(path, c), "[[constraint]] id '" + tg.constraints.back().id + "' given twice");
  }
  if (const toml::node* s = t.get("space")) {
    if (!s->is_table()) fail(at(path, *s), "[space]: a table (exclude, only, add)");
    read_space(path, *s->as_table(), tg);
  }
  if (const toml::node* d = t.get("departure")) {
    if (!d->is_table()) fail(at(path, *d), "[departure]: a table of keys");
    read_departures(path, *d->as_table(), tg);
  }
  if (const toml::node* b = t.get("budget")) {
    if (!b->is_table()) fail(at(path, *b), "[budget]: a table of the --budget figures to override");
    read_budget(path, *b->as_table(), tg);
  }
  // what the search's last stages would set, tried on every run now: a departure value the
  // key's own range refuses, a budget duration the warm-up does not fit in
  for (const TargetRun& run : tg.runs) {
    for (const TargetDeparture& d : tg.departures)
      for (const std::string& v : d.values) {
        std::vector<std::string> sets = run.sets;
        sets.push_back(d.key + "=" + v);
        try {
          load_scenario(run.scenario, sets);
        } catch (const InputError& e) {
          fail(d.where, "[departure]." + d.key + ": value " + v + " on [[run]] '" + run.id + "': " + e.what());
        }
      }
    if (!tg.budget_duration.empty()) {
      std::vector<std::string> sets = run.sets;
      sets.push_back("run.duration=" + tg.budget_duration);
      try {
        load_scenario(run.scenario, sets);
      } catch (const InputError& e) {
        fail(at(path, *t.get("budget")->as_table()->get("duration")),
             "[budget] duration = \"" + tg.budget_duration + "\" on [[run]] '" + run.id + "': " + e.what());
      }
    }
  }
  return tg;
}

}  // namespace vtick
