// kernel/sched/topology.c: sd_init(), build_sched_domains(), sd_degenerate().
#include "guest/sched_domains.hpp"

namespace vtick {

const char* sd_level_name(SdLevel l) { return l == SdLevel::Smt ? "SMT" : "MC"; }

namespace {
std::uint64_t bit(int c) { return 1ULL << c; }

// sd_init(): intervals in ms of the domain's weight, SMT's imbalance_pct 110 and no cache
// nice tries (siblings share the cache), MC's 117 and one.
SchedDomain sd_init(SdLevel level, std::uint64_t span, std::vector<std::uint64_t> groups, sim_ns interval_override,
                    int busy_factor) {
  SchedDomain sd;
  sd.level = level;
  sd.span = span;
  sd.groups = std::move(groups);
  sd.weight = __builtin_popcountll(span);
  sd.min_interval = interval_override ? interval_override : sd.weight * NSEC_PER_MSEC;
  sd.max_interval = 2 * sd.min_interval;
  sd.balance_interval = sd.min_interval;
  sd.busy_factor = busy_factor;
  sd.share_cpucapacity = level == SdLevel::Smt;
  sd.imbalance_pct = level == SdLevel::Smt ? 110 : 117;
  sd.cache_nice_tries = level == SdLevel::Smt ? 0 : 1;
  return sd;
}
}  // namespace

std::vector<std::vector<SchedDomain>> build_sched_domains(int cpus, GuestTopology topo, sim_ns interval_override,
                                                          int busy_factor) {
  std::vector<std::vector<SchedDomain>> out(static_cast<size_t>(cpus));
  if (cpus < 2) return out;  // a single CPU attaches to the NULL domain
  std::uint64_t all = cpus >= 64 ? ~0ULL : (1ULL << cpus) - 1;
  auto core_of = [&](int c) -> std::uint64_t {
    if (topo != GuestTopology::Smt) return bit(c);
    int first = c & ~1;
    return first + 1 < cpus ? bit(first) | bit(first + 1) : bit(first);
  };
  for (int c = 0; c < cpus; ++c) {
    std::uint64_t core = core_of(c);
    if (__builtin_popcountll(core) > 1) {
      std::vector<std::uint64_t> g;
      for (int s = 0; s < cpus; ++s)
        if (core & bit(s)) g.push_back(bit(s));
      out[static_cast<size_t>(c)].push_back(sd_init(SdLevel::Smt, core, g, interval_override, busy_factor));
    }
    if (all != core) {  // the MC level degenerates when the SMT level already spans all
      std::vector<std::uint64_t> g;
      for (int s = 0; s < cpus; ++s)
        if (topo != GuestTopology::Smt || s % 2 == 0) g.push_back(core_of(s));  // one group per core
      // the local group first (the kernel's group list starts at this CPU's group)
      for (std::size_t i = 0; i < g.size(); ++i)
        if (g[i] & bit(c)) { std::swap(g[0], g[i]); break; }
      out[static_cast<size_t>(c)].push_back(sd_init(SdLevel::Mc, all, g, interval_override, busy_factor));
    }
  }
  return out;
}

}  // namespace vtick
