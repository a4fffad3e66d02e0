// Scenario loading: toml++ parses (it keeps each value's line and column for errors);
// every key is checked against its declaration (sim/scenario_params.cpp), defaults come
// from the declarations for the scenario's platform, then the checks that span keys.
#include "core/parse_num.hpp"
#include "sim/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "sim/scenario_script.hpp"
#include "sim/toml_text.hpp"

namespace vtick {

std::string printable_message(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (unsigned char c : s) {
    if (c == '\0') {
      o += "\\0";
    } else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      o += b;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o;
}

namespace {

// A value as written, before it is read as a parameter of a known kind.
struct Raw {
  enum class T { Int, Float, Str, Bool } t = T::Str;
  std::int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
  std::string text;   // as written
  std::string where;  // "file:line:col" or "--set '...'"
};

[[noreturn]] void fail(const std::string& where, const std::string& msg) { throw InputError(where + ": " + msg); }

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

// [workload] keys: the union over kinds (each kind's own ranges are checked later).
const std::vector<std::string>& workload_param_keys() {
  static const std::vector<std::string> v = [] {
    std::set<std::string> keys;
    for (const auto& kind : workload_kinds_table())
      for (const auto& p : kind.params) keys.insert("workload." + p.key);
    return std::vector<std::string>(keys.begin(), keys.end());
  }();
  return v;
}

bool is_workload_param(const std::string& key) {
  const auto& v = workload_param_keys();
  return std::binary_search(v.begin(), v.end(), key);
}

std::vector<std::string> all_keys() {
  std::vector<std::string> v;
  for (const auto& p : scenario_params()) v.push_back(p.key);
  for (const auto& k : workload_param_keys()) v.push_back(k);
  return v;
}

// Sections: every dotted prefix of a key ("host", "host.kvm", "host.mitigations", ...).
const std::vector<std::string>& sections() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    for (const auto& k : all_keys())
      for (std::size_t dot = k.find('.'); dot != std::string::npos; dot = k.find('.', dot + 1)) {
        std::string s = k.substr(0, dot);
        if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
      }
    return out;
  }();
  return v;
}

bool is_section(const std::string& k) {
  const auto& s = sections();
  return std::find(s.begin(), s.end(), k) != s.end();
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> d(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) d[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t prev = d[0];
    d[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cur = d[j];
      d[j] = std::min({d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] != b[j - 1] ? 1u : 0u)});
      prev = cur;
    }
  }
  return d[b.size()];
}

std::string unknown_key_message(const std::string& key) {
  std::string section = key.substr(0, key.rfind('.'));
  std::vector<std::string> same;
  std::string best;
  std::size_t best_d = 3;
  for (const auto& k : all_keys()) {
    if (k.rfind('.') == section.size() && k.compare(0, section.size(), section) == 0) same.push_back(k.substr(section.size() + 1));
    std::size_t d = edit_distance(key, k);
    if (d < best_d) { best_d = d; best = k; }
  }
  std::string m = "unknown key '" + key + "'";
  if (!best.empty()) m += " (did you mean '" + best + "'?)";
  if (!same.empty()) m += "; keys of [" + section + "]: " + join(same);
  else m += "; sections: " + join(sections());
  return m;
}

// The value of `r` as a parameter of kind `k` (types only; ranges are checked later).
PValue as_kind(const std::string& key, PKind k, const Raw& r) {
  const std::string head = key + " = " + r.text;
  switch (k) {
    case PKind::Int:
      if (r.t != Raw::T::Int) fail(r.where, head + ": must be an integer");
      return r.i;
    case PKind::Float:
      if (r.t == Raw::T::Int) return static_cast<double>(r.i);
      if (r.t != Raw::T::Float) fail(r.where, head + ": must be a number");
      if (!std::isfinite(r.f)) fail(r.where, head + ": must be a finite number");
      return r.f;
    case PKind::Bool:
      if (r.t != Raw::T::Bool) fail(r.where, head + ": must be true or false");
      return r.b;
    case PKind::Duration: {
      sim_ns ns = 0;
      if (r.t != Raw::T::Str || !parse_duration(r.s, ns))
        fail(r.where, head + ": must be a duration with a unit (ns, us, ms, s), e.g. \"10ms\"");
      return ns;
    }
    case PKind::Enum:
    case PKind::Text:
    case PKind::CpuList:
      if (r.t != Raw::T::Str) fail(r.where, head + ": must be a string");
      return r.s;
  }
  return r.s;
}

// A scalar TOML value as a Raw (text stays empty for arrays, tables, dates).
Raw from_node(const toml::node& n) {
  Raw r;
  if (auto v = n.as_integer()) {
    r.t = Raw::T::Int;
    r.i = v->get();
    r.text = std::to_string(r.i);
  } else if (auto f = n.as_floating_point()) {
    r.t = Raw::T::Float;
    r.f = f->get();
    std::ostringstream o;
    o << r.f;
    r.text = o.str();
  } else if (auto st = n.as_string()) {
    r.t = Raw::T::Str;
    r.s = st->get();
    r.text = "\"" + r.s + "\"";
  } else if (auto bo = n.as_boolean()) {
    r.t = Raw::T::Bool;
    r.b = bo->get();
    r.text = r.b ? "true" : "false";
  }
  return r;
}

// Checks a key exists and its value has the kind it declares (ranges depend on the
// platform: checked once it is known).
void check_key(const std::string& key, const Raw& r) {
  if (const auto* p = find_scenario_param(key)) {
    PValue v = as_kind(key, p->kind, r);
    if (p->kind == PKind::Enum || p->kind == PKind::CpuList) {
      std::string err = p->check_value(v, default_pctx());
      if (!err.empty()) fail(r.where, key + " = " + r.text + ": " + err);
    }
    return;
  }
  if (!is_workload_param(key)) fail(r.where, unknown_key_message(key));
  if (r.t != Raw::T::Int && r.t != Raw::T::Float && r.t != Raw::T::Str) fail(r.where, key + " = " + r.text + ": must be a number or a duration");
}

struct Input {
  std::map<std::string, Raw> raw;
  std::vector<ScriptTask> script;
  bool script_given = false;
};

void flatten_keys(const toml::table& t, const std::string& prefix, const std::string& file, Input& in) {
  for (auto&& [k, node] : t) {
    std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    const auto& src = node.source();
    std::string where = file + ":" + std::to_string(src.begin.line) + ":" + std::to_string(src.begin.column);
    if (node.is_table()) {
      if (!is_section(key)) fail(where, "unknown section [" + key + "]; sections: " + join(sections()));
      flatten_keys(*node.as_table(), key, file, in);
      continue;
    }
    if (key == "workload.task") {
      in.script = parse_script_tasks(node, file);
      in.script_given = true;
      continue;
    }
    if (!find_scenario_param(key) && !is_workload_param(key)) fail(where, unknown_key_message(key));
    Raw r = from_node(node);
    r.where = where;
    if (r.text.empty()) fail(where, key + ": unsupported value type (use a number, a string or a boolean)");
    check_key(key, r);
    in.raw[key] = r;
  }
}

// "section.key=value": the value is read as a TOML value, or else as a bare string.
void apply_set(const std::string& set, Input& in) {
  std::string where = "--set '" + set + "'";
  auto eq = set.find('=');
  if (eq == std::string::npos || eq == 0) fail(where, "expected section.key=value");
  std::string key = set.substr(0, eq), val = set.substr(eq + 1);
  if (!find_scenario_param(key) && !is_workload_param(key)) fail(where, unknown_key_message(key));
  Raw r;
  int line = 0, col = 0;
  try {
    std::string text = "v = " + val;
    if (toml_ascii_outside_strings(text, line, col)) {  // (else a bare string, below)
      toml::table t = toml::parse(text);
      r = from_node(*t.get("v"));
    }
  } catch (const toml::parse_error&) {
  }
  const Param<Scenario>* p = find_scenario_param(key);
  bool wants_string = p && (p->kind == PKind::Enum || p->kind == PKind::Text || p->kind == PKind::CpuList);
  if (r.text.empty() || (wants_string && r.t != Raw::T::Str)) {  // a bare string ("1" as a cpulist too)
    r.t = Raw::T::Str;
    r.s = val;
  }
  r.text = val;
  r.where = where;
  check_key(key, r);
  in.raw[key] = r;
}

// The collected values, read through their declarations.
struct Values {
  const Input& in;
  bool has(const std::string& k) const { return in.raw.count(k) != 0; }
  const Raw& at(const std::string& k) const { return in.raw.at(k); }
  std::string where(const std::string& k) const { return has(k) ? at(k).where : "default"; }
  PValue value(const std::string& k) const { return as_kind(k, find_scenario_param(k)->kind, at(k)); }
  std::string text(const std::string& k) const { return std::get<std::string>(value(k)); }
  std::int64_t integer(const std::string& k) const { return std::get<std::int64_t>(value(k)); }
};

// [platform]: the shape from the catalog, or a generic one from arch/cores/threads.
void resolve_platform(Scenario& sc, const Values& v) {
  PlatformSpec& p = sc.platform;
  if (v.has("platform.shape")) p.shape = v.text("platform.shape");
  bool generic = p.shape == "generic";
  for (const char* k : {"platform.arch", "platform.cores", "platform.threads_per_core"})
    if (v.has(k) && !generic) fail(v.where(k), std::string(k) + ": only allowed with platform.shape = \"generic\" (the shape " + p.shape + " fixes it)");
  if (generic) {
    if (v.has("platform.arch")) p.arch = v.text("platform.arch");
    auto names = arch_names();
    if (std::find(names.begin(), names.end(), p.arch) == names.end())
      fail(v.where("platform.arch"), "platform.arch = \"" + p.arch + "\": allowed values: " + join(names));
    const ArchCosts& a = arch_costs(p.arch);
    if (v.has("platform.cores")) {
      std::string err = find_scenario_param("platform.cores")->check_value(v.value("platform.cores"), a.ctx());
      if (!err.empty()) fail(v.where("platform.cores"), "platform.cores = " + v.at("platform.cores").text + ": " + err);
      p.cores = static_cast<int>(v.integer("platform.cores"));
    }
    p.threads_per_core = a.smt ? 2 : 1;
    if (v.has("platform.threads_per_core")) {
      std::string err = find_scenario_param("platform.threads_per_core")->check_value(v.value("platform.threads_per_core"), a.ctx());
      if (!err.empty()) fail(v.where("platform.threads_per_core"), "platform.threads_per_core = " + v.at("platform.threads_per_core").text + ": " + err);
      p.threads_per_core = static_cast<int>(v.integer("platform.threads_per_core"));
    }
    if (p.threads_per_core == 2 && !a.smt)
      fail(v.where("platform.threads_per_core"), "platform.threads_per_core = 2: " + p.arch + " has no SMT; allowed 1");
    sc.shape = Shape{"generic", p.arch, p.cores, p.threads_per_core};
  } else if (!lookup_shape(p.shape, sc.shape)) {
    fail(v.where("platform.shape"), "platform.shape = \"" + p.shape + "\": unknown shape; allowed: " + shape_allowed_text());
  }
  p.arch = sc.shape.arch;
  p.cores = sc.shape.cores;
  p.threads_per_core = sc.shape.threads_per_core;
  p.vcpus = sc.shape.vcpus();
  if (v.has("platform.vcpus")) {
    std::int64_t n = v.integer("platform.vcpus");
    if (n < 1 || n > sc.shape.vcpus())
      fail(v.where("platform.vcpus"), "platform.vcpus = " + std::to_string(n) + ": " + sc.shape.name + " has " +
                                          std::to_string(sc.shape.vcpus()) + " hardware threads; allowed 1 .. " + std::to_string(sc.shape.vcpus()));
    p.vcpus = static_cast<int>(n);
  }
  sc.vcpus = p.vcpus;
}

// Every other declared key: applicable on this platform, in its range there, then set.
void apply_keys(Scenario& sc, const Values& v, const PCtx& ctx) {
  for (const auto& [key, r] : v.in.raw) {
    const Param<Scenario>* p = find_scenario_param(key);
    if (!p || key.rfind("platform.", 0) == 0) continue;
    if (!p->applies(ctx))
      fail(r.where, key + ": an " + p->dflt.only_isa() + " parameter; " + sc.shape.name + " is " + ctx.isa);
    PValue val = v.value(key);
    std::string err = p->check_value(val, ctx);
    if (!err.empty()) {
      bool per_arch = key.rfind("host.costs.", 0) == 0;
      fail(r.where, key + " = " + r.text + ": " + (per_arch ? "for " + sc.shape.arch + " " : std::string()) + err);
    }
    p->set(sc, val);
  }
}

// CPU lists of host threads: hardware threads of this shape.
void check_hw_lists(Scenario& sc, const Values& v) {
  int hw_threads = sc.shape.cores * sc.shape.threads_per_core;
  for (auto [key, list] : {std::pair<const char*, CpuList*>{"host.iothread_cpus", &sc.host.iothread.cpus},
                           {"host.vhost_cpus", &sc.host.vhost.cpus},
                           {"host.noise.cpus", &sc.host.noise.cpus}}) {
    if (list->text.empty()) continue;
    if (!parse_cpulist(list->text, hw_threads, list->mask))
      fail(v.where(key), std::string(key) + " = \"" + list->text + "\": a cpulist of hardware threads 0 .. " + std::to_string(hw_threads - 1));
  }
}

void resolve_guest(Scenario& sc, const Values& v) {
  GuestParams& g = sc.guest;
  g.isa = sc.costs.isa;
  CpuidleDriver asked = g.cpuidle.driver;
  std::string err = parse_cmdline(g.cmdline, g, sc.vcpus);
  if (!err.empty()) fail(v.where("guest.cmdline"), "guest.cmdline = \"" + g.cmdline + "\": " + err);
  if (v.has("guest.cpuidle_driver") && g.cpuidle.driver != asked)
    fail(v.where("guest.cmdline"), std::string("guest.cmdline selects cpuidle driver '") + enum_name(g.cpuidle.driver) +
                                       "' but guest.cpuidle_driver = \"" + enum_name(asked) + "\"; set one of them");
  if (g.nohz_full & 1ULL)
    fail(v.where("guest.cmdline"), "guest.cmdline: nohz_full must leave CPU 0 as the housekeeping (timekeeping) CPU");
  g.series = nohz_poll_series_switches(g.nohz_poll_series);
  std::istringstream in(g.hotplug);
  std::string tok;
  while (in >> tok) {
    auto colon = tok.find(':'), at = tok.find('@');
    std::string bad = "guest.hotplug: '" + tok + "': ";
    if (colon == std::string::npos || at == std::string::npos || at < colon)
      fail(v.where("guest.hotplug"), bad + "expected CPU:offline@TIME or CPU:online@TIME, e.g. 1:offline@50ms");
    std::string cpu = tok.substr(0, colon), act = tok.substr(colon + 1, at - colon - 1);
    sim_ns t = 0;
    long long cpu_n = 0;
    if (!parse_int(cpu, 1, sc.vcpus - 1, cpu_n))
      fail(v.where("guest.hotplug"), bad + "CPU must be 1 .. " + std::to_string(sc.vcpus - 1) + " (CPU 0 cannot go offline)");
    if (act != "offline" && act != "online") fail(v.where("guest.hotplug"), bad + "action must be offline or online");
    if (!parse_duration(tok.substr(at + 1), t) || t <= 0) fail(v.where("guest.hotplug"), bad + "time must be a positive duration");
    g.hotplug_events.push_back({static_cast<int>(cpu_n), act == "online", t});
  }
  std::stable_sort(g.hotplug_events.begin(), g.hotplug_events.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
}

// [workload]: the kind's own keys, each in the kind's range.
void resolve_workload(Scenario& sc, const Values& v, const Input& in) {
  WorkloadSpec& w = sc.workload;
  const WorkloadKind& kind = workload_kind(w.kind);
  const char* kname = enum_name(w.kind);
  std::vector<std::string> kind_keys;
  for (const auto& p : kind.params) kind_keys.push_back("workload." + p.key);
  for (const auto& [k, r] : in.raw) {
    if (!is_workload_param(k)) continue;
    if (std::find(kind_keys.begin(), kind_keys.end(), k) == kind_keys.end())
      fail(r.where, k + ": does not apply to workload.kind = \"" + kname + "\"; its keys: " +
                        (kind_keys.empty() ? std::string("none") : join(kind_keys)));
  }
  for (const auto& p : kind.params) {
    std::string key = "workload." + p.key;
    double x = p.dflt;
    if (v.has(key)) {
      PValue val = as_kind(key, p.type == 'f' ? PKind::Float : p.type == 'd' ? PKind::Duration : PKind::Int, v.at(key));
      x = std::holds_alternative<double>(val) ? std::get<double>(val) : static_cast<double>(std::get<std::int64_t>(val));
    }
    if (x < p.lo || x > p.hi) {
      std::ostringstream o;
      o << key << " = " << v.at(key).text << ": out of range for " << kname << "; allowed ";
      if (p.type == 'd') o << format_duration(static_cast<sim_ns>(p.lo)) << " .. " << format_duration(static_cast<sim_ns>(p.hi));
      else o << p.lo << " .. " << p.hi;
      fail(v.where(key), o.str());
    }
    w.v[p.key] = x;
  }
  const std::uint64_t vcpu_mask = sc.vcpus >= 64 ? ~0ULL : (1ULL << sc.vcpus) - 1;  // the guest's CPUs
  if (w.kind == WorkloadKindId::Script) {
    if (!in.script_given) fail(sc.source, "workload.kind = \"script\" needs [[workload.task]] tables");
    for (const ScriptTask& st : in.script)
      if (!(st.cpus & vcpu_mask))
        fail(st.where, "workload.task.cpus of '" + st.name + "': no CPU of the guest's 0 .. " + std::to_string(sc.vcpus - 1));
    w.script = in.script;
  } else if (in.script_given) {
    fail(sc.source, "[[workload.task]] tables need workload.kind = \"script\"");
  }
  auto cpu_key = [&](const char* key) {
    if (!w.v.count(key)) return;
    int c = w.geti(key);
    if (c >= sc.vcpus)
      fail(v.where(std::string("workload.") + key), std::string("workload.") + key + " = " + std::to_string(c) + ": the VM has " +
                                                       std::to_string(sc.vcpus) + " vCPUs; allowed 0 .. " + std::to_string(sc.vcpus - 1));
  };
  cpu_key("cpu_a");
  cpu_key("cpu_b");
  cpu_key("cpu");
  cpu_key("disturber_cpu");
  // an affinity naming no vCPU: sched_setaffinity() fails with EINVAL (taskset refuses it)
  if (w.v.count("cpus_mask")) {
    auto mask = static_cast<std::uint64_t>(w.get("cpus_mask"));
    if (mask && !(mask & vcpu_mask)) {
      std::ostringstream o;
      o << "workload.cpus_mask = " << v.at("workload.cpus_mask").text << ": names no vCPU of this " << sc.vcpus
        << "-vCPU guest; allowed a mask with a bit in 0x" << std::hex << vcpu_mask << " (0: all vCPUs)";
      fail(v.where("workload.cpus_mask"), o.str());
    }
  }
  if (w.kind == WorkloadKindId::Pingpong && w.geti("cpu_a") == w.geti("cpu_b"))
    fail(v.where("workload.cpu_b"), "workload.cpu_b = " + std::to_string(w.geti("cpu_b")) + ": must differ from workload.cpu_a");
  if (w.kind == WorkloadKindId::NohzFullTest && !((sc.guest.nohz_full >> w.geti("cpu")) & 1ULL))
    fail(v.where("workload.cpu"), "workload.cpu = " + std::to_string(w.geti("cpu")) + ": must be a nohz_full CPU (guest.cmdline nohz_full=...)");
}

// [ablate]: each switches a mechanism off, outside the documented ranges on purpose.
void apply_ablations(Scenario& sc) {
  const AblateSpec& a = sc.ablate;
  if (a.tick_wakeup_cost) {
    sc.costs.hlt_exit_ns = sc.costs.vcpu_block_ns = sc.costs.vcpu_wakeup_ns = 0;
    sc.host.tick_wakeup_cost = 0;
  }
  if (a.halt_polling) sc.host.kvm.halt_poll_ns = 0;
  if (a.smt) sc.costs.smt_factor_busy = sc.costs.smt_factor_spin = 1.0;
  if (a.cstate_latency) sc.costs.zero_cstate_exits();
  if (a.load_balancing) sc.guest.sched.load_balance = false;
  if (a.timer_write_exits) {
    sc.costs.timer_write_exits = false;
    sc.costs.guest_timer_write_ns = 0;
  }
  if (a.mitigations) {
    sc.host.l1d_flush = L1dFlush::Never;
    sc.host.mds_clear = false;
  }
}

// The resolved configuration: every key that applies here with its effective value.
void record_resolved(Scenario& sc, const PCtx& ctx) {
  auto& r = sc.resolved;
  for (const auto& p : scenario_params()) {
    if (!p.applies(ctx)) continue;
    PValue val = p.get(sc);
    if (p.kind == PKind::Duration) val = format_duration(std::get<std::int64_t>(val));
    r.emplace_back(p.key, val);
  }
  const WorkloadSpec& w = sc.workload;
  for (const auto& p : workload_kind(w.kind).params) {
    double x = w.get(p.key);
    if (p.type == 'd') r.emplace_back("workload." + p.key, format_duration(static_cast<sim_ns>(x)));
    else if (p.type == 'i') r.emplace_back("workload." + p.key, static_cast<std::int64_t>(x));
    else r.emplace_back("workload." + p.key, x);
  }
  for (std::size_t i = 0; i < w.script.size(); ++i) {
    std::string pre = "workload.task" + std::to_string(i) + ".";
    const ScriptTask& st = w.script[i];
    r.emplace_back(pre + "name", st.name);
    r.emplace_back(pre + "count", std::int64_t{st.count});
    std::string prog;
    for (const auto& l : st.program) prog += (prog.empty() ? "" : "; ") + l;
    r.emplace_back(pre + "program", prog);
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> scenario_keys() {
  std::vector<std::pair<std::string, std::string>> v;
  for (const auto& p : scenario_params()) v.emplace_back(p.key, p.type_text() + ": " + p.help);
  for (const auto& key : workload_param_keys()) {
    std::string help;
    for (const auto& kind : workload_kinds_table())
      for (const auto& p : kind.params)
        if ("workload." + p.key == key && help.empty()) help = std::string(p.type == 'd' ? "duration" : p.type == 'f' ? "number" : "integer") + ": " + p.help;
    v.emplace_back(key, help + " (ranges per kind: vtick list workloads)");
  }
  return v;
}

void check_input_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  auto st = std::filesystem::status(path, ec);
  if (ec) return;  // missing or unreadable: the reader says so
  if (std::filesystem::is_directory(st)) throw InputError(path + ": a directory, not " + what);
  // a pipe (vtick run /dev/stdin < file) reads to its end; a device such as /dev/zero or
  // /dev/null would give an endless or empty file, read as the built-in defaults
  if (!std::filesystem::is_regular_file(st) && !std::filesystem::is_fifo(st))
    throw InputError(path + ": a device or socket, not " + what);
}

// An option that stands for one key (vtick run --seed 3: run.seed=3), checked as --set
// would check it, with the message naming the option as given.
void check_option_value(const std::string& option, const std::string& key, const std::string& value) {
  Input in;
  std::string where = "--set '" + key + "=" + value + "': ";
  try {
    apply_set(key + "=" + value, in);
    const auto* p = find_scenario_param(key);
    std::string err = p->check_value(as_kind(key, p->kind, in.raw.at(key)), default_pctx());
    if (!err.empty()) fail(where.substr(0, where.size() - 2), key + " = " + value + ": " + err);
  } catch (const InputError& e) {
    std::string m = e.what();
    if (m.rfind(where, 0) == 0) m = m.substr(where.size());
    throw InputError(option + " " + value + ": " + m);
  }
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets) {
  Input in;
  Scenario sc;
  sc.source = path.empty() ? "<built-in>" : path;
  if (!path.empty()) {
    check_input_file(path, "a scenario file (a TOML file such as scenarios/default.toml)");
    toml::table tbl = parse_toml_file(path);
    flatten_keys(tbl, "", path, in);
  }
  for (const auto& s : sets) apply_set(s, in);
  Values v{in};

  resolve_platform(sc, v);
  sc.costs = arch_costs(sc.shape.arch);
  const PCtx ctx = sc.costs.ctx();
  PlatformSpec platform = sc.platform;
  apply_defaults(sc, scenario_params(), ctx);  // every other key's default on this platform
  sc.platform = platform;
  apply_keys(sc, v, ctx);
  check_hw_lists(sc, v);
  resolve_guest(sc, v);
  resolve_workload(sc, v, in);
  if (sc.run.warmup >= sc.run.duration)
    fail(v.where("run.warmup"), "run.warmup = " + format_duration(sc.run.warmup) + ": must be shorter than run.duration (" +
                                    format_duration(sc.run.duration) + ")");
  apply_ablations(sc);
  record_resolved(sc, ctx);
  return sc;
}

}  // namespace vtick
