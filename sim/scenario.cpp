// Scenario loading: toml++ parses (it keeps each value's line and column for errors);
// this file validates every key against the schema and resolves defaults.
#include "sim/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <toml++/toml.h>

#include "guest/tick_policy.hpp"

namespace vtick {

namespace {

enum class VType { Int, Float, Str, Duration, Bool };

struct Spec {
  std::string key;
  VType type;
  double lo = 0, hi = 0;               // numeric range (durations in ns); lo > hi: none
  std::vector<std::string> choices;    // allowed strings (empty: any)
  std::string help;
};

struct Raw {
  VType type;
  std::int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
  std::string text;   // as written
  std::string where;  // "file:line:col" or "--set"
};

const char* kSections[] = {"ablate", "platform",    "host",         "host.kvm",   "host.costs", "host.sched", "host.mitigations", "host.noise",
                           "guest",       "guest.costs",  "guest.nohz", "guest.sched", "guest.timers", "workload", "run"};

std::vector<std::string> policy_names() {
  std::vector<std::string> v;
  for (const auto& p : tick_policies()) v.push_back(p.name);
  return v;
}

const std::vector<Spec>& specs() {
  static const std::vector<Spec> s = [] {
    const double NS = 1, US = 1e3, S = 1e9;  // durations are checked in ns
    std::vector<Spec> v = {
        {"platform.shape", VType::Str, 1, 0, {}, "shape from the catalog, or generic"},
        {"platform.arch", VType::Str, 1, 0, arch_names(), "cost table (generic shape only)"},
        {"platform.cores", VType::Int, 1, 256, {}, "host cores (generic shape only)"},
        {"platform.threads_per_core", VType::Int, 1, 2, {}, "SMT threads per core (generic shape only)"},
        {"platform.vcpus", VType::Int, 1, 512, {}, "vCPUs, pinned 1:1 to hardware threads"},
        {"host.idle_governor", VType::Str, 1, 0, {"menu", "promote"}, "host idle state choice: from the next timer event, or by idle time"},
        {"host.max_cstate", VType::Str, 1, 0, {"C1", "C1E", "C6"}, "deepest host C-state (intel_idle.max_cstate)"},
        {"host.io_latency", VType::Duration, 0, 100 * 1e6, {}, "block request service time of the host device (mean)"},
        {"host.io_latency_dist", VType::Str, 1, 0, {"constant", "exponential", "lognormal"}, "distribution of the block request service time"},
        {"host.io_latency_sigma", VType::Float, 0, 2, {}, "lognormal: standard deviation of log(service time)"},
        {"host.pinning", VType::Str, 1, 0, {"dedicated", "shared"}, "vCPU threads: one hardware thread each, or any of the VM's"},
        {"host.iothread", VType::Bool, 1, 0, {}, "a VMM I/O thread submits and completes block requests"},
        {"host.iothread_cpus", VType::Str, 1, 0, {}, "hardware threads (cpulist) the I/O thread may use; empty: all the VM's"},
        {"host.vhost", VType::Bool, 1, 0, {}, "a vhost-net worker thread handles virtio-net TX and RX"},
        {"host.vhost_cpus", VType::Str, 1, 0, {}, "hardware threads (cpulist) the vhost worker may use; empty: all the VM's"},
        {"host.net_latency", VType::Duration, 0, 1e9, {}, "round trip to the network peer (mean; distribution of host.io_latency_dist)"},
        {"host.noise.threads", VType::Int, 0, 64, {}, "host noise threads competing for the VM's hardware threads"},
        {"host.noise.hz", VType::Float, 0, 1e6, {}, "wake-ups per second of each noise thread"},
        {"host.noise.work", VType::Duration, 1, 1e9, {}, "CPU work per noise wake-up"},
        {"host.noise.cpus", VType::Str, 1, 0, {}, "hardware threads (cpulist) noise may use; empty: all the VM's"},
        {"host.sched.wakeup_granularity", VType::Duration, 0, 100 * 1e6, {}, "host sysctl_sched_wakeup_granularity"},
        {"host.sched.min_granularity", VType::Duration, 1, 100 * 1e6, {}, "host sysctl_sched_min_granularity"},
        {"host.sched.latency", VType::Duration, 1, 1e9, {}, "host sysctl_sched_latency"},
        {"host.mitigations.l1d_flush", VType::Str, 1, 0, {"never", "cond", "always"}, "kvm-intel.vmentry_l1d_flush"},
        {"host.mitigations.mds_clear", VType::Bool, 1, 0, {}, "VERW buffer clearing on VM entry"},
        {"host.kvm.halt_poll_ns", VType::Int, 0, 10e6, {}, "KVM module parameter halt_poll_ns"},
        {"host.kvm.halt_poll_ns_grow", VType::Int, 0, 64, {}, "KVM module parameter halt_poll_ns_grow"},
        {"host.kvm.halt_poll_ns_grow_start", VType::Int, 0, 10e6, {}, "KVM module parameter halt_poll_ns_grow_start"},
        {"host.kvm.halt_poll_ns_shrink", VType::Int, 0, 64, {}, "KVM module parameter halt_poll_ns_shrink"},
        {"host.kvm.max_halt_poll_ns", VType::Int, -1, 10e6, {}, "per-VM KVM_CAP_HALT_POLL override (-1: not set)"},
        {"host.kvm.lapic_timer_advance", VType::Bool, 1, 0, {}, "x86: start the sw timer early and busy-wait to the deadline"},
        {"host.kvm.ple_gap", VType::Int, 0, 1024, {}, "x86 kvm-intel.ple_gap (0: no pause-loop exiting)"},
        {"host.kvm.ple_window", VType::Int, 1, 1e9, {}, "x86 kvm-intel.ple_window (cycles)"},
        {"host.kvm.ple_window_grow", VType::Int, 1, 64, {}, "x86 kvm-intel.ple_window_grow"},
        {"host.kvm.ple_window_shrink", VType::Int, 0, 64, {}, "x86 kvm-intel.ple_window_shrink (0: reset)"},
        {"host.kvm.ple_window_max", VType::Int, 1, 4294967295.0, {}, "x86 kvm-intel.ple_window_max (cycles)"},
        {"host.kvm.hlt_passthrough", VType::Bool, 1, 0, {}, "x86 KVM_X86_DISABLE_EXITS_HLT: HLT idles the hardware thread, no exit"},
        {"host.kvm.wfi_trap_policy", VType::Str, 1, 0, {"default", "trap", "notrap"}, "arm64 kvm-arm.wfi_trap_policy"},
        {"host.kvm.direct_injection", VType::Bool, 1, 0, {}, "arm64 GICv4.1 vSGI / GICv4 vLPI direct injection available"},
        {"host.timer_poll", VType::Str, 1, 0, {"off", "replace", "extend"}, "timer-aware polling (not upstream)"},
        {"host.timer_poll_threshold", VType::Duration, 0, 1e9, {}, "timer-aware polling: guest timer within this"},
        {"host.reclaim", VType::Bool, 1, 0, {}, "idle-vCPU reclaim by guest timer distance (not upstream)"},
        {"host.tick_wakeup_cost", VType::Duration, 0, 1e6, {}, "amplifier: extra host work per timer wake-up of a halted vCPU"},
        {"host.reclaim_threshold", VType::Duration, 0, 1e9, {}, "idle reclaim: timers further than this release the thread"},
        {"guest.hz", VType::Int, 1, 0, {}, "CONFIG_HZ"},
        {"guest.tick_policy", VType::Str, 1, 0, policy_names(), "idle tick-stop variant"},
        {"guest.cpuidle_driver", VType::Str, 1, 0, {"none", "single-state", "haltpoll"}, "guest cpuidle driver"},
        {"guest.cmdline", VType::Str, 1, 0, {}, "guest boot parameters"},
        {"guest.timer_slack", VType::Duration, 0, 1e9 * NS, {}, "task timer_slack_ns"},
        {"guest.nohz_poll_series", VType::Str, 1, 0, nohz_poll_series_names(), "2026 nohz_full idle=poll series variant"},
        {"guest.cputime", VType::Str, 1, 0, {"old", "new"}, "idle cputime accounting: old dual scheme or the 2026 refactor"},
        {"guest.hotplug", VType::Str, 1, 0, {}, "CPU hotplug events: \"CPU:offline@TIME CPU:online@TIME ...\""},
        {"guest.poll_relax_batch", VType::Duration, 1, 100 * US, {}, "time of POLL_IDLE_RELAX_COUNT cpu_relax() between clock checks"},
        {"guest.nohz.rcu_needs_cpu", VType::Float, 0, 1, {}, "probability that rcu_needs_cpu() keeps the tick"},
        {"guest.nohz.irq_work_needs_cpu", VType::Float, 0, 1, {}, "probability that irq_work_needs_cpu() keeps the tick"},
        {"guest.nohz.softirq_pending", VType::Float, 0, 1, {}, "probability that a timer softirq is pending"},
        {"guest.timers.background_hz", VType::Float, 0, 10000, {}, "per-CPU timer-wheel timers per second"},
        {"guest.sched.wake_affine", VType::Bool, 1, 0, {}, "wake-affine / select_idle_sibling placement"},
        {"guest.sched.load_balance", VType::Bool, 1, 0, {}, "tick, newidle and nohz idle load balancing"},
        {"guest.sched.balance_interval", VType::Duration, 0, 1 * S, {}, "sd min balance interval (0: sd_weight ms)"},
        {"guest.sched.migration_cost", VType::Duration, 0, 10e6 * NS, {}, "sysctl_sched_migration_cost"},
        {"guest.sched.cache_refill", VType::Duration, 0, 1e6 * NS, {}, "work a migrated task pays to refill caches"},
        {"workload.kind", VType::Str, 1, 0, workload_kinds(), "workload"},
        {"run.duration", VType::Duration, 1 * US, 3600 * S, {}, "simulated time"},
        {"run.warmup", VType::Duration, 0, 3600 * S, {}, "simulated time before measuring"},
        {"run.seed", VType::Int, 0, 9.0e15, {}, "seed of every random stream"},
        {"ablate.tick_wakeup_cost", VType::Bool, 1, 0, {}, "ablation: halting and waking a vCPU costs the host nothing"},
        {"ablate.halt_polling", VType::Bool, 1, 0, {}, "ablation: no host halt polling"},
        {"ablate.smt", VType::Bool, 1, 0, {}, "ablation: SMT siblings do not slow each other"},
        {"ablate.cstate_latency", VType::Bool, 1, 0, {}, "ablation: host C-states exit instantly"},
        {"ablate.load_balancing", VType::Bool, 1, 0, {}, "ablation: no guest load balancing"},
        {"ablate.timer_write_exits", VType::Bool, 1, 0, {}, "ablation: guest timer writes do not exit"},
        {"ablate.mitigations", VType::Bool, 1, 0, {}, "ablation: no VM-entry mitigations"},
        {"run.fast_work", VType::Duration, 0, 10000, {}, "work up to this long is timed as a wait, not a SimGrid Exec (0: always Exec)"},
        {"run.quantum", VType::Duration, 0, 1000000, {}, "short work runs ahead of the SimGrid clock without an event, never past another actor's next possible wake-up, at most this far (0: off)"},
    };
    for (const auto& r : arch_table("skylake-sp").rows)
      v.push_back({"host.costs." + r.key, VType::Float, 1, 0, {}, cost_description(r.key)});
    for (const auto& r : guest_cost_rows()) v.push_back({"guest.costs." + r.key, VType::Int, 1, 0, {}, r.source});
    // [workload] keys: the union over kinds; each kind's own ranges are checked later
    for (const auto& kind : workload_kinds_table())
      for (const auto& p : kind.params) {
        std::string key = "workload." + p.key;
        bool seen = false;
        for (const auto& e : v) seen |= e.key == key;
        if (seen) continue;
        VType t = p.type == 'i' ? VType::Int : p.type == 'f' ? VType::Float : VType::Duration;
        v.push_back({key, t, 1, 0, {}, p.help});
      }
    return v;
  }();
  return s;
}

const Spec* find_spec(const std::string& key) {
  for (const auto& s : specs())
    if (s.key == key) return &s;
  return nullptr;
}

bool is_section(const std::string& k) {
  for (const char* s : kSections)
    if (k == s) return true;
  return false;
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

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

[[noreturn]] void fail(const std::string& where, const std::string& msg) { throw InputError(where + ": " + msg); }

std::string unknown_key_message(const std::string& key) {
  std::string section = key.substr(0, key.rfind('.'));
  std::vector<std::string> same;
  std::string best;
  std::size_t best_d = 3;
  for (const auto& s : specs()) {
    if (s.key.substr(0, s.key.rfind('.')) == section) same.push_back(s.key.substr(section.size() + 1));
    std::size_t d = edit_distance(key, s.key);
    if (d < best_d) { best_d = d; best = s.key; }
  }
  std::string m = "unknown key '" + key + "'";
  if (!best.empty()) m += " (did you mean '" + best + "'?)";
  if (!same.empty()) m += "; keys of [" + section + "]: " + join(same);
  else m += "; sections: " + join(std::vector<std::string>(std::begin(kSections), std::end(kSections)));
  return m;
}

std::string range_text(const Spec& s) {
  auto num = [&](double x) {
    if (s.type == VType::Duration) return format_duration(static_cast<sim_ns>(x));
    std::ostringstream o;
    o << static_cast<long long>(x);
    return o.str();
  };
  return "allowed " + num(s.lo) + " .. " + num(s.hi);
}

// Checks a value's type and its schema-level range or choices.
Raw check(const Spec& s, Raw r) {
  const std::string head = s.key + " = " + r.text;
  switch (s.type) {
    case VType::Int:
      if (r.type != VType::Int) fail(r.where, head + ": must be an integer");
      if (s.lo <= s.hi && (r.i < s.lo || r.i > s.hi)) fail(r.where, head + ": out of range; " + range_text(s));
      break;
    case VType::Float:
      if (r.type == VType::Int) r.f = static_cast<double>(r.i);
      else if (r.type != VType::Float) fail(r.where, head + ": must be a number");
      r.type = VType::Float;
      if (s.lo <= s.hi && (r.f < s.lo || r.f > s.hi)) {
        std::ostringstream o;
        o << head << ": out of range; allowed " << s.lo << " .. " << s.hi;
        fail(r.where, o.str());
      }
      break;
    case VType::Str:
      if (r.type != VType::Str) fail(r.where, head + ": must be a string");
      if (!s.choices.empty() && std::find(s.choices.begin(), s.choices.end(), r.s) == s.choices.end())
        fail(r.where, head + ": allowed values: " + join(s.choices));
      break;
    case VType::Bool:
      if (r.type != VType::Bool) fail(r.where, head + ": must be true or false");
      break;
    case VType::Duration: {
      sim_ns ns = 0;
      if (r.type != VType::Str || !parse_duration(r.s, ns))
        fail(r.where, head + ": must be a duration with a unit (ns, us, ms, s), e.g. \"10ms\"");
      if (s.lo <= s.hi && (ns < s.lo || ns > s.hi)) fail(r.where, head + ": out of range; " + range_text(s));
      r.i = ns;
      r.type = VType::Duration;
      break;
    }
  }
  return r;
}

// A scalar TOML value as a Raw (text stays empty for arrays, tables, booleans, dates).
Raw from_node(const toml::node& n) {
  Raw r;
  if (auto v = n.as_integer()) { r.type = VType::Int; r.i = v->get(); r.text = std::to_string(r.i); }
  else if (auto f = n.as_floating_point()) {
    r.type = VType::Float;
    r.f = f->get();
    std::ostringstream o;
    o << r.f;
    r.text = o.str();
  } else if (auto st = n.as_string()) { r.type = VType::Str; r.s = st->get(); r.text = "\"" + r.s + "\""; }
  else if (auto bo = n.as_boolean()) { r.type = VType::Bool; r.b = bo->get(); r.text = r.b ? "true" : "false"; }
  return r;
}

// [[workload.task]] tables of workload.kind = "script".
std::vector<ScriptTask> g_script;
bool g_script_given = false;

void collect_script(const toml::node& node, const std::string& file) {
  auto at = [&](const toml::node& n) {
    return file + ":" + std::to_string(n.source().begin.line) + ":" + std::to_string(n.source().begin.column);
  };
  const toml::array* arr = node.as_array();
  if (!arr || !arr->is_array_of_tables()) fail(at(node), "workload.task: expected [[workload.task]] tables");
  g_script_given = true;
  for (const toml::node& tn : *arr) {
    const toml::table& t = *tn.as_table();
    ScriptTask st;
    st.where = at(tn);
    for (auto&& [k, v] : t) {
      std::string key(k.str());
      std::string w = at(v);
      if (key == "name" && v.is_string()) st.name = v.as_string()->get();
      else if (key == "cpus" && v.is_string()) {
        if (!parse_cpulist(v.as_string()->get(), 64, st.cpus)) fail(w, "workload.task.cpus: a cpulist like \"0-1\"");
      } else if (key == "count" && v.is_integer()) {
        st.count = static_cast<int>(v.as_integer()->get());
        if (st.count < 1 || st.count > 1024) fail(w, "workload.task.count: allowed 1 .. 1024");
      } else if (key == "program" && v.is_array()) {
        bool takes_time = false;  // lock, unlock and loop can take no time at all (a user-space CAS)
        for (const toml::node& line : *v.as_array()) {
          if (!line.is_string()) fail(at(line), "workload.task.program: each phase is a string, e.g. \"run 100us\"");
          std::string err = check_script_phase(line.as_string()->get());
          if (!err.empty()) fail(at(line), "workload.task.program: " + err);
          std::istringstream words(line.as_string()->get());
          std::string op;
          long target = -1;
          words >> op;
          if (op == "loop" && st.program.empty())
            fail(at(line), "workload.task.program: '" + line.as_string()->get() + "': a loop cannot be the first phase");
          if (op == "loop" && words >> target && target >= static_cast<long>(st.program.size()))
            fail(at(line), "workload.task.program: '" + line.as_string()->get() + "': a loop jumps back to an earlier phase, 0 .. " +
                               std::to_string(static_cast<long>(st.program.size()) - 1));
          st.program.push_back(line.as_string()->get());
          if (op != "lock" && op != "unlock" && op != "loop") takes_time = true;
        }
        if (!st.program.empty() && !takes_time)
          fail(at(v), "workload.task.program: only lock, unlock and loop phases: the task would spin without time "
                      "passing; add a run, sleep, wait, wake, yield, io, net or exit phase");
      } else {
        fail(w, "workload.task." + key + ": unknown or mistyped; keys: name (string), cpus (cpulist string), count (integer), "
                "program (array of strings)");
      }
    }
    if (st.name.empty()) fail(st.where, "workload.task: needs a name");
    if (st.program.empty()) fail(st.where, "workload.task: needs a program");
    g_script.push_back(st);
  }
}

void collect(const toml::table& t, const std::string& prefix, const std::string& file, std::map<std::string, Raw>& out) {
  for (auto&& [k, node] : t) {
    std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    const auto& src = node.source();
    std::string where = file + ":" + std::to_string(src.begin.line) + ":" + std::to_string(src.begin.column);
    if (node.is_table()) {
      if (!is_section(key)) fail(where, "unknown section [" + key + "]; sections: " + join(std::vector<std::string>(std::begin(kSections), std::end(kSections))));
      collect(*node.as_table(), key, file, out);
      continue;
    }
    if (key == "workload.task") {
      collect_script(node, file);
      continue;
    }
    const Spec* s = find_spec(key);
    if (!s) fail(where, unknown_key_message(key));
    Raw r = from_node(node);
    r.where = where;
    if (r.text.empty()) fail(where, s->key + ": unsupported value type (use a number or a string)");
    out[key] = check(*s, r);
  }
}

// "section.key=value": the value is read as a TOML value, or else as a bare string.
void apply_set(const std::string& set, std::map<std::string, Raw>& out) {
  std::string where = "--set '" + set + "'";
  auto eq = set.find('=');
  if (eq == std::string::npos || eq == 0) fail(where, "expected section.key=value");
  std::string key = set.substr(0, eq), val = set.substr(eq + 1);
  const Spec* s = find_spec(key);
  if (!s) fail(where, unknown_key_message(key));
  Raw r;
  try {
    toml::table t = toml::parse("v = " + val);
    r = from_node(*t.get("v"));
  } catch (const toml::parse_error&) {
  }
  if (r.text.empty()) {  // not a TOML scalar: take it as a bare string
    r.type = VType::Str;
    r.s = val;
  }
  r.text = val;
  r.where = where;
  out[key] = check(*s, r);
}

// Accessors over the collected values with defaults.
struct Values {
  std::map<std::string, Raw>& raw;
  bool has(const std::string& k) const { return raw.count(k) != 0; }
  const Raw& at(const std::string& k) const { return raw.at(k); }
  std::int64_t i(const std::string& k, std::int64_t d) const { return has(k) ? at(k).i : d; }
  double f(const std::string& k, double d) const { return has(k) ? at(k).f : d; }
  std::string s(const std::string& k, const std::string& d) const { return has(k) ? at(k).s : d; }
  bool b(const std::string& k, bool d) const { return has(k) ? at(k).b : d; }
  std::string where(const std::string& k) const { return has(k) ? at(k).where : "default"; }
};

}  // namespace

const std::vector<std::string>& workload_kinds() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> v;
    for (const auto& kind : workload_kinds_table()) v.push_back(kind.name);
    return v;
  }();
  return k;
}

std::vector<std::pair<std::string, std::string>> scenario_keys() {
  std::vector<std::pair<std::string, std::string>> v;
  for (const auto& s : specs()) {
    std::string t = s.type == VType::Int     ? "integer"
                    : s.type == VType::Float ? "number"
                    : s.type == VType::Str   ? "string"
                    : s.type == VType::Bool  ? "boolean"
                                             : "duration";
    if (!s.choices.empty()) t += " {" + join(s.choices, "|") + "}";
    if (s.lo <= s.hi) {
      auto val = [&](double x) {
        if (s.type == VType::Duration) return format_duration(static_cast<sim_ns>(x));
        std::ostringstream o;
        o.precision(12);
        o << x;
        return o.str();
      };
      t += " [" + val(s.lo) + " .. " + val(s.hi) + "]";
    }
    v.emplace_back(s.key, t + ": " + s.help);
  }
  return v;
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets) {
  std::map<std::string, Raw> raw;
  g_script.clear();
  g_script_given = false;
  Scenario sc;
  sc.source = path.empty() ? "<built-in>" : path;
  if (!path.empty()) {
    toml::table tbl;
    try {
      tbl = toml::parse_file(path);
    } catch (const toml::parse_error& e) {
      const auto& b = e.source().begin;
      std::string m = std::string(e.description());
      if (m.find("No such file") != std::string::npos || m.find("could not be opened") != std::string::npos || !b.line)
        throw InputError(path + ": " + m);
      throw InputError(path + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) + ": TOML syntax error: " + m);
    }
    collect(tbl, "", path, raw);
  }
  for (const auto& s : sets) apply_set(s, raw);
  Values v{raw};

  // platform
  std::string shape = v.s("platform.shape", "VM.Standard2.1");
  bool generic = shape == "generic";
  for (const char* k : {"platform.arch", "platform.cores", "platform.threads_per_core"})
    if (v.has(k) && !generic) fail(v.where(k), std::string(k) + ": only allowed with platform.shape = \"generic\" (the shape " + shape + " fixes it)");
  if (generic) {
    sc.shape.name = "generic";
    sc.shape.arch = v.s("platform.arch", "skylake-sp");
    sc.shape.cores = static_cast<int>(v.i("platform.cores", 1));
    sc.shape.threads_per_core = static_cast<int>(v.i("platform.threads_per_core", arch_table(sc.shape.arch).costs.smt ? 2 : 1));
    sc.shape.default_hz = arch_table(sc.shape.arch).costs.isa == Isa::X86_64 ? 1000 : 250;
    if (sc.shape.threads_per_core == 2 && !arch_table(sc.shape.arch).costs.smt)
      fail(v.where("platform.threads_per_core"), "platform.threads_per_core = 2: " + sc.shape.arch + " has no SMT; allowed 1");
  } else if (!lookup_shape(shape, sc.shape)) {
    fail(v.where("platform.shape"), "platform.shape = \"" + shape + "\": unknown shape; allowed: " + shape_allowed_text());
  }
  sc.costs = arch_table(sc.shape.arch).costs;
  sc.vcpus = static_cast<int>(v.i("platform.vcpus", sc.shape.vcpus()));
  if (sc.vcpus > sc.shape.vcpus())
    fail(v.where("platform.vcpus"), "platform.vcpus = " + std::to_string(sc.vcpus) + ": " + sc.shape.name + " has " +
                                        std::to_string(sc.shape.vcpus()) + " hardware threads; allowed 1 .. " + std::to_string(sc.shape.vcpus()));

  // host
  for (const auto& row : arch_table(sc.shape.arch).rows) {
    std::string k = "host.costs." + row.key;
    if (!v.has(k)) continue;
    double x = v.f(k, row.value);
    if (x < row.lo || x > row.hi) {
      std::ostringstream o;
      o << k << " = " << v.at(k).text << ": out of range for " << sc.shape.arch << "; allowed " << row.lo << " .. " << row.hi << " " << row.unit;
      fail(v.where(k), o.str());
    }
    set_cost(sc.costs, row.key, x);
  }
  HostCState cs;
  parse_cstate(v.s("host.max_cstate", "C6"), cs);
  sc.host.sched.max_cstate = cs;
  sc.host.sched.idle_governor = v.s("host.idle_governor", "menu");
  sc.host.sched.wakeup_granularity = v.i("host.sched.wakeup_granularity", 4000000);
  sc.host.sched.min_granularity = v.i("host.sched.min_granularity", 3000000);
  sc.host.sched.latency = v.i("host.sched.latency", 24000000);
  sc.host.io_latency = v.i("host.io_latency", 100000);
  sc.host.io_latency_dist = v.s("host.io_latency_dist", "lognormal");
  sc.host.io_latency_sigma = v.f("host.io_latency_sigma", 0.5);
  sc.host.pinning = v.s("host.pinning", "dedicated");
  int hw_threads = sc.shape.cores * sc.shape.threads_per_core;
  auto hw_list = [&](const std::string& key) {
    std::string text = v.s(key, "");
    std::uint64_t mask = ~0ULL;
    if (!text.empty() && !parse_cpulist(text, hw_threads, mask))
      fail(v.where(key), key + " = \"" + text + "\": a cpulist of hardware threads 0 .. " + std::to_string(hw_threads - 1));
    return mask;
  };
  sc.host.iothread.enabled = v.b("host.iothread", false);
  sc.host.iothread.cpus = hw_list("host.iothread_cpus");
  sc.host.vhost.enabled = v.b("host.vhost", false);
  sc.host.vhost.cpus = hw_list("host.vhost_cpus");
  sc.host.net_latency = v.i("host.net_latency", 50000);
  sc.host.noise.threads = static_cast<int>(v.i("host.noise.threads", 0));
  sc.host.noise.hz = v.f("host.noise.hz", 100);
  sc.host.noise.work = v.i("host.noise.work", 20000);
  sc.host.noise.cpus = hw_list("host.noise.cpus");
  // upstream defaults: Skylake-SP is L1TF- and MDS-affected (l1tf=flush -> cond, mds=full)
  bool affected = sc.shape.arch == "skylake-sp";
  sc.host.l1d_flush = v.s("host.mitigations.l1d_flush", affected ? "cond" : "never");
  sc.host.mds_clear = v.b("host.mitigations.mds_clear", affected);
  KvmParams& kp = sc.host.kvm;
  TimerAwareParams& ta = sc.host.timer_aware;
  kp.halt_poll_ns = v.i("host.kvm.halt_poll_ns", default_halt_poll_ns(sc.costs.isa));
  kp.halt_poll_ns_grow = static_cast<unsigned>(v.i("host.kvm.halt_poll_ns_grow", 2));
  kp.halt_poll_ns_grow_start = v.i("host.kvm.halt_poll_ns_grow_start", 10000);
  kp.halt_poll_ns_shrink = static_cast<unsigned>(v.i("host.kvm.halt_poll_ns_shrink", 2));
  kp.vm_max_halt_poll_ns = v.i("host.kvm.max_halt_poll_ns", -1);
  bool x86 = sc.costs.isa == Isa::X86_64;
  for (const char* k : {"host.kvm.lapic_timer_advance", "host.kvm.ple_gap", "host.kvm.ple_window", "host.kvm.ple_window_grow",
                        "host.kvm.ple_window_shrink", "host.kvm.ple_window_max", "host.kvm.hlt_passthrough"})
    if (v.has(k) && !x86) fail(v.where(k), std::string(k) + ": an x86 KVM parameter; " + sc.shape.name + " is arm64");
  for (const char* k : {"host.kvm.wfi_trap_policy", "host.kvm.direct_injection"})
    if (v.has(k) && x86) fail(v.where(k), std::string(k) + ": an arm64 KVM parameter; " + sc.shape.name + " is x86_64");
  kp.lapic_timer_advance = v.b("host.kvm.lapic_timer_advance", true);
  kp.ple_gap = static_cast<unsigned>(v.i("host.kvm.ple_gap", 128));
  // VMX ple_window is in cycles; SVM counts PAUSEs (pause_filter_count 3000, ~65 cycles each on Zen 3 [EST])
  kp.ple_window = static_cast<std::uint64_t>(v.i("host.kvm.ple_window", sc.shape.arch == "milan" ? 195000 : 4096));
  kp.ple_window_grow = static_cast<unsigned>(v.i("host.kvm.ple_window_grow", 2));
  kp.ple_window_shrink = static_cast<unsigned>(v.i("host.kvm.ple_window_shrink", 0));
  kp.ple_window_max = static_cast<std::uint64_t>(v.i("host.kvm.ple_window_max", 4294967295LL));
  kp.hlt_passthrough = v.b("host.kvm.hlt_passthrough", false);
  kp.wfi_trap_policy = v.s("host.kvm.wfi_trap_policy", "default");
  kp.direct_injection = v.b("host.kvm.direct_injection", false);
  ta.timer_poll = v.s("host.timer_poll", "off");
  ta.timer_poll_threshold = v.i("host.timer_poll_threshold", 200000);
  ta.reclaim = v.b("host.reclaim", false);
  ta.reclaim_threshold = v.i("host.reclaim_threshold", 1000000);
  sc.host.tick_wakeup_cost = v.i("host.tick_wakeup_cost", 0);

  // guest
  GuestParams& g = sc.guest;
  g.isa = sc.costs.isa;
  g.hz = static_cast<int>(v.i("guest.hz", sc.shape.default_hz));
  const auto& hzs = allowed_hz();
  if (std::find(hzs.begin(), hzs.end(), g.hz) == hzs.end())
    fail(v.where("guest.hz"), "guest.hz = " + std::to_string(g.hz) + ": allowed values (Kconfig HZ_*): 100, 250, 300, 1000");
  g.tick_policy = v.s("guest.tick_policy", "legacy");
  g.cpuidle.driver = v.s("guest.cpuidle_driver", "none");
  g.cmdline = v.s("guest.cmdline", "");
  std::string err = parse_cmdline(g.cmdline, g, sc.vcpus);
  if (!err.empty()) fail(v.where("guest.cmdline"), "guest.cmdline = \"" + g.cmdline + "\": " + err);
  if (v.has("guest.cpuidle_driver") && g.cpuidle.driver != v.s("guest.cpuidle_driver", ""))
    fail(v.where("guest.cmdline"), "guest.cmdline selects cpuidle driver '" + g.cpuidle.driver + "' but guest.cpuidle_driver = \"" +
                                       v.s("guest.cpuidle_driver", "") + "\"; set one of them");
  if (g.cpuidle.driver == "haltpoll" && g.isa != Isa::X86_64)
    fail(v.where("guest.cpuidle_driver"), "guest.cpuidle_driver = \"haltpoll\": cpuidle-haltpoll needs kvm_para_available() "
                                          "(x86 guests); the arm64 port is an unmerged series. Allowed on arm64: none, single-state");
  if (g.nohz_full & 1ULL)
    fail(v.where("guest.cmdline"), "guest.cmdline: nohz_full must leave CPU 0 as the housekeeping (timekeeping) CPU");
  g.nohz_poll_series_name = v.s("guest.nohz_poll_series", "none");
  nohz_poll_series(g.nohz_poll_series_name, g.series);
  g.cputime = v.s("guest.cputime", "old");
  {
    std::istringstream in(v.s("guest.hotplug", ""));
    std::string tok;
    while (in >> tok) {
      auto colon = tok.find(':'), at = tok.find('@');
      std::string bad = "guest.hotplug: '" + tok + "': ";
      if (colon == std::string::npos || at == std::string::npos || at < colon)
        fail(v.where("guest.hotplug"), bad + "expected CPU:offline@TIME or CPU:online@TIME, e.g. 1:offline@50ms");
      std::string cpu = tok.substr(0, colon), act = tok.substr(colon + 1, at - colon - 1);
      sim_ns t = 0;
      if (cpu.empty() || cpu.find_first_not_of("0123456789") != std::string::npos || std::stoi(cpu) < 1 || std::stoi(cpu) >= sc.vcpus)
        fail(v.where("guest.hotplug"), bad + "CPU must be 1 .. " + std::to_string(sc.vcpus - 1) + " (CPU 0 cannot go offline)");
      if (act != "offline" && act != "online") fail(v.where("guest.hotplug"), bad + "action must be offline or online");
      if (!parse_duration(tok.substr(at + 1), t) || t <= 0) fail(v.where("guest.hotplug"), bad + "time must be a positive duration");
      g.hotplug.push_back({std::stoi(cpu), act == "online", t});
    }
    std::stable_sort(g.hotplug.begin(), g.hotplug.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
  }
  g.poll_relax_batch_ns = v.i("guest.poll_relax_batch", g.isa == Isa::X86_64 ? 14000 : 500);
  g.reasons.rcu_needs_cpu = v.f("guest.nohz.rcu_needs_cpu", 0);
  g.reasons.irq_work_needs_cpu = v.f("guest.nohz.irq_work_needs_cpu", 0);
  g.reasons.softirq_pending = v.f("guest.nohz.softirq_pending", 0);
  g.background_timer_hz = v.f("guest.timers.background_hz", 0);
  SchedParams& sp = g.sched;
  sp.wake_affine = v.b("guest.sched.wake_affine", true);
  sp.load_balance = v.b("guest.sched.load_balance", true);
  sp.balance_interval = v.i("guest.sched.balance_interval", 0);
  sp.migration_cost = v.i("guest.sched.migration_cost", 500000);
  sp.cache_refill_ns = v.i("guest.sched.cache_refill", 20000);
  g.timer_slack_ns = v.i("guest.timer_slack", 50000);
  for (const auto& row : guest_cost_rows()) {
    std::string k = "guest.costs." + row.key;
    if (!v.has(k)) continue;
    std::int64_t x = v.i(k, 0);
    if (x < row.lo || x > row.hi)
      fail(v.where(k), k + " = " + v.at(k).text + ": out of range; allowed " + std::to_string(static_cast<long long>(row.lo)) + " .. " +
                           std::to_string(static_cast<long long>(row.hi)) + " ns");
    set_guest_cost(g.costs, row.key, static_cast<double>(x));
  }

  // workload
  WorkloadSpec& w = sc.workload;
  w.kind = v.s("workload.kind", "pingpong");
  const WorkloadKind* kind = find_workload_kind(w.kind);
  std::vector<std::string> kind_keys;
  for (const auto& p : kind->params) kind_keys.push_back("workload." + p.key);
  for (const auto& [k, r] : raw) {
    if (k.rfind("workload.", 0) != 0 || k == "workload.kind") continue;
    if (std::find(kind_keys.begin(), kind_keys.end(), k) == kind_keys.end())
      fail(r.where, k + ": does not apply to workload.kind = \"" + w.kind + "\"; its keys: " +
                        (kind_keys.empty() ? std::string("none") : join(kind_keys)));
  }
  for (const auto& p : kind->params) {
    std::string key = "workload." + p.key;
    double x = p.type == 'f' ? v.f(key, p.dflt) : static_cast<double>(v.i(key, static_cast<std::int64_t>(p.dflt)));
    if (x < p.lo || x > p.hi) {
      std::ostringstream o;
      o << key << " = " << v.at(key).text << ": out of range for " << w.kind << "; allowed ";
      if (p.type == 'd') o << format_duration(static_cast<sim_ns>(p.lo)) << " .. " << format_duration(static_cast<sim_ns>(p.hi));
      else o << p.lo << " .. " << p.hi;
      fail(v.where(key), o.str());
    }
    w.v[p.key] = x;
  }
  if (w.kind == "script") {
    if (!g_script_given) fail(sc.source, "workload.kind = \"script\" needs [[workload.task]] tables");
    std::uint64_t vcpu_mask = sc.vcpus >= 64 ? ~0ULL : (1ULL << sc.vcpus) - 1;
    for (const ScriptTask& st : g_script)
      if (!(st.cpus & vcpu_mask))
        fail(st.where, "workload.task.cpus of '" + st.name + "': no CPU of the guest's 0 .. " + std::to_string(sc.vcpus - 1));
    w.script = g_script;
  } else if (g_script_given) {
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
  if (w.kind == "pingpong" && w.geti("cpu_a") == w.geti("cpu_b"))
    fail(v.where("workload.cpu_b"), "workload.cpu_b = " + std::to_string(w.geti("cpu_b")) + ": must differ from workload.cpu_a");
  if (w.kind == "nohz_full_test" && !((g.nohz_full >> w.geti("cpu")) & 1ULL))
    fail(v.where("workload.cpu"), "workload.cpu = " + std::to_string(w.geti("cpu")) + ": must be a nohz_full CPU (guest.cmdline nohz_full=...)");

  // run
  sc.run.duration = v.i("run.duration", NSEC_PER_SEC);
  sc.run.warmup = v.i("run.warmup", 0);
  sc.run.seed = static_cast<std::uint64_t>(v.i("run.seed", 1));
  sc.run.fast_work = v.i("run.fast_work", 2000);
  sc.run.quantum = v.i("run.quantum", 100000);
  if (sc.run.warmup >= sc.run.duration)
    fail(v.where("run.warmup"), "run.warmup = " + format_duration(sc.run.warmup) + ": must be shorter than run.duration (" + format_duration(sc.run.duration) + ")");

  // ablations: a mechanism switched off, outside the documented ranges on purpose
  if (v.b("ablate.tick_wakeup_cost", false)) {
    sc.costs.hlt_exit_ns = sc.costs.vcpu_block_ns = sc.costs.vcpu_wakeup_ns = 0;
    sc.host.tick_wakeup_cost = 0;
  }
  if (v.b("ablate.halt_polling", false)) kp.halt_poll_ns = 0;
  if (v.b("ablate.smt", false)) sc.costs.smt_factor_busy = sc.costs.smt_factor_spin = 1.0;
  if (v.b("ablate.cstate_latency", false))
    for (auto& e : sc.costs.cstate_exit_ns) e = 0;
  if (v.b("ablate.load_balancing", false)) g.sched.load_balance = false;
  if (v.b("ablate.timer_write_exits", false)) {
    sc.costs.timer_write_exits = false;
    sc.costs.guest_timer_write_ns = 0;
  }
  if (v.b("ablate.mitigations", false)) {
    sc.host.l1d_flush = "never";
    sc.host.mds_clear = false;
  }

  // the resolved configuration, every key with its effective value
  auto& r = sc.resolved;
  r.emplace_back("platform.shape", sc.shape.name);
  r.emplace_back("platform.arch", sc.shape.arch);
  r.emplace_back("platform.cores", std::int64_t{sc.shape.cores});
  r.emplace_back("platform.threads_per_core", std::int64_t{sc.shape.threads_per_core});
  r.emplace_back("platform.vcpus", std::int64_t{sc.vcpus});
  r.emplace_back("host.idle_governor", sc.host.sched.idle_governor);
  r.emplace_back("host.max_cstate", std::string(cstate_name(sc.host.sched.max_cstate)));
  r.emplace_back("host.io_latency", format_duration(sc.host.io_latency));
  r.emplace_back("host.io_latency_dist", sc.host.io_latency_dist);
  r.emplace_back("host.io_latency_sigma", sc.host.io_latency_sigma);
  r.emplace_back("host.pinning", sc.host.pinning);
  r.emplace_back("host.iothread", sc.host.iothread.enabled);
  r.emplace_back("host.iothread_cpus", v.s("host.iothread_cpus", ""));
  r.emplace_back("host.vhost", sc.host.vhost.enabled);
  r.emplace_back("host.vhost_cpus", v.s("host.vhost_cpus", ""));
  r.emplace_back("host.net_latency", format_duration(sc.host.net_latency));
  r.emplace_back("host.noise.threads", std::int64_t{sc.host.noise.threads});
  r.emplace_back("host.noise.hz", sc.host.noise.hz);
  r.emplace_back("host.noise.work", format_duration(sc.host.noise.work));
  r.emplace_back("host.noise.cpus", v.s("host.noise.cpus", ""));
  r.emplace_back("host.sched.wakeup_granularity", format_duration(sc.host.sched.wakeup_granularity));
  r.emplace_back("host.sched.min_granularity", format_duration(sc.host.sched.min_granularity));
  r.emplace_back("host.sched.latency", format_duration(sc.host.sched.latency));
  r.emplace_back("host.mitigations.l1d_flush", sc.host.l1d_flush);
  r.emplace_back("host.mitigations.mds_clear", sc.host.mds_clear);
  r.emplace_back("host.kvm.halt_poll_ns", kp.halt_poll_ns);
  r.emplace_back("host.kvm.halt_poll_ns_grow", std::int64_t{kp.halt_poll_ns_grow});
  r.emplace_back("host.kvm.halt_poll_ns_grow_start", kp.halt_poll_ns_grow_start);
  r.emplace_back("host.kvm.halt_poll_ns_shrink", std::int64_t{kp.halt_poll_ns_shrink});
  r.emplace_back("host.kvm.max_halt_poll_ns", kp.vm_max_halt_poll_ns);
  if (x86) {
    r.emplace_back("host.kvm.lapic_timer_advance", kp.lapic_timer_advance);
    r.emplace_back("host.kvm.ple_gap", std::int64_t{kp.ple_gap});
    r.emplace_back("host.kvm.ple_window", static_cast<std::int64_t>(kp.ple_window));
    r.emplace_back("host.kvm.ple_window_grow", std::int64_t{kp.ple_window_grow});
    r.emplace_back("host.kvm.ple_window_shrink", std::int64_t{kp.ple_window_shrink});
    r.emplace_back("host.kvm.ple_window_max", static_cast<std::int64_t>(kp.ple_window_max));
    r.emplace_back("host.kvm.hlt_passthrough", kp.hlt_passthrough);
  } else {
    r.emplace_back("host.kvm.wfi_trap_policy", kp.wfi_trap_policy);
    r.emplace_back("host.kvm.direct_injection", kp.direct_injection);
  }
  r.emplace_back("host.timer_poll", ta.timer_poll);
  r.emplace_back("host.timer_poll_threshold", format_duration(ta.timer_poll_threshold));
  r.emplace_back("host.reclaim", ta.reclaim);
  r.emplace_back("host.reclaim_threshold", format_duration(ta.reclaim_threshold));
  r.emplace_back("host.tick_wakeup_cost", format_duration(sc.host.tick_wakeup_cost));
  for (const auto& row : arch_table(sc.shape.arch).rows) {
    double val = v.has("host.costs." + row.key) ? v.f("host.costs." + row.key, row.value) : row.value;
    r.emplace_back("host.costs." + row.key, val);
  }
  r.emplace_back("guest.hz", std::int64_t{g.hz});
  r.emplace_back("guest.tick_policy", g.tick_policy);
  r.emplace_back("guest.cpuidle_driver", g.cpuidle.driver);
  r.emplace_back("guest.cmdline", g.cmdline);
  r.emplace_back("guest.timer_slack", format_duration(g.timer_slack_ns));
  r.emplace_back("guest.nohz_poll_series", g.nohz_poll_series_name);
  r.emplace_back("guest.cputime", g.cputime);
  r.emplace_back("guest.hotplug", v.s("guest.hotplug", ""));
  r.emplace_back("guest.poll_relax_batch", format_duration(g.poll_relax_batch_ns));
  r.emplace_back("guest.nohz.rcu_needs_cpu", g.reasons.rcu_needs_cpu);
  r.emplace_back("guest.nohz.irq_work_needs_cpu", g.reasons.irq_work_needs_cpu);
  r.emplace_back("guest.nohz.softirq_pending", g.reasons.softirq_pending);
  r.emplace_back("guest.timers.background_hz", g.background_timer_hz);
  r.emplace_back("guest.sched.wake_affine", sp.wake_affine);
  r.emplace_back("guest.sched.load_balance", sp.load_balance);
  r.emplace_back("guest.sched.balance_interval", format_duration(sp.balance_interval));
  r.emplace_back("guest.sched.migration_cost", format_duration(sp.migration_cost));
  r.emplace_back("guest.sched.cache_refill", format_duration(sp.cache_refill_ns));
  for (const auto& row : guest_cost_rows())
    r.emplace_back("guest.costs." + row.key, v.i("guest.costs." + row.key, static_cast<std::int64_t>(row.value)));
  r.emplace_back("workload.kind", w.kind);
  for (const auto& p : kind->params) {
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
  r.emplace_back("run.duration", format_duration(sc.run.duration));
  r.emplace_back("run.warmup", format_duration(sc.run.warmup));
  r.emplace_back("run.seed", static_cast<std::int64_t>(sc.run.seed));
  r.emplace_back("run.fast_work", format_duration(sc.run.fast_work));
  r.emplace_back("run.quantum", format_duration(sc.run.quantum));
  for (const char* k : {"ablate.tick_wakeup_cost", "ablate.halt_polling", "ablate.smt", "ablate.cstate_latency",
                        "ablate.load_balancing", "ablate.timer_write_exits", "ablate.mitigations"})
    r.emplace_back(k, v.b(k, false));
  return sc;
}

}  // namespace vtick
