// kernel/sched/fair.c: sched_balance_rq() (load_balance), sched_balance_newidle(),
// sched_balance_domains() and the stopper's active_load_balance_cpu_stop().
#include <algorithm>
#include <cmath>

#include "core/trace.hpp"
#include "core/warn.hpp"
#include "guest/kernel.hpp"
#include "guest/sched_group.hpp"

namespace vtick {

namespace {
// The balancing path `c` is in while it runs (a CPU's work can be interrupted, never
// interleaved with another path of its own).
struct LbPath {
  LbPath(GuestCpu& c, LbCause cause) : c_(c), prev_(c.lb_cause) { c.lb_cause = cause; }
  ~LbPath() { c_.lb_cause = prev_; }
  LbPath(const LbPath&) = delete;
  LbPath& operator=(const LbPath&) = delete;
  GuestCpu& c_;
  LbCause prev_;
};

}  // namespace

// msecs_to_jiffies(): intervals are whole jiffies, rounded up.
sim_ns GuestKernel::msecs_to_jiffies_ns(sim_ns ns) const {
  sim_ns j = (ns + tick_nsec_ - 1) / tick_nsec_;
  return std::max<sim_ns>(j, 1) * tick_nsec_;
}

// get_sd_balance_interval(): balance_interval (ms), times busy_factor when busy, at least
// one jiffy and at most max_load_balance_interval (HZ * online CPUs / 10).
sim_ns GuestKernel::get_sd_balance_interval(const SchedDomain& sd, bool busy) const {
  sim_ns interval = sd.balance_interval;
  if (busy) interval *= sd.busy_factor;
  return std::clamp(msecs_to_jiffies_ns(interval), tick_nsec_, max_load_balance_interval_);
}

void GuestKernel::update_max_interval() {
  int online = 0;
  for (const auto& c : cpus_) online += c->online();
  max_load_balance_interval_ = std::max<sim_ns>(tick_nsec_, static_cast<sim_ns>(online) * NSEC_PER_SEC / 10);
}

// update_newidle_cost(): the domain's max newidle balance cost, decayed by 1 % per second.
bool GuestKernel::update_newidle_cost(SchedDomain& sd, sim_ns cost, sim_ns now) {
  if (cost > sd.max_newidle_lb_cost) {
    sd.max_newidle_lb_cost = cost;
    sd.last_decay_max_lb_cost = now;
  } else if (now - sd.last_decay_max_lb_cost > NSEC_PER_SEC) {
    sd.max_newidle_lb_cost = sd.max_newidle_lb_cost * 253 / 256;
    sd.last_decay_max_lb_cost = now;
    return true;
  }
  return false;
}

// rd->overloaded: some CPU has more than one runnable task (set in add_nr_running()).
bool GuestKernel::rd_overloaded() const {
  pack_refresh();  // the online CPUs with >= 2 runnable, kept from pack_touch()
  return !pack_queues_.busy.empty();
}

// should_we_balance(): a newly idle CPU always may; otherwise the first idle CPU of the
// local group balances for it (or its first CPU when none is idle).
bool GuestKernel::should_we_balance(const GuestCpu& dst, const SchedDomain& sd, CpuIdleType idle) const {
  if (idle == CpuIdleType::NewlyIdle) return dst.nr_running() == 0 && dst.wake_list.empty();
  std::uint64_t local = 0;
  for (std::uint64_t g : sd.groups)
    if ((g >> dst.id()) & 1ULL) local = g;
  int first = -1;
  for (int c = 0; c < nr_cpus(); ++c) {
    if (!((local >> c) & 1ULL)) continue;
    if (first < 0) first = c;
    if (cpus_[static_cast<size_t>(c)]->idle_cpu()) return c == dst.id();
  }
  return first == dst.id();
}

// can_migrate_task(): allowed on dst, not running, and not cache hot (task_hot(): ran
// within sysctl_sched_migration_cost; SMT siblings share the cache, so never hot there)
// unless balancing failed more than cache_nice_tries times.
bool GuestKernel::can_migrate_task(GuestCpu& self, const Task& p, const GuestCpu& src, const GuestCpu& dst,
                                   const SchedDomain& sd) {
  if (!allowed_on(p, dst.id()) || src.curr == &p) return false;
  sim_ns now = self.now();
  bool hot = !sd.share_cpucapacity && p_.sched.migration_cost > 0 && p.last_ran >= 0 && now - p.last_ran < p_.sched.migration_cost;
  if (!hot) return true;
  if (sd.nr_balance_failed > sd.cache_nice_tries) {
    ++sched_stats.migrate_forced_hot;
    return true;
  }
  ++sched_stats.lb_hot_skipped;
  return false;
}

// detach_task(): the task leaves src's queue (sched_migrate_task), its vruntime made
// relative to dst's queue.
void GuestKernel::detach_task(GuestCpu& self, Task& p, GuestCpu& src, GuestCpu& dst) {
  auto it = std::find(src.rq.begin(), src.rq.end(), &p);
  if (VTICK_WARN(it == src.rq.end(), "task ", p.pid, " is not queued on CPU ", src.id())) return;
  src.hw().revoke_local();
  dst.hw().revoke_local();
  if (p_.sched.fair == FairPolicy::Eevdf) {  // dequeue_entity(): the lag it takes along
    src.update_curr();
    src.update_entity_lag(p);
  }
  src.rq.erase(it);
  src.rq_changed();
  if (tracing()) trace::sched_migrate_task(self.now(), self.id(), p.pid, src.id(), dst.id(), lb_cause_name(self.lb_cause));
  p.vruntime = p.vruntime - src.min_vruntime + dst.min_vruntime;
  p.cpu = dst.id();
}

// attach_task(): the task joins dst's queue; the destination is told (wakeup_preempt()).
void GuestKernel::attach_task(GuestCpu& self, Task& p, GuestCpu& dst) {
  if (p_.sched.fair == FairPolicy::Eevdf) {  // enqueue_entity(): placed by its lag
    dst.update_curr();
    dst.place_entity(p, false);
  }
  dst.rq.push_back(&p);
  dst.rq_changed();
  ++sched_stats.lb_pulled;
  switch (self.lb_cause) {
    case LbCause::Newidle: ++sched_stats.migrate_newidle; break;
    case LbCause::Periodic: ++sched_stats.migrate_periodic; break;
    case LbCause::Nohz: ++sched_stats.migrate_nohz; break;
    case LbCause::Active: ++sched_stats.migrate_active; break;
    default: break;
  }
  packing_update(self.now(), self.lb_cause);
  wakeup_preempt(dst, p, self);
}

// struct lb_env: one sched_balance_rq() call's context.
struct LbEnv {
  GuestCpu& self;  // the CPU doing the work (the ILB for a nohz CPU)
  GuestCpu& dst;
  SchedDomain& sd;
  GuestKernel::CpuIdleType idle;
  sim_ns now;
  bool loads_read = false;  // cpu_loads() read once per call, when a comparison needs loads
  enum class Migration { Task, Load } migration_type = Migration::Task;  // enum migration_type, the two we meet
  double imbalance = 0;     // tasks (migrate_task) or load (migrate_load)
  GuestCpu* src = nullptr;
};

// struct sd_lb_stats: the local group and the busiest other one.
struct SdLbStats {
  SgStats local, busiest;
  bool have_busiest = false;
  // sds_avg_load()'s total_load / total_capacity: the domain's CPUs, and how many are online
  std::uint64_t span = 0;
  int weight = 0;
};

// A group's load only decides between groups of one type (not has-spare) and the
// overloaded local group's margin: summed then, from one pass over the tasks (cpu_loads(),
// not one per CPU of the domain), at most once per call.
double GuestKernel::sg_avg_load(LbEnv& env, SgStats& s) {
  if (!s.load_known) {
    if (!env.loads_read) cpu_loads(env.now, lb_loads_);
    env.loads_read = true;
    s.load = 0;
    for (std::uint64_t m = s.span; m; m &= m - 1) {  // the group's online CPUs, lowest first
      int c = __builtin_ctzll(m);
      if (c >= nr_cpus()) break;
      if (cpus_[static_cast<size_t>(c)]->online()) s.load += lb_loads_[static_cast<size_t>(c)];
    }
    s.load_known = true;
  }
  return s.avg_load();
}

// sds->avg_load: the domain's total load over its total capacity (SCHED_CAPACITY_SCALE a CPU).
double GuestKernel::sds_avg_load(LbEnv& env, const SdLbStats& sds) {
  SgStats all;
  all.span = sds.span;
  all.weight = sds.weight;
  return sg_avg_load(env, all);
}

// update_sd_lb_stats(): per group, tasks, idle CPUs and its type (group_classify());
// update_sd_pick_busiest() keeps the worst other group.
void GuestKernel::update_sd_lb_stats(LbEnv& env, SdLbStats& sds) {
  for (std::uint64_t g : env.sd.groups) {
    sds.span |= g;
    SgStats s;
    s.span = g;
    for (std::uint64_t m = g; m; m &= m - 1) {  // the group's CPUs, lowest first
      int c = __builtin_ctzll(m);
      if (c >= nr_cpus()) break;
      if (!cpus_[static_cast<size_t>(c)]->online()) continue;
      const GuestCpu& cc = *cpus_[static_cast<size_t>(c)];
      ++s.weight;
      s.sum_nr_running += cc.nr_running();
      s.idle_cpus += cc.idle_cpu();
    }
    sds.weight += s.weight;
    s.type = group_classify(s);
    if ((g >> env.dst.id()) & 1ULL) {
      sds.local = s;
      continue;
    }
    if (s.sum_nr_running == 0) continue;
    // update_sd_pick_busiest(): the worst group type, then load (overloaded, fully busy)
    // or fewer idle CPUs and more tasks (has spare)
    SgStats& b = sds.busiest;
    bool pick = !sds.have_busiest || s.type > b.type;
    if (sds.have_busiest && s.type == b.type) {
      if (s.type == GroupType::HasSpare) pick = s.idle_cpus < b.idle_cpus || (s.idle_cpus == b.idle_cpus && s.sum_nr_running > b.sum_nr_running);
      else pick = sg_avg_load(env, s) > sg_avg_load(env, b);
    }
    if (pick) {
      b = s;
      sds.have_busiest = true;
    }
  }
}

// calculate_imbalance(): a local group with spare CPUs evens the task counts (migrate_task:
// half the difference, at least one); a local group without spare CPUs takes load
// (migrate_load) towards the domain's average load, unless it already carries as much.
void GuestKernel::calculate_imbalance(LbEnv& env, SdLbStats& sds) {
  SgStats &local = sds.local, &busiest = sds.busiest;
  if (local.type == GroupType::HasSpare) {
    env.migration_type = LbEnv::Migration::Task;
    env.imbalance = busiest.weight > 1 ? std::max(0, local.idle_cpus - busiest.idle_cpus) / 2
                                       : (busiest.sum_nr_running - local.sum_nr_running) / 2;
    env.imbalance = std::max(env.imbalance, 1.0);
    return;
  }
  const double local_avg = sg_avg_load(env, local), busiest_avg = sg_avg_load(env, busiest);
  const double avg = sds_avg_load(env, sds);
  if (local.type == GroupType::FullyBusy && (local_avg >= busiest_avg || local_avg >= avg)) {
    env.imbalance = 0;  // local is fully busy and already as loaded: nothing to take
    return;
  }
  env.migration_type = LbEnv::Migration::Load;
  env.imbalance = std::max(0.0, std::min((busiest_avg - avg) * busiest.weight, (avg - local_avg) * local.weight));
}

// sched_balance_find_src_group(): the busiest group if pulling from it helps, with the
// imbalance to move; false when the domain is balanced.
bool GuestKernel::sched_balance_find_src_group(LbEnv& env, SdLbStats& sds) {
  update_sd_lb_stats(env, sds);
  SgStats &local = sds.local, &busiest = sds.busiest;
  if (!sds.have_busiest || local.type > busiest.type) return false;
  if (local.type == GroupType::Overloaded) {  // both overloaded: fairness by avg_load
    const double local_avg = sg_avg_load(env, local), busiest_avg = sg_avg_load(env, busiest);
    if (local_avg >= busiest_avg || local_avg >= sds_avg_load(env, sds)) return false;
    if (100 * busiest_avg <= env.sd.imbalance_pct * local_avg) return false;
  }
  if (busiest.type != GroupType::Overloaded) {
    if (env.idle == CpuIdleType::NotIdle) return false;  // let an idle CPU pull
    if (busiest.weight > 1 && local.idle_cpus <= busiest.idle_cpus + 1) return false;
    if (busiest.sum_nr_running == 1) return false;
  }
  calculate_imbalance(env, sds);
  return env.imbalance > 0;
}

// sched_balance_find_src_rq(): the queue of the group with the most tasks.
GuestCpu* GuestKernel::sched_balance_find_src_rq(const SgStats& busiest) {
  GuestCpu* src = nullptr;
  for (int c = 0; c < nr_cpus(); ++c) {
    if (!((busiest.span >> c) & 1ULL)) continue;
    GuestCpu* cc = cpus_[static_cast<size_t>(c)].get();
    if (cc->online() && (!src || cc->nr_running() > src->nr_running())) src = cc;
  }
  return src;
}

// detach_tasks(): from the least recently queued, at most nr_migrate looked at, up to the
// imbalance (tasks, or load: task_h_load(), weighted_load()). Each is attached at once
// (attach_task()), where the kernel attaches the list after (attach_tasks()): the same
// tasks move; a destination told to reschedule may run meanwhile, so a task already gone
// is skipped. `all_pinned`: none may run on dst.
int GuestKernel::detach_tasks(LbEnv& env, bool& all_pinned) {
  GuestCpu& src = *env.src;
  int moved = 0;
  all_pinned = true;
  if (src.nr_running() <= 1) return 0;
  int loop_max = std::min(p_.sched.nr_migrate, src.nr_running());
  std::vector<Task*> candidates(src.rq.begin(), src.rq.end());
  for (int i = 0; i < static_cast<int>(candidates.size()) && i < loop_max && env.imbalance > 0; ++i) {
    Task* t = candidates[static_cast<size_t>(i)];
    if (std::find(src.rq.begin(), src.rq.end(), t) == src.rq.end()) continue;
    if (allowed_on(*t, env.dst.id())) all_pinned = false;
    if (!can_migrate_task(env.self, *t, src, env.dst, env.sd)) continue;
    if (env.migration_type == LbEnv::Migration::Load) {
      // not much more load than the imbalance (the bound relaxed as balancing fails:
      // shr_bound(load, nr_balance_failed)), nor a nearly idle task first (LB_MIN)
      const double load = std::max(weighted_load(*t, env.now, true), 1.0);
      if (load < 16 && env.sd.nr_balance_failed == 0) continue;
      if (std::ldexp(load, -std::min(env.sd.nr_balance_failed, 63)) > env.imbalance) continue;
      env.imbalance -= load;
    } else {
      env.imbalance -= 1;
    }
    detach_task(env.self, *t, src, env.dst);
    attach_task(env.self, *t, env.dst);
    ++moved;
  }
  return moved;
}

// sched_balance_rq() (load_balance()): find the busiest group of the domain and its
// busiest queue, and pull the imbalance from it; failures grow nr_balance_failed (which
// lets cache-hot tasks go, then the stopper push the running one) and back the interval
// off.
int GuestKernel::sched_balance_rq(GuestCpu& self, GuestCpu& dst, SchedDomain& sd, CpuIdleType idle,
                                  bool* continue_balancing) {
  ++sched_stats.lb_calls;
  self.kernel_work(p_.costs.load_balance_ns);
  LbEnv env{self, dst, sd, idle, self.now()};
  auto out_balanced = [&]() {
    sd.nr_balance_failed = 0;
    if (idle != CpuIdleType::NewlyIdle && sd.balance_interval < sd.max_interval) sd.balance_interval *= 2;
    return 0;
  };
  if (!should_we_balance(dst, sd, idle)) {
    *continue_balancing = false;
    return out_balanced();
  }
  SdLbStats sds;
  if (!sched_balance_find_src_group(env, sds)) return out_balanced();
  env.src = sched_balance_find_src_rq(sds.busiest);
  if (!env.src) return out_balanced();
  GuestCpu* src = env.src;
  bool all_pinned = true;
  int moved = detach_tasks(env, all_pinned);
  if (!moved && all_pinned) {  // out_all_pinned: nothing here may move; slow down
    sd.nr_balance_failed = 0;
    if (idle != CpuIdleType::NewlyIdle && sd.balance_interval < 512 * NSEC_PER_MSEC) sd.balance_interval *= 2;  // MAX_PINNED_INTERVAL
    return 0;
  }
  if (!moved) {
    ++sched_stats.lb_failed;
    if (idle != CpuIdleType::NewlyIdle) ++sd.nr_balance_failed;
    // need_active_balance(): too many failures; the stopper moves what runs there
    if (p_.sched.active_balance && idle != CpuIdleType::NewlyIdle && sd.nr_balance_failed > sd.cache_nice_tries + 2 && src->curr &&
        allowed_on(*src->curr, dst.id()) && !src->active_balance) {
      src->hw().revoke_local();
      src->active_balance = true;
      src->push_cpu = dst.id();
      ++sched_stats.active_balances;
      resched_curr(*src, self);  // stop_one_cpu_nowait(): the stopper preempts the task
      sd.balance_interval = sd.min_interval;
      return 0;
    }
  } else {
    sd.nr_balance_failed = 0;
  }
  sd.balance_interval = sd.min_interval;  // we were unbalanced: reset the interval
  return moved;
}

// active_load_balance_cpu_stop(): on the busiest CPU, the stopper has preempted the
// running task; detach_one_task() moves one task (the least recently queued) to push_cpu.
void GuestKernel::active_load_balance_cpu_stop(GuestCpu& busiest) {
  busiest.active_balance = false;
  int push = busiest.push_cpu;
  busiest.kernel_work(p_.sched.active_balance_cost);
  if (push < 0 || !cpus_[static_cast<size_t>(push)]->online() || busiest.rq.empty()) return;
  GuestCpu& dst = *cpus_[static_cast<size_t>(push)];
  if (dst.nr_running() > 0) return;  // the imbalance went away meanwhile
  for (Task* t : std::vector<Task*>(busiest.rq.begin(), busiest.rq.end())) {
    if (!allowed_on(*t, push)) continue;
    LbPath path(busiest, LbCause::Active);
    detach_task(busiest, *t, busiest, dst);  // detach_one_task()
    attach_task(busiest, *t, dst);           // attach_one_task()
    break;
  }
}

// sched_balance_domains() (rebalance_domains()): each domain whose interval is due.
void GuestKernel::sched_balance_domains(GuestCpu& self, GuestCpu& c, CpuIdleType idle) {
  sim_ns now = self.now();
  bool busy = idle != CpuIdleType::Idle;
  bool continue_balancing = true, need_decay = false;
  sim_ns next_balance = now + 60 * NSEC_PER_SEC, max_cost = 0;
  bool update_next_balance = false;
  ++sched_stats.periodic_balances;
  for (SchedDomain& sd : c.sd) {
    need_decay = update_newidle_cost(sd, 0, now) || need_decay;
    max_cost += sd.max_newidle_lb_cost;
    if (!continue_balancing) {
      if (need_decay) continue;
      break;
    }
    sim_ns interval = get_sd_balance_interval(sd, busy);
    if (jiffies_at(now) >= jiffies_at(sd.last_balance + interval)) {
      if (sched_balance_rq(self, c, sd, idle, &continue_balancing)) {
        idle = c.idle_cpu() ? CpuIdleType::Idle : CpuIdleType::NotIdle;
        busy = idle != CpuIdleType::Idle;
      }
      sd.last_balance = now;
      interval = get_sd_balance_interval(sd, busy);
    }
    if (next_balance > sd.last_balance + interval) {
      next_balance = sd.last_balance + interval;
      update_next_balance = true;
    }
  }
  if (need_decay) c.max_idle_balance_cost = std::max(p_.sched.migration_cost, max_cost);
  if (update_next_balance) c.next_balance = next_balance;
}

// sched_balance_softirq() (SCHED_SOFTIRQ): the nohz balance first if kicked, else this
// CPU's own domains.
void GuestKernel::sched_balance_softirq(GuestCpu& c) {
  CpuIdleType idle = c.idle_balance ? CpuIdleType::Idle : CpuIdleType::NotIdle;
  unsigned flags = c.nohz_flags_pending;
  c.nohz_flags_pending = 0;
  if (flags && idle == CpuIdleType::Idle) {
    LbPath path(c, LbCause::Nohz);
    _nohz_idle_balance(c, flags);
    return;
  }
  if (!p_.sched.periodic_balance) return;
  LbPath path(c, LbCause::Periodic);
  sched_balance_domains(c, c, idle);
}

// sched_balance_trigger() (trigger_load_balance()), from the tick: raise SCHED_SOFTIRQ when
// this CPU's next balance is due, and consider kicking an idle CPU for the nohz ones.
void GuestKernel::sched_balance_trigger(GuestCpu& c) {
  if (!c.online() || c.sd.empty()) return;
  if (c.now() >= c.next_balance) sched_balance_softirq(c);  // run at this irq's exit
  nohz_balancer_kick(c);
}

// sched_tick(): with other tasks waiting, the running one yields once it has had its
// slice (base slice 0.75 ms scaled by 1 + ilog2(min(nr_cpus, 8))): cfs counts the slice
// from the pick, eevdf reschedules when update_curr() renewed the deadline; then balancing.
void GuestKernel::sched_tick(GuestCpu& c) {
  const bool renewed = c.update_curr();
  if (p_.sched.fair == FairPolicy::Eevdf) {
    if (renewed && !c.rq.empty()) c.need_resched = true;
  } else if (c.curr && !c.rq.empty() && c.now() - c.slice_start >= sched_slice()) {
    c.need_resched = true;
  }
  c.idle_balance = c.idle_cpu();  // rq->idle_balance
  if (p_.sched.load_balance) sched_balance_trigger(c);
}

// sched_balance_newidle(): a CPU about to idle pulls work when some CPU is overloaded and
// it expects to stay idle longer than the domain's cost of trying (max_newidle_lb_cost).
int GuestKernel::sched_balance_newidle(GuestCpu& c) {
  sim_ns now = c.now();
  c.idle_stamp = now;
  if (!c.online() || c.sd.empty()) return 0;
  sim_ns next_balance = now + NSEC_PER_SEC;
  auto update_next_balance = [&](const SchedDomain& sd) {
    next_balance = std::min(next_balance, sd.last_balance + get_sd_balance_interval(sd, false));
  };
  int pulled = 0;
  if (!p_.sched.newidle_balance || !rd_overloaded() || c.avg_idle < c.sd.front().max_newidle_lb_cost) {
    update_next_balance(c.sd.front());
  } else {
    LbPath path(c, LbCause::Newidle);
    ++sched_stats.newidle_balances;
    sim_ns t0 = c.now(), curr_cost = 0;
    for (SchedDomain& sd : c.sd) {
      update_next_balance(sd);
      if (c.avg_idle < curr_cost + sd.max_newidle_lb_cost) break;
      bool cont = true;
      pulled = sched_balance_rq(c, c, sd, CpuIdleType::NewlyIdle, &cont);
      sim_ns t1 = c.now(), cost = t1 - t0;
      update_newidle_cost(sd, cost, t1);
      curr_cost += cost;
      t0 = t1;
      if (pulled || !cont) break;
      if (c.nr_running() || !c.wake_list.empty()) { pulled = 1; break; }  // work arrived meanwhile
    }
    c.max_idle_balance_cost = std::max(c.max_idle_balance_cost, curr_cost);
  }
  if (c.next_balance > next_balance) c.next_balance = next_balance;
  if (c.nr_running()) pulled = 1;
  if (pulled) c.idle_stamp = 0;
  return pulled;
}

}  // namespace vtick
