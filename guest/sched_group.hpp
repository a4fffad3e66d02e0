// kernel/sched/fair.c: struct sg_lb_stats and group_classify(), as the balancer and fork placement use them.
#pragma once
#include <cstdint>

namespace vtick {

enum class GroupType { HasSpare, FullyBusy, Overloaded };  // enum group_type, the cases we meet

struct SgStats {  // struct sg_lb_stats
  std::uint64_t span = 0;
  int weight = 0, sum_nr_running = 0, idle_cpus = 0;
  double load = 0;
  bool load_known = false;  // load is summed when a comparison needs it (sg_avg_load())
  GroupType type = GroupType::HasSpare;
  double avg_load() const { return weight ? load / weight : 0; }
};

// group_classify() on task counts (no util: equal-capacity vCPUs, docs/model.md): more tasks
// than CPUs is overloaded; no idle CPU fully busy.
inline GroupType group_classify(const SgStats& s) {
  return s.sum_nr_running > s.weight ? GroupType::Overloaded : s.idle_cpus == 0 ? GroupType::FullyBusy : GroupType::HasSpare;
}

}  // namespace vtick
