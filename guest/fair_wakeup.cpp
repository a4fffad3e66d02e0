// kernel/sched/fair.c: select_task_rq_fair(), wake_affine(), select_idle_sibling().
#include <algorithm>

#include "guest/kernel.hpp"

namespace vtick {

namespace {
bool runnable(const Task& t) { return t.state == TaskState::Runnable || t.state == TaskState::Running; }
}  // namespace

double weighted_load(const Task& t, sim_ns now, bool running) { return t.avg.at(now, running) * t.weight / 1024.0; }

// cpu_load(): cfs_rq->avg.load_avg, the PELT load of the tasks queued there plus the
// decaying (blocked) load of those that slept there and have not moved since.
double GuestKernel::cpu_load(int cpu, sim_ns now) const {
  double sum = 0;
  for (const auto& t : tasks_)
    if (t->cpu == cpu && t->state != TaskState::Exited && t->state != TaskState::New) sum += weighted_load(*t, now, runnable(*t));
  return sum;
}

// cpu_load() of every CPU at once (the same sums, in the same order).
void GuestKernel::cpu_loads(sim_ns now, std::vector<double>& out) const {
  out.assign(cpus_.size(), 0.0);
  for (const auto& t : tasks_)
    if (t->state != TaskState::Exited && t->state != TaskState::New && t->cpu >= 0 && static_cast<std::size_t>(t->cpu) < out.size())
      out[static_cast<std::size_t>(t->cpu)] += weighted_load(*t, now, runnable(*t));
}

double GuestKernel::blocked_load(int cpu, sim_ns now) const {
  double sum = 0;
  for (const auto& t : tasks_)
    if (t->cpu == cpu && (t->state == TaskState::Sleeping || t->state == TaskState::Blocked))
      sum += weighted_load(*t, now, false);
  return sum;
}

// vcpu_is_preempted() -> kvm_vcpu_is_preempted(): the steal-time record's preempted flag,
// which KVM sets when it schedules the vCPU thread out while it is runnable
// (kvm_sched_out -> kvm_steal_time_set_preempted), not when it blocks in a halt. arm64
// has no such record upstream: false.
bool GuestKernel::vcpu_is_preempted(int cpu) const {
  if (p_.isa != Isa::X86_64) return false;
  return cpus_[static_cast<size_t>(cpu)]->hw().vcpu_is_preempted();
}

// available_idle_cpu(): idle and not preempted by the host.
bool GuestKernel::available_idle_cpu(int c) const {
  const GuestCpu& cc = *cpus_[static_cast<size_t>(c)];
  if (!cc.online() || !cc.idle_cpu()) return false;
  return !vcpu_is_preempted(c);
}

// wake_wide(): a waker that flips between many wakees (and a wakee woken by many) is
// spread instead of pulled to the waker (sd_llc_size is the factor).
bool GuestKernel::wake_wide(const Task& p, const Task* waker_task) const {
  unsigned master = waker_task ? waker_task->wakee_flips : 0, slave = p.wakee_flips;
  unsigned factor = static_cast<unsigned>(std::max(1, nr_cpus()));
  if (master < slave) std::swap(master, slave);
  return !(slave < factor || master < slave * factor);
}

// wake_affine_idle(): an idle waker CPU sharing the cache takes the wakee unless its
// previous CPU is idle too; a sync wake-up from a CPU running only the waker takes it.
int GuestKernel::wake_affine_idle(int this_cpu, int prev_cpu, bool sync) {
  if (available_idle_cpu(this_cpu) && cpus_share_cache(this_cpu, prev_cpu))
    return available_idle_cpu(prev_cpu) ? prev_cpu : this_cpu;
  if (sync && cpus_[static_cast<size_t>(this_cpu)]->nr_running() == 1) return this_cpu;
  if (available_idle_cpu(prev_cpu)) return prev_cpu;
  return -1;
}

// wake_affine_weight(): the waker's CPU if its load with the wakee stays below the
// previous CPU's without it (WA_BIAS: the previous CPU gets half the imbalance_pct).
int GuestKernel::wake_affine_weight(Task& p, int this_cpu, int prev_cpu, bool sync) {
  GuestCpu& self = *cpus_[static_cast<size_t>(this_cpu)];
  sim_ns now = self.now();
  double this_eff = cpu_load(this_cpu, now);
  if (sync && self.curr) {
    double current_load = weighted_load(*self.curr, now, true);
    if (current_load > this_eff) return this_cpu;
    this_eff -= current_load;
  }
  double task_load = weighted_load(p, now, false);  // task_h_load()
  this_eff = (this_eff + task_load) * 100;
  int imbalance_pct = 117;
  for (const SchedDomain& sd : self.sd)
    if ((sd.span >> prev_cpu) & 1ULL) { imbalance_pct = sd.imbalance_pct; break; }
  double prev_eff = (cpu_load(prev_cpu, now) - task_load) * (100 + (imbalance_pct - 100) / 2);
  if (sync) prev_eff += 1;
  return this_eff < prev_eff ? this_cpu : -1;
}

// wake_affine(): WA_IDLE, then WA_WEIGHT; the waker's CPU or the previous one.
int GuestKernel::wake_affine(Task& p, int this_cpu, int prev_cpu, bool sync) {
  int target = wake_affine_idle(this_cpu, prev_cpu, sync);
  if (target < 0) target = wake_affine_weight(p, this_cpu, prev_cpu, sync);
  return target == this_cpu ? this_cpu : prev_cpu;
}

// The SMT core of `c` (vCPU pairs with the smt topology) has only idle CPUs.
bool GuestKernel::core_idle(int c) const {
  if (p_.sched.topology != GuestTopology::Smt) return available_idle_cpu(c);
  int first = c & ~1;
  for (int s = first; s < std::min(nr_cpus(), first + 2); ++s)
    if (!available_idle_cpu(s)) return false;
  return true;
}

// select_idle_cpu(): scan the LLC from target + 1 for an idle CPU (the whole LLC: the
// SIS_UTIL scan limit only shortens it on large, busy LLCs); with an idle core known,
// a CPU whose core siblings are all idle first (select_idle_core()), else the first idle.
int GuestKernel::select_idle_cpu(Task& p, int target, bool has_idle_core) {
  const int n = nr_cpus();
  int idle_cpu = -1;
  for (int i = 1; i <= n; ++i) {
    int c = (target + i) % n;
    if (!allowed_on(p, c)) continue;
    if (has_idle_core) {
      if (core_idle(c)) return c;
      if (idle_cpu < 0 && available_idle_cpu(c)) idle_cpu = c;
    } else if (available_idle_cpu(c)) {
      return c;
    }
  }
  return idle_cpu;
}

// select_idle_sibling(): the target if idle, else the previous CPU if idle, else the
// task's recently used CPU if idle, else an idle SMT sibling of prev, else a scan.
int GuestKernel::select_idle_sibling(Task& p, int prev, int target) {
  auto idle = [&](int c) {
    if (c < 0) return false;
    if (available_idle_cpu(c)) return true;
    if (cpus_[static_cast<size_t>(c)]->idle_cpu()) ++sched_stats.wake_preempted_skipped;  // idle, but its vCPU thread waits on the host
    return false;
  };
  if (idle(target)) return target;
  if (prev != target && cpus_share_cache(prev, target) && idle(prev)) return prev;
  int recent = p.recent_used_cpu;
  p.recent_used_cpu = prev;
  if (recent >= 0 && recent < nr_cpus() && recent != prev && recent != target && idle(recent) && allowed_on(p, recent))
    return recent;
  recent = -1;
  if (nr_cpus() < 2) return target;  // no sd_llc
  bool has_idle_core = false;        // test_idle_cores(): sd_llc_shared->has_idle_cores
  if (p_.sched.topology == GuestTopology::Smt) {
    for (int c = 0; c < nr_cpus() && !has_idle_core; c += 2) has_idle_core = core_idle(c);
    int sib = prev ^ 1;
    if (!has_idle_core && sib < nr_cpus() && allowed_on(p, sib) && idle(sib)) return sib;  // select_idle_smt()
  }
  int i = select_idle_cpu(p, target, has_idle_core);
  return i >= 0 ? i : target;
}

// select_task_rq_fair() for a wake-up (WF_TTWU): record_wakee(), wake_affine() in the
// first domain spanning both CPUs, then the fast path select_idle_sibling().
int GuestKernel::select_task_rq_fair(Task& p, GuestCpu& waker, bool sync) {
  int prev = p.cpu, cpu = waker.id();
  Task* current = waker.curr;
  sim_ns now = waker.now();
  if (current) {  // record_wakee()
    if (now - current->wakee_flip_decay_ts > NSEC_PER_SEC) {
      current->wakee_flips >>= 1;
      current->wakee_flip_decay_ts = now;
    }
    if (current->last_wakee != &p) {
      current->last_wakee = &p;
      ++current->wakee_flips;
    }
  }
  int new_cpu = prev;
  bool want_affine = p_.sched.wake_affine && !wake_wide(p, current) && allowed_on(p, cpu);
  if (want_affine)
    for (const SchedDomain& sd : waker.sd)
      if ((sd.span >> prev) & 1ULL) {
        if (cpu != prev) new_cpu = wake_affine(p, cpu, prev, sync);
        break;
      }
  int chosen = select_idle_sibling(p, prev, new_cpu);
  // select_task_rq(): !is_cpu_allowed() -> select_fallback_rq() (the affinity widened
  // when no CPU of it is online)
  if (!allowed_on(p, chosen) || !cpus_[static_cast<size_t>(chosen)]->online()) chosen = select_fallback_rq(p);
  if (chosen == prev) ++sched_stats.wake_to_prev;
  else if (chosen == cpu) ++sched_stats.wake_to_waker;
  else ++sched_stats.wake_to_idle;
  return chosen;
}

}  // namespace vtick
