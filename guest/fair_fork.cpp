// kernel/sched/fair.c: sched_balance_find_dst_cpu() (select_task_rq_fair()'s SD_BALANCE_FORK path); core.c: wake_up_new_task().
#include <algorithm>

#include "core/trace.hpp"
#include "guest/kernel.hpp"
#include "guest/sched_group.hpp"

namespace vtick {

// sched_balance_find_dst_group(): the group of sd with the most spare room for a new task, or 0
// to stay in this CPU's own group. Groups compare by type, then by idle CPUs (has spare)
// or average load (busy), as update_pick_idlest() does; the local group keeps the task
// unless the idlest one is clearly better (imbalance_pct). A new task has no load of its
// own on any queue yet, so cpu_load_without() is cpu_load().
std::uint64_t GuestKernel::sched_balance_find_dst_group(const SchedDomain& sd, const Task& p, int this_cpu, sim_ns now) {
  SgStats local, idlest;
  std::uint64_t idlest_group = 0;
  bool have_local = false;
  for (std::uint64_t g : sd.groups) {
    if (!(g & p.allowed)) continue;
    SgStats s;
    for (std::uint64_t m = g & p.allowed; m; m &= m - 1) {  // update_sg_wakeup_stats()
      int c = __builtin_ctzll(m);
      if (c >= nr_cpus() || !cpus_[static_cast<size_t>(c)]->online()) continue;
      const GuestCpu& cc = *cpus_[static_cast<size_t>(c)];
      ++s.weight;
      s.sum_nr_running += cc.nr_running();
      s.idle_cpus += cc.idle_cpu();  // idle_cpu() implies no task running or queued
      s.load += cpu_load(c, now);
    }
    if (s.weight == 0) continue;
    s.type = group_classify(s);
    if ((g >> this_cpu) & 1ULL) {
      local = s;
      have_local = true;
      continue;
    }
    // update_pick_idlest()
    bool pick = idlest_group == 0 || s.type < idlest.type;
    if (idlest_group != 0 && s.type == idlest.type) {
      if (s.type == GroupType::HasSpare) pick = s.idle_cpus > idlest.idle_cpus;
      else pick = s.avg_load() < idlest.avg_load();
    }
    if (pick) {
      idlest = s;
      idlest_group = g;
    }
  }
  if (idlest_group == 0) return 0;
  if (!have_local) return idlest_group;
  if (local.type < idlest.type) return 0;
  if (local.type > idlest.type) return idlest_group;
  if (local.type == GroupType::HasSpare) return local.idle_cpus >= idlest.idle_cpus ? 0 : idlest_group;
  // overloaded or fully busy: move only for a clear load difference (NICE_0_LOAD's share
  // of imbalance_pct, and the imbalance_pct ratio)
  const double imbalance = 1024.0 * (sd.imbalance_pct - 100) / 100.0;
  if (idlest.avg_load() >= local.avg_load() + imbalance) return 0;
  if (100 * local.avg_load() <= sd.imbalance_pct * idlest.avg_load()) return 0;
  return idlest_group;
}

// sched_balance_find_dst_group_cpu(): an idle CPU of the group (the one idle most recently:
// its cache is the warmest, all idle states alike here), else the least loaded one.
int GuestKernel::sched_balance_find_dst_group_cpu(std::uint64_t group, const Task& p, int this_cpu, sim_ns now) {
  if (__builtin_popcountll(group) == 1) return __builtin_ctzll(group);
  int shallowest = -1, least_loaded = this_cpu;
  sim_ns latest_idle = -1;
  double min_load = -1;
  for (std::uint64_t m = group & p.allowed; m; m &= m - 1) {
    int c = __builtin_ctzll(m);
    if (c >= nr_cpus() || !cpus_[static_cast<size_t>(c)]->online()) continue;
    if (available_idle_cpu(c)) {
      sim_ns stamp = cpus_[static_cast<size_t>(c)]->idle_stamp;
      if (stamp > latest_idle) {
        latest_idle = stamp;
        shallowest = c;
      }
    } else if (shallowest == -1) {
      double load = cpu_load(c, now);
      if (min_load < 0 || load < min_load) {
        min_load = load;
        least_loaded = c;
      }
    }
  }
  return shallowest != -1 ? shallowest : least_loaded;
}

// sched_balance_find_dst_cpu(): from the widest domain with SD_BALANCE_FORK (every level
// sd_init() builds has it) down, the idlest group, then its idlest CPU; a move to another
// CPU starts over in that CPU's domains below the level it was found at.
int GuestKernel::sched_balance_find_dst_cpu(Task& p, int this_cpu) {
  sim_ns now = cpus_[static_cast<size_t>(this_cpu)]->now();
  int cpu = this_cpu, new_cpu = this_cpu;
  int level = static_cast<int>(cpus_[static_cast<size_t>(cpu)]->sd.size()) - 1;
  while (level >= 0) {
    const SchedDomain& sd = cpus_[static_cast<size_t>(cpu)]->sd[static_cast<size_t>(level)];
    if (!(sd.span & p.allowed)) return cpu;
    std::uint64_t group = sched_balance_find_dst_group(sd, p, cpu, now);
    if (!group) {
      --level;  // sd = sd->child
      continue;
    }
    new_cpu = sched_balance_find_dst_group_cpu(group, p, cpu, now);
    if (new_cpu == cpu) {
      --level;
      continue;
    }
    // the new CPU's domains narrower than this one
    int weight = sd.weight;
    cpu = new_cpu;
    const auto& doms = cpus_[static_cast<size_t>(cpu)]->sd;
    level = -1;
    for (std::size_t i = 0; i < doms.size() && doms[i].weight < weight; ++i) level = static_cast<int>(i);
  }
  return new_cpu;
}

// wake_up_new_task(): TASK_RUNNING, the CPU from select_task_rq(WF_FORK), the first
// enqueue (ENQUEUE_INITIAL: half a slice to its first deadline), then wakeup_preempt().
// No wakelist: the parent takes the new CPU's runqueue lock itself, and an idle target
// that is not polling gets a reschedule IPI (resched_curr()); nor avg_idle's update, which
// is ttwu_do_activate()'s.
void GuestKernel::wake_up_new_task(Task& p, GuestCpu& parent) {
  if (VTICK_WARN(p.state != TaskState::New, "task ", p.pid, " (", p.comm, ") forked twice")) return;
  p.state = TaskState::Runnable;
  // init_entity_runnable_average() (sched_fork()): a new task starts at its full weight,
  // as if it had always run, so its CPU does not look idle to the next fork's placement
  p.avg.load_avg = SchedAvg::kScale * p.weight / 1024.0;
  p.avg.last_update = parent.now();
  int target_cpu = sched_balance_find_dst_cpu(p, parent.id());
  if (!allowed_on(p, target_cpu) || !cpus_[static_cast<size_t>(target_cpu)]->online()) target_cpu = select_fallback_rq(p);
  GuestCpu& target = cpu(target_cpu);
  if (p_.sched.fair != FairPolicy::Eevdf)  // task_fork_fair() with START_DEBIT: one slice behind
    p.vruntime = target.min_vruntime + calc_delta_fair(sched_slice(), p);
  p.cpu = target_cpu;  // no wake-up latency stamp: a fork is not a try_to_wake_up()
  ++sched_stats.forks;
  // trace_sched_wakeup_new(): recorded as sched_wakeup (the same fields), with no sched_waking before it
  if (tracing()) trace::sched_wakeup(parent.now(), parent.id(), p.pid, target_cpu);
  enqueue_task(target, p, false, true);
  target.tick().tick_nohz_dep_set_cpu_sched(parent);
  wakeup_preempt(target, p, parent);
}

}  // namespace vtick
