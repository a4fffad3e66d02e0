// Sched domains as kernel/sched/topology.c builds them for the guest's CPU topology.
#pragma once
#include <cstdint>
#include <vector>

#include "core/enum_names.hpp"
#include "core/time.hpp"

namespace vtick {

// What the VMM shows the guest (CPUID leaf 0xB / MPIDR, the ACPI PPTT): vCPU pairs as
// SMT threads of one core, or every vCPU a core of its own. Both share one LLC.
enum class GuestTopology { Smt, Mc };
VTICK_ENUM_NAMES(GuestTopology, "smt", "mc");

enum class SdLevel { Smt, Mc };
const char* sd_level_name(SdLevel l);

// struct sched_domain, one per level per CPU (lowest first), with sd_init()'s defaults.
struct SchedDomain {
  SdLevel level = SdLevel::Mc;
  std::uint64_t span = 0;                // CPUs of this domain
  std::vector<std::uint64_t> groups;     // its sched groups: the child domain's spans
  bool share_cpucapacity = false;        // SD_SHARE_CPUCAPACITY (SMT)
  int weight = 1;                        // sd_weight
  sim_ns min_interval = 0;               // sd_weight ms
  sim_ns max_interval = 0;               // 2 * sd_weight ms
  sim_ns balance_interval = 0;           // starts at min_interval, doubles when balanced
  int busy_factor = 16;
  int imbalance_pct = 117;               // 110 for SMT
  int cache_nice_tries = 1;              // 0 for SMT
  int nr_balance_failed = 0;
  sim_ns last_balance = 0;
  sim_ns max_newidle_lb_cost = 0;
  sim_ns last_decay_max_lb_cost = 0;
};

// build_sched_domains() for `cpus` CPUs: an SMT level of sibling pairs (Smt topology, more
// than one thread per core), then an MC level of all; degenerate levels (one CPU, or the
// same span as the child) are dropped as sd_degenerate() does.
std::vector<std::vector<SchedDomain>> build_sched_domains(int cpus, GuestTopology topo, sim_ns balance_interval_override,
                                                          int busy_factor);

}  // namespace vtick
