#include "core/parse_num.hpp"
#include "sim/sweep.hpp"

#include <algorithm>
#include <cstdio>
#include <regex>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "sim/scenario.hpp"
#include "sim/toml_text.hpp"

namespace vtick {

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& msg) { throw InputError(where + ": " + msg); }

std::string at(const std::string& file, const toml::node& n) { return toml_at(file, n); }
bool scalar_text(const toml::node& n, std::string& out) { return toml_scalar_text(n, out); }
bool known_key(const std::string& k) { return is_scenario_key(k); }

// An axis's values: an array of scalars, or "A..B" (integers, inclusive).
std::vector<std::string> axis_values(const std::string& file, const std::string& key, const toml::node& n,
                                     std::vector<std::string>* where = nullptr, bool unique = true) {
  std::vector<std::string> v;
  std::string text;
  if (n.is_string()) {
    static const std::regex range(R"(^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*$)");
    std::smatch m;
    text = n.as_string()->get();
    if (!std::regex_match(text, m, range))
      fail(at(file, n), key + ": an axis is an array of values, or \"A..B\" for the integers A to B");
    long long a = 0, b = 0;
    if (!parse_int(m[1], -1000000000000000LL, 1000000000000000LL, a) || !parse_int(m[2], -1000000000000000LL, 1000000000000000LL, b) ||
        b < a || b - a >= kMaxSweepPoints)
      fail(at(file, n), key + " = \"" + text + "\": need A <= B and at most " + std::to_string(kMaxSweepPoints) + " values");
    for (long long x = a; x <= b; ++x) {
      v.push_back(std::to_string(x));
      if (where) where->push_back(at(file, n));
    }
    return v;
  }
  const toml::array* arr = n.as_array();
  if (!arr || arr->empty()) fail(at(file, n), key + ": an axis is a non-empty array of values, or \"A..B\"");
  for (const toml::node& e : *arr) {
    if (!scalar_text(e, text)) fail(at(file, e), key + ": each value is a number, string or boolean");
    if (unique && std::find(v.begin(), v.end(), text) != v.end()) fail(at(file, e), key + ": value " + text + " given twice");
    v.push_back(text);
    if (where) where->push_back(at(file, e));
  }
  return v;
}

std::string format_count(double n) {
  char b[32];
  std::snprintf(b, sizeof b, n < 1e15 ? "%.0f" : "%.3g", n);
  return b;
}

void check_key(const std::string& file, const toml::node& n, const std::string& key) {
  if (!known_key(key)) fail(at(file, n), "unknown scenario key '" + key + "' (vtick list keys prints them all)");
}

// Each value (a [[zip]] row together) alone on the base scenario, so an error points at
// the value in the sweep file.
void check_value(const SweepSpec& s, const std::string& where, const std::vector<std::string>& keys,
                 const std::vector<std::string>& values) {
  std::vector<std::string> sets = s.sets;
  for (std::size_t k = 0; k < keys.size(); ++k) sets.push_back(keys[k] + "=" + values[k]);
  try {
    load_scenario(s.scenario, sets);
  } catch (const InputError& e) {
    std::string m = e.what();
    auto p = m.find("': ");  // drop the "--set '...'" prefix of the scenario loader
    fail(where, p != std::string::npos && m.rfind("--set", 0) == 0 ? m.substr(p + 3) : m);
  }
}

}  // namespace

std::vector<std::string> SweepPoint::sets() const {
  std::vector<std::string> v;
  for (const auto& [k, x] : values) v.push_back(k + "=" + x);
  return v;
}

SweepSpec load_sweep(const std::string& path) {
  check_input_file(path, "a sweep file (TOML: scenario, [set], [axes])");
  toml::table t = parse_toml_file(path);
  SweepSpec s;
  s.source = path;
  std::string dir = path.find('/') == std::string::npos ? "" : path.substr(0, path.rfind('/') + 1);
  std::vector<std::pair<std::string, const toml::node*>> where_of;  // axis value nodes, for errors
  for (auto&& [k, node] : t) {
    std::string key(k.str());
    if (key == "scenario") {
      if (!node.is_string()) fail(at(path, node), "scenario: a path (string), relative to this file");
      std::string sc = node.as_string()->get();
      s.scenario = !sc.empty() && sc[0] == '/' ? sc : dir + sc;
    } else if (key == "set") {
      if (!node.is_table()) fail(at(path, node), "[set]: a table of \"section.key\" = value");
      for (auto&& [sk, sv] : *node.as_table()) {
        std::string sk_s(sk.str()), text;
        check_key(path, sv, sk_s);
        if (!scalar_text(sv, text)) fail(at(path, sv), sk_s + ": a number, string or boolean");
        s.sets.push_back(sk_s + "=" + text);
      }
    } else if (key == "axes") {
      if (!node.is_table()) fail(at(path, node), "[axes]: a table of \"section.key\" = [values] or \"A..B\"");
      for (auto&& [ak, av] : *node.as_table()) {
        std::string ak_s(ak.str());
        check_key(path, av, ak_s);
        SweepAxis a;
        a.keys = {ak_s};
        for (const auto& x : axis_values(path, ak_s, av, &a.where)) a.values.push_back({x});
        s.axes.push_back(a);
      }
    } else if (key == "zip") {
      const toml::array* arr = node.as_array();
      if (!arr || !arr->is_array_of_tables()) fail(at(path, node), "zip: [[zip]] tables of keys whose value lists vary together");
      for (const toml::node& zn : *arr) {
        SweepAxis a;
        std::vector<std::vector<std::string>> cols;
        for (auto&& [zk, zv] : *zn.as_table()) {
          std::string zk_s(zk.str());
          check_key(path, zv, zk_s);
          a.keys.push_back(zk_s);
          std::vector<std::string> w;
          cols.push_back(axis_values(path, zk_s, zv, &w, false));  // a zipped column may repeat
          if (a.where.empty()) a.where = w;
          if (cols.back().size() != cols.front().size())
            fail(at(path, zv), zk_s + ": every list of a [[zip]] has the same length (" + std::to_string(cols.front().size()) + ")");
        }
        if (a.keys.empty()) fail(at(path, zn), "[[zip]]: give at least one key");
        for (std::size_t i = 0; i < cols.front().size(); ++i) {
          std::vector<std::string> row;
          for (const auto& c : cols) row.push_back(c[i]);
          a.values.push_back(row);
        }
        s.axes.push_back(a);
      }
    } else if (key == "exclude") {
      const toml::array* arr = node.as_array();
      if (!arr || !arr->is_array_of_tables()) fail(at(path, node), "exclude: [[exclude]] tables of \"section.key\" = value");
      for (const toml::node& en : *arr) {
        std::map<std::string, std::string> m;
        for (auto&& [ek, ev] : *en.as_table()) {
          std::string ek_s(ek.str()), text;
          if (!scalar_text(ev, text)) fail(at(path, ev), ek_s + ": a number, string or boolean");
          m[ek_s] = text;
        }
        if (m.empty()) fail(at(path, en), "[[exclude]]: give at least one key = value");
        s.excludes.push_back(m);
      }
    } else {
      fail(at(path, node), "unknown entry '" + key + "'; a sweep file has: scenario, [set], [axes], [[zip]], [[exclude]]");
    }
  }
  if (s.scenario.empty()) fail(path, "scenario: missing (the base scenario file)");
  if (s.axes.empty()) fail(path, "[axes]: missing (at least one key to vary)");
  try {
    load_scenario(s.scenario, s.sets);
  } catch (const InputError& e) {
    throw InputError(path + ": scenario " + s.scenario + " with [set]: " + e.what());
  }
  // Keys once each; run.seed last, the rest by their first key.
  std::vector<std::string> all;
  for (const auto& a : s.axes)
    for (const auto& k : a.keys) {
      if (std::find(all.begin(), all.end(), k) != all.end()) fail(path, "key " + k + " is swept twice");
      all.push_back(k);
    }
  std::stable_sort(s.axes.begin(), s.axes.end(), [](const SweepAxis& a, const SweepAxis& b) {
    bool as = a.keys[0] == "run.seed", bs = b.keys[0] == "run.seed";
    if (as != bs) return bs;
    return a.keys[0] < b.keys[0];
  });
  for (const auto& e : s.excludes)
    for (const auto& [k, v] : e)
      if (std::find(all.begin(), all.end(), k) == all.end()) fail(path, "[[exclude]]: " + k + " is not a swept key");
  // The grid's size before anything is expanded: a product of axes that no machine could
  // run is an error that says so, not a long silence.
  double points = 1;
  std::string product;
  for (const auto& a : s.axes) {
    points *= static_cast<double>(a.values.size());
    product += (product.empty() ? "" : " x ") + std::to_string(a.values.size()) + " (" + a.keys[0] + ")";
  }
  if (points > static_cast<double>(kMaxSweepPoints))
    fail(path, "the grid has " + format_count(points) + " points, " + product + "; at most " + std::to_string(kMaxSweepPoints) +
                   ": split it into several sweep files");
  // Each value alone on the base scenario. A seed is valid or not by its range alone, so
  // of the seed axis the two ends are loaded (99,999 seeds took minutes of loading).
  for (const auto& a : s.axes)
    for (std::size_t i = 0; i < a.values.size(); ++i)
      if (a.keys != std::vector<std::string>{"run.seed"} || i == 0 || i + 1 == a.values.size()) check_value(s, a.where[i], a.keys, a.values[i]);
  // Each grid point, once per combination of the other keys (the seed changes no validity).
  std::set<std::vector<std::string>> seen;
  for (const auto& p : sweep_grid(s)) {
    std::vector<std::string> sets = s.sets, others;
    for (const auto& x : p.sets()) {
      sets.push_back(x);
      if (x.rfind("run.seed=", 0) != 0) others.push_back(x);
    }
    if (!seen.insert(others).second) continue;
    try {
      load_scenario(s.scenario, sets);
    } catch (const InputError& e) {
      std::string pt;
      for (const auto& x : p.sets()) pt += (pt.empty() ? "" : " ") + x;
      throw InputError(path + ": grid point " + std::to_string(p.index) + " (" + pt + "): " + e.what() +
                       " (drop it with an [[exclude]] table)");
    }
  }
  return s;
}

std::vector<std::string> sweep_columns(const SweepSpec& s) {
  std::vector<std::string> c;
  for (const auto& a : s.axes) c.insert(c.end(), a.keys.begin(), a.keys.end());
  return c;
}

std::vector<SweepPoint> sweep_grid(const SweepSpec& s) {
  std::vector<SweepPoint> out;
  std::vector<std::size_t> idx(s.axes.size(), 0);
  if (s.axes.empty()) return out;
  for (;;) {
    SweepPoint p;
    for (std::size_t a = 0; a < s.axes.size(); ++a)
      for (std::size_t k = 0; k < s.axes[a].keys.size(); ++k) p.values.emplace_back(s.axes[a].keys[k], s.axes[a].values[idx[a]][k]);
    bool excluded = std::any_of(s.excludes.begin(), s.excludes.end(), [&](const std::map<std::string, std::string>& e) {
      return std::all_of(e.begin(), e.end(), [&](const auto& kv) {
        for (const auto& [k, v] : p.values)
          if (k == kv.first) return v == kv.second;
        return false;
      });
    });
    if (!excluded) {
      p.index = static_cast<int>(out.size());
      out.push_back(p);
    }
    std::size_t a = s.axes.size();
    while (a > 0) {
      --a;
      if (++idx[a] < s.axes[a].values.size()) break;
      idx[a] = 0;
      if (a == 0) return out;
    }
  }
}

}  // namespace vtick
