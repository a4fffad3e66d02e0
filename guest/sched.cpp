// kernel/sched/core.c + fair.c: wake-up placement, fair picking, preemption, load balancing.
#include <algorithm>

#include "core/trace.hpp"
#include "core/warn.hpp"
#include "guest/kernel.hpp"

namespace vtick {

VTICK_PARAM_TABLE(SchedParams, VTICK_SCHED_PARAMS)
VTICK_PARAM_CTOR(SchedParams)

// ---- placement (select_task_rq_fair) --------------------------------------------

// available_idle_cpu(): idle. The kernel also skips a vCPU the host preempted
// (vcpu_is_preempted(), the steal-time record's preempted flag); not modelled yet, so a
// wakee may be placed on a vCPU whose thread waits behind a host thread.
bool GuestKernel::available_idle_cpu(int c) const {
  const GuestCpu& cc = *cpus_[static_cast<size_t>(c)];
  return cc.idle_cpu();
}

// select_task_rq_fair() for a wake-up: wake_affine() chooses between the waker's CPU
// and the wakee's previous CPU, then select_idle_sibling() looks for an idle CPU in the
// LLC (the guest sees all its vCPUs in one LLC).
int GuestKernel::select_task_rq(Task& p, GuestCpu& waker) {
  int prev = p.cpu, cpu = waker.id();
  int target = prev;
  if (p_.sched.wake_affine && allowed_on(p, cpu)) {
    // wake_affine_idle()
    if (available_idle_cpu(cpu)) target = available_idle_cpu(prev) ? prev : cpu;
    else if (available_idle_cpu(prev)) target = prev;
    else target = prev;  // wake_affine_weight(): with equal loads the previous CPU stays
  }
  if (!allowed_on(p, target)) target = prev;
  // select_idle_sibling()
  int chosen = target;
  if (!available_idle_cpu(target)) {
    if (prev != target && allowed_on(p, prev) && available_idle_cpu(prev)) {
      chosen = prev;
    } else {
      for (int i = 1; i < nr_cpus(); ++i) {
        int c = (target + i) % nr_cpus();
        if (allowed_on(p, c) && available_idle_cpu(c)) { chosen = c; break; }
      }
    }
  }
  if (!allowed_on(p, chosen)) {
    for (int c = 0; c < nr_cpus(); ++c)
      if (allowed_on(p, c)) { chosen = c; break; }
  }
  if (chosen == prev) ++sched_stats.wake_to_prev;
  else if (chosen == cpu) ++sched_stats.wake_to_waker;
  else ++sched_stats.wake_to_idle;
  return chosen;
}

// ---- fair class ----------------------------------------------------------------

// sysctl_sched_wakeup_granularity (1 ms) scaled like the base slice.
sim_ns GuestKernel::wakeup_granularity() const { return sched_slice() * 4 / 3; }

void GuestKernel::enqueue_task(GuestCpu& c, Task& p, bool wakeup) {
  // set_task_cpu()'s WARN_ON_ONCE(!cpu_online(new_cpu)); a task is on one runqueue only
  VTICK_WARN(!c.online(), "task ", p.pid, " (", p.comm, ") queued on offline CPU ", c.id());
  VTICK_WARN(std::find(c.rq.begin(), c.rq.end(), &p) != c.rq.end(), "task ", p.pid, " queued twice on CPU ", c.id());
  if (wakeup) {
    // place_entity(): a sleeper gets at most half a latency period of credit
    sim_ns floor = c.min_vruntime - 3 * sched_slice();
    p.vruntime = std::max(p.vruntime + c.min_vruntime, floor);
  }
  p.cpu = c.id();
  c.rq.push_back(&p);
}

void GuestCpu::update_curr() {
  if (!curr) return;
  sim_ns t = now();
  curr->vruntime += t - curr->exec_start;
  curr->runtime += t - curr->exec_start;
  curr->exec_start = t;
  sim_ns m = curr->vruntime;
  for (Task* q : rq) m = std::min(m, q->vruntime);
  min_vruntime = std::max(min_vruntime, m);
}

// pick_next_task_fair(): the smallest vruntime; a task that just yielded goes last.
Task* GuestCpu::pick_next_task() {
  if (rq.empty() && k_.sched().load_balance) k_.newidle_balance(*this);
  if (rq.empty()) return nullptr;
  auto best = rq.end();
  for (auto it = rq.begin(); it != rq.end(); ++it) {
    if ((*it)->yield_skip && rq.size() > 1) continue;
    if (best == rq.end() || (*it)->vruntime < (*best)->vruntime) best = it;
  }
  Task* next = *best;
  rq.erase(best);
  for (Task* q : rq) q->yield_skip = false;
  next->yield_skip = false;
  return next;
}

// check_preempt_wakeup_fair(): an idle CPU always reschedules; a busy one when the
// wakee is behind the running task by more than the wake-up granularity.
void GuestKernel::check_preempt_curr(GuestCpu& target, Task& p, GuestCpu& self) {
  if (!target.curr) {
    resched_curr(target, self);
    return;
  }
  sim_ns curr_vr = target.curr->vruntime + (self.now() - target.curr->exec_start);
  if (curr_vr - p.vruntime > wakeup_granularity()) {
    ++sched_stats.wakeup_preemptions;
    resched_curr(target, self);
  }
}

// resched_curr(): set TIF_NEED_RESCHED; a remote CPU needs an IPI unless its idle
// task is polling (set_nr_and_not_polling()).
void GuestKernel::resched_curr(GuestCpu& target, GuestCpu& self) {
  if (target.need_resched) return;
  target.need_resched = true;
  if (&target == &self) return;
  if (target.polling) {
    ++sched_stats.wake_idle_without_ipi;
    target.hw().notify_poller();  // the polling CPU sees the flag change in its loop
    return;
  }
  self.smp_send_reschedule(target);
}

void GuestKernel::try_to_wake_up(Task& p, GuestCpu& waker) {
  waker.kernel_work(p_.costs.ttwu_ns);
  if (p.in_iowait) {  // counted on the runqueue it slept on, before it may move
    --cpu(p.cpu).cputime().nr_iowait;
    p.in_iowait = false;
  }
  GuestCpu& target = cpu(select_task_rq(p, waker));
  p.state = TaskState::Runnable;
  p.woken_at = waker.now();
  ++p.wakeups;
  if (&target == &waker) ++sched_stats.wakeups_local;
  else ++sched_stats.wakeups_remote;
  if (ttwu_queue_wakelist(p, target, waker)) return;
  ttwu_do_activate(target, p, waker);
}

// ttwu_queue_wakelist() (TTWU_QUEUE) with ttwu_queue_cond(): a remote idle CPU activates
// the task itself, from a CALL_FUNCTION_SINGLE IPI (none to a polling idle CPU); only the
// first queued wake-up sends it (llist_add() into an empty list).
bool GuestKernel::ttwu_queue_wakelist(Task& p, GuestCpu& target, GuestCpu& waker) {
  if (&target == &waker || !target.online() || !allowed_on(p, target.id()) || target.nr_running() != 0) return false;
  ++sched_stats.ttwu_queued;
  bool first = target.wake_list.empty();
  target.wake_list.push_back(&p);
  if (first) waker.send_call_function_single_ipi(target, "ttwu_queue_wakelist");
  return true;
}

// ttwu_do_activate(): enqueue, then wakeup_preempt(); an idle target learns how long it
// stayed idle (update_avg()).
void GuestKernel::ttwu_do_activate(GuestCpu& target, Task& p, GuestCpu& self) {
  if (target.idle_stamp) {
    sim_ns delta = self.now() - target.idle_stamp;
    target.avg_idle += (delta - target.avg_idle) / 8;
    target.avg_idle = std::min(target.avg_idle, 2 * p_.sched.migration_cost);
    target.idle_stamp = 0;
  }
  if (tracing()) trace::sched_wakeup(self.now(), self.id(), p.pid, target.id());
  enqueue_task(target, p, true);
  target.tick().tick_nohz_dep_set_cpu_sched(self);  // sched_update_tick_dependency()
  check_preempt_curr(target, p, self);
}

void GuestKernel::sched_ttwu_pending(GuestCpu& c) {
  std::vector<Task*> list;
  list.swap(c.wake_list);
  for (Task* p : list) {
    c.kernel_work(p_.costs.resched_ipi_ns);  // the activation's share of the IPI handler
    ttwu_do_activate(c, *p, c);
  }
}

// ---- load balancing ------------------------------------------------------------

// get_sd_balance_interval(): sd_weight ms, times busy_factor when busy, at most HZ/10.
sim_ns GuestKernel::balance_interval(bool idle) const {
  sim_ns base = p_.sched.balance_interval ? p_.sched.balance_interval : nr_cpus() * NSEC_PER_MSEC;
  if (!idle) base *= p_.sched.busy_factor;
  return std::min<sim_ns>(base, 100 * NSEC_PER_MSEC);
}

// load_balance(): pull one task from the busiest CPU when the imbalance is worth it.
// Cache-hot tasks (ran within sysctl_sched_migration_cost) are left alone.
bool GuestKernel::load_balance(GuestCpu& dst, bool idle) {
  ++sched_stats.lb_calls;
  GuestCpu* busiest = nullptr;
  for (auto& c : cpus_)
    if (c.get() != &dst && (!busiest || c->nr_running() > busiest->nr_running())) busiest = c.get();
  if (!busiest) return false;
  int imbalance = busiest->nr_running() - dst.nr_running();
  if (imbalance < 2 && !(idle && dst.nr_running() == 0 && busiest->nr_running() >= 2)) return false;
  sim_ns now = dst.now();
  Task* pick = nullptr;
  for (auto it = busiest->rq.rbegin(); it != busiest->rq.rend(); ++it) {
    Task* t = *it;
    if (!allowed_on(*t, dst.id())) continue;
    bool hot = t->last_ran >= 0 && now - t->last_ran < p_.sched.migration_cost;
    if (!hot) { pick = t; break; }
  }
  if (!pick) return false;
  busiest->rq.erase(std::find(busiest->rq.begin(), busiest->rq.end(), pick));
  trace::sched_migrate_task(now, dst.id(), pick->pid, busiest->id(), dst.id());
  pick->vruntime = pick->vruntime - busiest->min_vruntime + dst.min_vruntime;
  pick->cpu = dst.id();
  dst.rq.push_back(pick);
  ++sched_stats.lb_pulled;
  return true;
}

void GuestKernel::rebalance_domains(GuestCpu& c, bool idle) {
  sim_ns interval = balance_interval(idle);
  sim_ns now = c.now();
  if (now - c.last_balance >= interval) {
    c.kernel_work(p_.costs.load_balance_ns);
    if (load_balance(c, idle) && !c.curr) resched_curr(c, c);
    c.last_balance = now;
  }
  c.next_balance = c.last_balance + interval;
}

// sched_balance_newidle(): a CPU about to idle pulls work if it expects to stay idle
// longer than sysctl_sched_migration_cost.
void GuestKernel::newidle_balance(GuestCpu& c) {
  c.idle_stamp = c.now();
  if (c.avg_idle < p_.sched.migration_cost) return;
  ++sched_stats.newidle_balances;
  c.kernel_work(p_.costs.load_balance_ns);
  load_balance(c, true);
}

// trigger_load_balance(): from the scheduler tick.
// sched_tick(): with other tasks waiting, the running one yields once it has had its
// slice (EEVDF base slice 0.75 ms scaled by 1 + ilog2(min(nr_cpus, 8))); then balancing.
void GuestKernel::sched_tick(GuestCpu& c) {
  c.update_curr();
  if (c.curr && !c.rq.empty() && c.now() - c.slice_start >= sched_slice()) c.need_resched = true;
  trigger_load_balance(c);
}

void GuestKernel::trigger_load_balance(GuestCpu& c) {
  if (!p_.sched.load_balance) return;
  if (c.now() >= c.next_balance) rebalance_domains(c, c.idle_cpu());
  nohz_balancer_kick(c);
}

void GuestKernel::nohz_balance_enter_idle(GuestCpu& c) {
  if (p_.sched.load_balance) c.nohz_idle = true;
}
void GuestKernel::nohz_balance_exit_idle(GuestCpu& c) { c.nohz_idle = false; }

// nohz_balancer_kick(): a busy CPU with waiting tasks asks an idle CPU whose tick is
// stopped to balance on behalf of all of them (kick_ilb()).
void GuestKernel::nohz_balancer_kick(GuestCpu& c) {
  if (c.idle_cpu()) return;  // rq->idle_balance: idle CPUs do not kick
  if (c.nohz_idle) nohz_balance_exit_idle(c);
  sim_ns now = c.now();
  if (now < nohz_next_balance) return;
  if (c.nr_running() < 2) return;
  GuestCpu* ilb = nullptr;
  for (auto& cc : cpus_)
    if (cc.get() != &c && cc->nohz_idle && cc->idle_cpu()) { ilb = cc.get(); break; }
  if (!ilb) return;
  nohz_next_balance = now + balance_interval(true);
  ++sched_stats.nohz_kicks;
  ilb->ilb_kick_pending = true;
  c.send_call_function_single_ipi(*ilb, "generic_exec_single");  // smp_call_function_single_async()
}

// nohz_idle_balance(): the kicked CPU balances for every idle CPU with a stopped tick.
void GuestKernel::nohz_idle_balance(GuestCpu& ilb) {
  ilb.ilb_kick_pending = false;
  for (auto& c : cpus_) {
    if (!c->nohz_idle && c.get() != &ilb) continue;
    ilb.kernel_work(p_.costs.load_balance_ns);
    if (load_balance(*c, true) && !c->curr) resched_curr(*c, ilb);
    c->last_balance = ilb.now();
    c->next_balance = c->last_balance + balance_interval(true);
  }
}

}  // namespace vtick
