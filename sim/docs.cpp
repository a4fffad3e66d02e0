#include "sim/docs.hpp"

#include <sstream>

#include "core/time.hpp"
#include "guest/params.hpp"
#include "guest/tick_policy.hpp"
#include "guest/workloads.hpp"
#include "platform/arch.hpp"
#include "sim/collect.hpp"
#include "sim/scenario.hpp"

namespace vtick {

namespace {

std::string num(double v) {
  std::ostringstream o;
  if (v == static_cast<double>(static_cast<long long>(v))) o << static_cast<long long>(v);
  else o << v;
  return o.str();
}

// "200000 (arm64: 500000)": the built-in platform's default and where it differs.
std::string default_text(const ParamInfo& p) {
  if (!p.dflt.derived_why().empty()) return p.dflt.derived_why();
  std::string s = p.value_text(p.default_for(default_pctx()));
  for (const auto& o : p.dflt.overrides()) s += " (" + o.ctx + ": " + p.value_text(o.v) + ")";
  return s;
}

std::string cell(std::string s) {
  for (std::size_t i = 0; (i = s.find('|', i)) != std::string::npos; i += 2) s.replace(i, 1, "\\|");
  return s;
}

}  // namespace

std::string parameter_tables_markdown() {
  std::ostringstream o;
  o << "### Host cost tables (`[host.costs]`)\n\n";
  for (const auto& a : arch_names()) {
    const ArchCosts& c = arch_costs(a);
    PCtx ctx = c.ctx();
    o << "#### " << a << " (" << isa_name(c.isa) << ", " << c.ghz << " GHz" << (c.smt ? ", SMT" : ", no SMT") << ")\n\n";
    o << "| key | meaning | default | range | unit | source |\n|---|---|---|---|---|---|\n";
    for (const auto& r : ArchCosts::table())
      o << "| `" << r.key.substr(1) << "` | " << r.help << " | " << pvalue_text(r.default_for(ctx)) << " | " << r.range_text(ctx) << " | "
        << r.unit << " | " << cell(r.source_for(ctx)) << " |\n";
    o << "\n";
  }
  o << "### Guest costs (`[guest.costs]`)\n\n";
  o << "| key | meaning | default | range | unit | source |\n|---|---|---|---|---|---|\n";
  for (const auto& r : GuestCosts::table())
    o << "| `" << r.key.substr(1) << "` | " << r.help << " | " << pvalue_text(r.default_for(default_pctx())) << " | "
      << r.range_text(default_pctx()) << " | " << r.unit << " | " << cell(r.source) << " |\n";
  o << "\n### haltpoll boot parameters (`guest.cmdline`, `haltpoll.NAME=VALUE`)\n\n";
  o << "| parameter | meaning | default | range | unit | source |\n|---|---|---|---|---|---|\n";
  for (const auto& r : HaltpollParams::table())
    o << "| `haltpoll" << r.key << "` | " << r.help << " | " << default_text(r) << " | " << r.range_text(default_pctx()) << " | " << r.unit
      << " | " << cell(r.source) << " |\n";
  o << "\n### Tick policies (`guest.tick_policy`)\n\n| name | origin |\n|---|---|\n";
  for (const auto& p : tick_policies()) o << "| `" << tick_policy_name(p) << "` | " << p.origin << " |\n";
  o << "\n### Workloads (`[workload]`, `kind = ...`)\n\n"
       "[EST] marks an estimate; every value may be set anywhere in its range.\n";
  for (const auto& k : workload_kinds_table()) {
    o << "\n#### `" << enum_name(k.id) << "` (metric: " << k.ops_name << "/s)\n\n" << k.description << "\n";
    if (k.params.empty()) continue;
    o << "\n| key | default | range | meaning |\n|---|---|---|---|\n";
    for (const auto& p : k.params) {
      auto val = [&](double v) { return p.type == 'd' ? format_duration(static_cast<sim_ns>(v)) : num(v); };
      o << "| `" << p.key << "` | " << val(p.dflt) << " | " << val(p.lo) << " .. " << val(p.hi) << " | " << p.help << " |\n";
    }
  }
  o << "\n### Scenario keys\n\nDefaults are the built-in platform's (VM.Standard2.1, Skylake-SP); "
       "where another ISA or CPU model differs it is named in parentheses.\n\n"
       "| key | type | default | unit | meaning | source |\n|---|---|---|---|---|---|\n";
  for (const auto& p : scenario_params()) {
    if (p.key.rfind("host.costs.", 0) == 0 || p.key.rfind("guest.costs.", 0) == 0) continue;
    std::string type = p.type_text();
    if (!p.dflt.only_isa().empty()) type += ", " + p.dflt.only_isa() + " only";
    o << "| `" << p.key << "` | " << cell(type) << " | " << cell(default_text(p)) << " | " << p.unit << " | " << p.help << " | "
      << cell(p.source) << " |\n";
  }
  o << "\n### Counters (`metrics` of the results JSON, `vtick list metrics`)\n\n"
       "Counters are differenced over the warm-up; gauges are the state at the end. `vcpu<N>`: a vCPU, `pcpu<T>`: a "
       "hardware thread, `host.<thread>`: the iothread, vhost or noise<I> thread.\n\n"
       "| name | kind | unit | meaning |\n|---|---|---|---|\n";
  for (const auto& m : metric_catalog())
    o << "| `" << m.name << "` | " << (m.kind == StatKind::Counter ? "counter" : "gauge") << " | " << m.unit << " | " << cell(m.help) << " |\n";
  return o.str();
}

}  // namespace vtick
