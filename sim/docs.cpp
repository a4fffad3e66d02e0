#include "sim/docs.hpp"

#include <sstream>

#include "guest/params.hpp"
#include "guest/tick_policy.hpp"
#include "guest/workloads.hpp"
#include "core/time.hpp"
#include "platform/arch.hpp"
#include "sim/scenario.hpp"

namespace vtick {

static std::string num(double v) {
  std::ostringstream o;
  if (v == static_cast<double>(static_cast<long long>(v))) o << static_cast<long long>(v);
  else o << v;
  return o.str();
}

std::string parameter_tables_markdown() {
  std::ostringstream o;
  o << "### Host cost tables (`[host.costs]`)\n\n";
  for (const auto& a : arch_names()) {
    const ArchTable& t = arch_table(a);
    o << "#### " << a << " (" << isa_name(t.costs.isa) << ", " << t.costs.ghz << " GHz"
      << (t.costs.smt ? ", SMT" : ", no SMT") << ")\n\n";
    o << "| key | meaning | default | range | unit | source |\n|---|---|---|---|---|---|\n";
    for (const auto& r : t.rows)
      o << "| `" << r.key << "` | " << cost_description(r.key) << " | " << num(r.value) << " | " << num(r.lo) << " .. " << num(r.hi)
        << " | " << r.unit << " | " << r.source << " |\n";
    o << "\n";
  }
  o << "### Guest costs (`[guest.costs]`)\n\n";
  o << "| key | default | range | unit | source |\n|---|---|---|---|---|\n";
  for (const auto& r : guest_cost_rows())
    o << "| `" << r.key << "` | " << num(r.value) << " | " << num(r.lo) << " .. " << num(r.hi) << " | " << r.unit << " | " << r.source << " |\n";
  o << "\n### Tick policies (`guest.tick_policy`)\n\n| name | origin |\n|---|---|\n";
  for (const auto& p : tick_policies()) o << "| `" << p.name << "` | " << p.origin << " |\n";
  o << "\n### Workloads (`[workload]`, `kind = ...`)\n\n"
       "[EST] marks an estimate; every value may be set anywhere in its range.\n";
  for (const auto& k : workload_kinds_table()) {
    o << "\n#### `" << k.name << "` (metric: " << k.ops_name << "/s)\n\n" << k.description << "\n";
    if (k.params.empty()) continue;
    o << "\n| key | default | range | meaning |\n|---|---|---|---|\n";
    for (const auto& p : k.params) {
      auto val = [&](double v) { return p.type == 'd' ? format_duration(static_cast<sim_ns>(v)) : num(v); };
      o << "| `" << p.key << "` | " << val(p.dflt) << " | " << val(p.lo) << " .. " << val(p.hi) << " | " << p.help << " |\n";
    }
  }
  o << "\n### Scenario keys\n\n| key | type and meaning |\n|---|---|\n";
  for (const auto& [k, d] : scenario_keys())
    if (k.rfind("host.costs.", 0) != 0 && k.rfind("guest.costs.", 0) != 0) o << "| `" << k << "` | " << d << " |\n";
  return o.str();
}

}  // namespace vtick
