#include "sim/explain_space.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "sim/explain_target.hpp"
#include "sim/scenario.hpp"

namespace vtick {

namespace {

// Which mechanism of domain/hypotheses.md a key belongs to; the first pattern that
// matches wins.
struct KeyMechanism {
  const char* pattern;
  const char* mechanism;
};
const KeyMechanism kKeyMechanisms[] = {
    {"host.costs.c1*", "M4"},          {"host.costs.c6*", "M4"},           {"host.idle_governor", "M4"},
    {"host.max_cstate", "M4"},         {"host.costs.smt_*", "M2"},          {"host.kvm.halt_poll*", "M3"},
    {"host.kvm.max_halt_poll_ns", "M3"}, {"host.costs.l1d_flush_ns", "H8"}, {"host.costs.mds_clear_ns", "H8"},
    {"host.mitigations.*", "H8"},      {"host.timer_poll*", "H9"},          {"host.reclaim*", "H9"},
    {"host.noise.*", "H7"},            {"host.pinning", "H7"},              {"host.iothread*", "H7"},
    {"host.vhost*", "H7"},             {"host.sched.*", "H7"},              {"host.io_latency*", "H7"},
    {"guest.background.*", "H10"},     {"guest.sched.*", "H6"},             {"guest.costs.load_balance_ns", "H6"},
    {"guest.costs.*", "M5"},           {"host.kvm.*", "M1"},                {"host.costs.*", "M1"},
    {"host.tick_wakeup_cost", "A"},    {"workload.*", "W"},
};

// Switches and presets searched by default: real configurations of a host or a guest
// whose value the report does not give.
struct DefaultChoice {
  const char* key;
  std::vector<std::string> choices;
};
const std::vector<DefaultChoice>& default_choices() {
  static const std::vector<DefaultChoice> v = {
      {"host.idle_governor", {"menu", "teo", "ladder"}},
      {"host.max_cstate", {"C1", "C1E", "C6"}},
      {"host.timer_poll", {"off", "replace", "extend"}},
      {"host.reclaim", {"false", "true"}},
      {"host.mitigations.l1d_flush", {"never", "cond", "always"}},
      {"host.mitigations.mds_clear", {"false", "true"}},
      {"host.pinning", {"dedicated", "shared"}},
      {"host.iothread", {"false", "true"}},
      {"host.kvm.hlt_passthrough", {"false", "true"}},
      {"host.kvm.wfi_trap_policy", {"default", "trap", "notrap"}},
      {"guest.sched.wake_affine", {"false", "true"}},
      {"guest.sched.ttwu_queue", {"false", "true"}},
      {"guest.sched.newidle_balance", {"false", "true"}},
      {"guest.sched.periodic_balance", {"false", "true"}},
      {"guest.sched.nohz_balance", {"false", "true"}},
      {"guest.sched.active_balance", {"false", "true"}},
      {"guest.sched.topology", {"smt", "mc"}},
      {"guest.background.preset", {"none", "measured", "cloud"}},
  };
  return v;
}

// Load levels: the declared ranges of these keys are limits (64 noise threads), not what
// a cloud host plausibly runs, so the search uses narrower ranges, marked as estimates.
struct LoadLevel {
  const char* key;
  double lo, hi;
  PKind kind;
  const char* source;
};
const LoadLevel kLoadLevels[] = {
    {"guest.background.scale", 0.5, 10, PKind::Float,
     "[EST] 0.5x to 10x the background wake-up rate of this project's guest (docs/real-guest/)"},
    {"host.noise.threads", 0, 2, PKind::Int, "[EST] up to two host threads competing for the VM's two hardware threads"},
    {"host.noise.hz", 10, 1000, PKind::Float, "[EST] host kthreads and other tenants: 10 to 1000 wake-ups/s each"},
    {"host.noise.work", 5000, 200000, PKind::Duration,
     "[EST] 5 to 200 us of host work per noise wake-up (at most 20 % of a hardware thread per noise thread)"},
};

bool estimated(const std::string& source) { return source.rfind("[EST]", 0) == 0 || source.rfind("[VERIFY]", 0) == 0; }

std::string mechanism_for(const std::string& key) {
  for (const auto& m : kKeyMechanisms)
    if (key_matches(m.pattern, key)) return m.mechanism;
  return "other";
}

const WorkloadParam* workload_param(const std::string& key, const Scenario& sc) {
  if (key.rfind("workload.", 0) != 0) return nullptr;
  for (const auto& p : workload_kind(sc.workload.kind).params)
    if ("workload." + p.key == key) return &p;
  return nullptr;
}

// The numeric range of a factor on sc, its kind; false when the key does not apply.
bool range_on(const Factor& f, const Scenario& sc, double& lo, double& hi, PKind& kind) {
  if (const WorkloadParam* w = workload_param(f.key, sc)) {
    lo = w->lo;
    hi = w->hi;
    kind = w->type == 'd' ? PKind::Duration : w->type == 'i' ? PKind::Int : PKind::Float;
  } else {
    const auto* p = find_scenario_param(f.key);
    if (!p || f.key.rfind("workload.", 0) == 0 || !p->applies(sc.costs.ctx())) return false;
    std::tie(lo, hi) = p->range_for(sc.costs.ctx());
    kind = p->kind;
  }
  if (f.fixed_range) {
    lo = f.lo;
    hi = f.hi;
  }
  return lo < hi;
}

bool log_scale(double lo, double hi) { return lo > 0 && hi / lo >= 10; }

std::string number_text(double x, PKind kind) {
  char b[48];
  if (kind == PKind::Duration) std::snprintf(b, sizeof b, "%lldns", static_cast<long long>(std::llround(x)));
  else if (kind == PKind::Int) std::snprintf(b, sizeof b, "%lld", static_cast<long long>(std::llround(x)));
  else std::snprintf(b, sizeof b, "%.6g", x);
  return b;
}

void add_unique(Space& s, Factor f) {
  for (auto& g : s.factors)
    if (g.key == f.key) {
      g = std::move(f);  // the target's range replaces the default one
      return;
    }
  s.factors.push_back(std::move(f));
}

}  // namespace

const std::vector<Mechanism>& mechanisms() {
  static const std::vector<Mechanism> v = {
      {"M1", "host cost of a tick wake-up of a halted vCPU (exits, wake-up, re-halt)",
       "host exits by reason per second on both kernels (perf kvm stat live on the host): HLT/WFI and timer-write exits "
       "of the idle vCPU; the guest's HLT count and its timer interrupts per second (/proc/interrupts LOC)"},
      {"M2", "halt polling and SMT: a polling sibling slows its partner",
       "host KVM halt_poll_success_ns / halt_poll_fail_ns (debugfs kvm stats) on both kernels; rerun with "
       "halt_poll_ns=0; on SMT shapes the workload with one vCPU per core"},
      {"M3", "halt_poll_ns grow/shrink driven by tick-ended halts",
       "KVM halt_poll_ns per vCPU over time (kvm:kvm_halt_poll_ns tracepoint) on both kernels"},
      {"M4", "host C-state choice keyed on the armed guest timer",
       "host C-state residency and usage (turbostat / cpupower monitor on the host) on both kernels; rerun with "
       "intel_idle.max_cstate=1"},
      {"M5", "guest tick handler and idle-path work",
       "guest perf record -e cpu-clock on both kernels: time in tick_nohz_*, hrtimer and the idle loop"},
      {"H6", "guest load balancing driven by a tick in idle",
       "guest migrations (perf sched record; /proc/PID/task/*/sched nr_migrations) on both kernels; rerun with the "
       "sysbench threads pinned one per vCPU"},
      {"H7", "host contention: a woken vCPU thread waits for its hardware thread",
       "guest steal (/proc/stat) and the vCPU threads' run delay on the host (/proc/PID/schedstat) on both kernels"},
      {"H8", "VM-entry mitigations after each wake-up, also on the SMT sibling",
       "host /sys/devices/system/cpu/vulnerabilities and kvm_intel vmentry_l1d_flush; entries after a wake-up per "
       "second (perf kvm stat)"},
      {"H9", "a hypervisor policy keyed on the guest's armed timer",
       "the provider's host configuration (timer-aware polling or reclaim); kvm_vcpu_wakeup tracepoints on both kernels"},
      {"H10", "packing: both sysbench threads on one vCPU, unpacked by an idle vCPU's tick or nohz balancing",
       "guest: time with both sysbench threads on one vCPU (perf sched record, sched_switch per CPU), nohz idle "
       "balance kicks (/proc/schedstat), with the image's background as shipped and on a minimal image"},
      {"A", "amplifier: extra host work per tick wake-up (no named mechanism)",
       "none directly: it stands for any cost per wake-up; the per-mechanism measurements above bound it"},
      {"W", "the workload's own costs", "sysbench events/s with one thread on an idle guest, both kernels"},
      {"other", "other parameters", "see the parameter's source in docs/model.md"},
  };
  return v;
}

const Mechanism& mechanism_of(const std::string& id) {
  for (const auto& m : mechanisms())
    if (m.id == id) return m;
  return mechanisms().back();
}

Space build_space(const ExplainTarget& t, const std::vector<Scenario>& scenarios) {
  Space s;
  // every declared scenario key estimated on at least one run's CPU model
  for (const auto& p : scenario_params()) {
    if (p.key.rfind("workload.", 0) == 0 || p.key.rfind("run.", 0) == 0 || p.key.rfind("ablate.", 0) == 0) continue;
    if (p.kind != PKind::Int && p.kind != PKind::Float && p.kind != PKind::Duration) continue;
    if (!p.dflt.allowed().empty() || !p.dflt.derived_why().empty()) continue;
    for (const auto& sc : scenarios) {
      const PCtx c = sc.costs.ctx();
      if (!p.applies(c) || !p.has_range() || !estimated(p.source_for(c))) continue;
      Factor f;
      f.key = p.key;
      f.source = p.source_for(c);
      f.kind = p.kind;
      f.mechanism = mechanism_for(p.key);
      add_unique(s, f);
      break;
    }
  }
  for (const auto& sc : scenarios)
    for (const auto& w : workload_kind(sc.workload.kind).params) {
      if (w.help.find("[EST]") == std::string::npos || w.lo >= w.hi) continue;
      Factor f;
      f.key = "workload." + w.key;
      f.source = "[EST] " + w.help;
      f.kind = w.type == 'd' ? PKind::Duration : w.type == 'i' ? PKind::Int : PKind::Float;
      f.mechanism = "W";
      if (std::none_of(s.factors.begin(), s.factors.end(), [&](const Factor& g) { return g.key == f.key; })) s.factors.push_back(f);
    }
  for (const auto& d : default_choices()) {
    Factor f;
    f.key = d.key;
    f.choice = true;
    f.choices = d.choices;
    f.source = "a configuration the report does not give";
    f.mechanism = mechanism_for(d.key);
    add_unique(s, f);
  }
  for (const auto& l : kLoadLevels) {
    Factor f;
    f.key = l.key;
    f.fixed_range = true;
    f.lo = l.lo;
    f.hi = l.hi;
    f.kind = l.kind;
    f.source = l.source;
    f.mechanism = mechanism_for(l.key);
    add_unique(s, f);
  }
  for (const auto& a : t.add) {
    Factor f;
    f.key = a.key;
    f.mechanism = mechanism_for(a.key);
    f.source = a.source.empty() ? "the target file (" + a.where + ")" : a.source;
    if (a.numeric) {
      const auto* p = find_scenario_param(a.key);
      f.fixed_range = true;
      f.lo = a.lo;
      f.hi = a.hi;
      f.kind = p && p->kind != PKind::Enum && p->kind != PKind::Bool && p->kind != PKind::Text ? p->kind : PKind::Float;
      if (p && (p->kind == PKind::Enum || p->kind == PKind::Bool || p->kind == PKind::Text || p->kind == PKind::CpuList))
        throw InputError(a.where + ": " + a.key + " is not numeric: give choices = [...]");
    } else {
      f.choice = true;
      f.choices = a.choices;
    }
    add_unique(s, f);
  }
  std::vector<Factor> kept;
  for (auto& f : s.factors) {
    bool in = t.only.empty() || std::any_of(t.only.begin(), t.only.end(), [&](const std::string& p) { return key_matches(p, f.key); });
    bool out = std::any_of(t.exclude.begin(), t.exclude.end(), [&](const std::string& p) { return key_matches(p, f.key); });
    // nothing the constraints compare or the departures search is a factor
    for (const auto& c : t.constraints) out = out || c.key == f.key;
    for (const auto& d : t.departures) out = out || d.key == f.key;
    bool applies = std::any_of(scenarios.begin(), scenarios.end(), [&](const Scenario& sc) { return !factor_value(f, 0, sc).empty(); });
    if (in && !out && applies) kept.push_back(std::move(f));
  }
  s.factors = std::move(kept);
  // a target's value must be one the loader takes, on every run where the key applies
  for (const auto& f : s.factors)
    for (std::size_t i = 0; i < scenarios.size(); ++i)
      for (double u : {0.0, 1.0}) {
        std::string v = factor_value(f, u, scenarios[i]);
        if (v.empty()) continue;
        try {
          load_scenario(t.runs[i].scenario, [&] {
            auto sets = t.runs[i].sets;
            sets.push_back(f.key + "=" + v);
            return sets;
          }());
        } catch (const InputError& e) {
          throw InputError(t.source + ": the space's factor " + f.key + " = " + v + " on [[run]] " + t.runs[i].id + ": " + e.what());
        }
      }
  return s;
}

std::string factor_value(const Factor& f, double u, const Scenario& sc) {
  u = std::clamp(u, 0.0, 1.0);
  if (f.choice) {
    const auto* p = find_scenario_param(f.key);
    if (p && !p->applies(sc.costs.ctx())) return "";
    auto i = std::min(f.choices.size() - 1, static_cast<std::size_t>(u * static_cast<double>(f.choices.size())));
    return f.choices[i];
  }
  double lo = 0, hi = 0;
  PKind kind = f.kind;
  if (!range_on(f, sc, lo, hi, kind)) return "";
  double x = log_scale(lo, hi) ? lo * std::pow(hi / lo, u) : lo + u * (hi - lo);
  return number_text(std::clamp(x, lo, hi), kind);
}

std::string factor_range_text(const Factor& f, const Scenario& sc) {
  if (f.choice) {
    if (factor_value(f, 0, sc).empty()) return "";
    std::string t = "{";
    for (std::size_t i = 0; i < f.choices.size(); ++i) t += (i ? "|" : "") + f.choices[i];
    return t + "}";
  }
  double lo = 0, hi = 0;
  PKind kind = f.kind;
  if (!range_on(f, sc, lo, hi, kind)) return "";
  return number_text(lo, kind) + " .. " + number_text(hi, kind) + (log_scale(lo, hi) ? " (log)" : "");
}

}  // namespace vtick
