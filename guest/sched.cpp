// kernel/sched/core.c + fair.c: try_to_wake_up(), the wakelist, fair picking, preemption.
// Placement is guest/fair_wakeup.cpp, balancing guest/fair_balance.cpp and fair_nohz.cpp.
#include <algorithm>

#include "core/trace.hpp"
#include "core/warn.hpp"
#include "guest/kernel.hpp"

namespace vtick {

VTICK_PARAM_TABLE(SchedParams, VTICK_SCHED_PARAMS)
VTICK_PARAM_CTOR(SchedParams)

// ---- fair class ----------------------------------------------------------------

// sysctl_sched_wakeup_granularity (1 ms) scaled like the base slice.
sim_ns GuestKernel::wakeup_granularity() const { return sched_slice() * 4 / 3; }

void GuestKernel::enqueue_task(GuestCpu& c, Task& p, bool wakeup, bool initial) {
  // set_task_cpu()'s WARN_ON_ONCE(!cpu_online(new_cpu)); a task is on one runqueue only
  VTICK_WARN(!c.online(), "task ", p.pid, " (", p.comm, ") queued on offline CPU ", c.id());
  VTICK_WARN(std::find(c.rq.begin(), c.rq.end(), &p) != c.rq.end(), "task ", p.pid, " queued twice on CPU ", c.id());
  VTICK_WARN(p.sched_delayed, "task ", p.pid, " (", p.comm, ") enqueued while still delayed on CPU ", p.cpu);
  if (p_.sched.fair == FairPolicy::Eevdf) {
    c.update_curr();  // enqueue_entity(): curr's vruntime up to date before placing
    c.place_entity(p, initial);
  } else if (wakeup) {
    // place_entity(): a sleeper gets at most half a latency period of credit
    sim_ns floor = c.min_vruntime - 3 * sched_slice();
    p.vruntime = std::max(p.vruntime + c.min_vruntime, floor);
  }
  p.cpu = c.id();
  c.hw().revoke_local();  // a remote wake-up changed its queue (no-op on the CPU itself)
  c.rq.push_back(&p);
  c.rq_changed();
  packing_update(c.now(), wakeup ? LbCause::Wakeup : LbCause::Other);
}

bool GuestCpu::update_curr() {
  if (!curr) return false;
  sim_ns t = now();
  curr->vruntime += calc_delta_fair(t - curr->exec_start, *curr);
  curr->runtime += t - curr->exec_start;
  curr->exec_start = t;
  sim_ns m = curr->vruntime;
  for (Task* q : rq) m = std::min(m, q->vruntime);
  min_vruntime = std::max(min_vruntime, m);
  return k_.sched().fair == FairPolicy::Eevdf && update_deadline();
}

// pick_next_task_fair(): cfs, the smallest vruntime, a task that just yielded last;
// eevdf, pick_eevdf() (a yield pushed the task's deadline a slice on).
Task* GuestCpu::pick_next_task(Task* running) {
  // pick_next_entity(): a delayed entity picked leaves the queue, and the pick goes again
  for (Task* se; !delayed.empty() && (se = pick_eevdf(running)) && se->sched_delayed;) finish_delayed_dequeue_entity(*se);
  if (rq.empty() && k_.sched().load_balance) k_.sched_balance_newidle(*this);
  if (rq.empty()) return nullptr;
  auto best = rq.end();
  if (k_.sched().fair == FairPolicy::Eevdf) {
    best = std::find(rq.begin(), rq.end(), pick_eevdf(running));
  } else {
    for (auto it = rq.begin(); it != rq.end(); ++it) {
      if ((*it)->yield_skip && rq.size() > 1) continue;
      if (best == rq.end() || (*it)->vruntime < (*best)->vruntime) best = it;
    }
  }
  if (VTICK_WARN(best == rq.end(), "pick_next_task: the pick is not on CPU ", id_, "'s queue")) best = rq.begin();
  Task* next = *best;
  rq.erase(best);
  rq_changed();
  for (Task* q : rq) q->yield_skip = false;
  next->yield_skip = false;
  return next;
}

// wakeup_preempt() (check_preempt_curr() before v6.7) -> check_preempt_wakeup_fair(): an
// idle CPU always reschedules; a busy one, under cfs, when the wakee is behind the
// running task by more than the wake-up granularity; under eevdf when pick_eevdf() picks
// the wakee (or curr's deadline ran out, update_curr()'s resched).
void GuestKernel::wakeup_preempt(GuestCpu& target, Task& p, GuestCpu& self) {
  if (!target.curr) {
    resched_curr(target, self);
    return;
  }
  if (p_.sched.fair == FairPolicy::Eevdf) {
    if (target.update_curr()) {  // curr's slice ran out: rescheduled whoever woke
      resched_curr(target, self);
    } else if (target.pick_eevdf(target.curr) == &p) {
      ++sched_stats.wakeup_preemptions;
      resched_curr(target, self);
    }
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
  target.hw().revoke_local();
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
  if (tracing()) trace::sched_waking(waker.now(), waker.id(), p.pid, p.cpu);  // trace_sched_waking(p)
  if (p.in_iowait) {  // counted on the runqueue it slept on, before it may move
    --cpu(p.cpu).cputime().nr_iowait;
    p.in_iowait = false;
  }
  p.avg.update(waker.now(), false);  // the sleep decayed its load
  if (p.sched_delayed && ttwu_runnable(p, waker)) return;  // still queued (p->on_rq)
  // Still switching out on its CPU (p->on_cpu): that CPU activates it from its wakelist
  // once the switch is done, if it has nothing else to run (ttwu_queue_cond()).
  if (p.on_cpu && ttwu_queue_cond(p, cpu(p.cpu), waker)) {
    ++sched_stats.ttwu_on_cpu;
    waker.kernel_work(p_.costs.ttwu_wakelist_ns);
    ttwu_woken(p, cpu(p.cpu), waker);
    ttwu_queue_wakelist(p, cpu(p.cpu), waker);
    return;
  }
  wait_task_off_cpu(p, waker);
  // It was still running when woken and has blocked since, delayed by its __schedule()
  // (the kernel's ttwu_runnable() would have found it on its queue and kept it running).
  if (p.sched_delayed && ttwu_runnable(p, waker)) return;
  waker.kernel_work(p_.costs.ttwu_ns);
  GuestCpu& target = cpu(select_task_rq_fair(p, waker, false));
  if (target.id() != p.cpu) {  // set_task_cpu()
    ++sched_stats.migrate_wakeup;
    if (tracing()) trace::sched_migrate_task(waker.now(), waker.id(), p.pid, p.cpu, target.id(), "wakeup");
    p.cpu = target.id();
  }
  ttwu_woken(p, target, waker);
  if (ttwu_queue_wakelist(p, target, waker)) return;
  ttwu_do_activate(target, p, waker);
}

// smp_cond_load_acquire(&p->on_cpu, !VAL): wait for the wakee's finish_task_switch() (a
// delayed wakee: for its CPU's runqueue lock, released at the same point).
void GuestKernel::wait_task_off_cpu(Task& p, GuestCpu& waker) {
  if (!p.on_cpu) return;
  if (VTICK_WARN(p.cpu == waker.id(), "task ", p.pid, " woken on CPU ", waker.id(), " while switching out there")) {
    p.on_cpu = false;
    return;
  }
  ++sched_stats.ttwu_on_cpu_spins;
  constexpr sim_ns kSpinStepNs = 50;  // the model's resolution of the spin, not a kernel value
  while (p.on_cpu) waker.kernel_spin(kSpinStepNs);
}

// The wake-up's bookkeeping once its CPU is chosen: TASK_WAKING, the latency stamp, the
// local/remote count (ttwu_stat()).
void GuestKernel::ttwu_woken(Task& p, GuestCpu& target, GuestCpu& waker) {
  p.state = TaskState::Runnable;
  p.woken_at = waker.now();
  ++p.wakeups;
  if (&target == &waker) ++sched_stats.wakeups_local;
  else ++sched_stats.wakeups_remote;
}

// ttwu_queue_wakelist() (TTWU_QUEUE) with ttwu_queue_cond(): a remote idle CPU activates
// the task itself, from a CALL_FUNCTION_SINGLE IPI (none to a polling idle CPU); only the
// first queued wake-up sends it (llist_add() into an empty list).
bool GuestKernel::ttwu_queue_cond(const Task& p, const GuestCpu& target, const GuestCpu& waker) const {
  if (!p_.sched.ttwu_queue) return false;  // sched_feat(TTWU_QUEUE)
  return &target != &waker && target.online() && allowed_on(p, target.id()) && target.nr_running() == 0;
}

bool GuestKernel::ttwu_queue_wakelist(Task& p, GuestCpu& target, GuestCpu& waker) {
  if (!ttwu_queue_cond(p, target, waker)) return false;
  ++sched_stats.ttwu_queued;
  bool first = target.wake_list.empty();
  target.hw().revoke_local();
  target.wake_list.push_back(&p);
  target.rq_changed();
  packing_update(waker.now(), LbCause::Wakeup);  // rq->ttwu_pending: no longer idle
  if (first) waker.send_call_function_single_ipi(target, "ttwu_queue_wakelist");
  return true;
}

// ttwu_do_activate(): enqueue, then wakeup_preempt(); an idle target learns how long it
// stayed idle (update_avg()).
void GuestKernel::ttwu_do_activate(GuestCpu& target, Task& p, GuestCpu& self) {
  if (target.idle_stamp) {
    sim_ns delta = self.now() - target.idle_stamp;
    target.avg_idle += (delta - target.avg_idle) / 8;
    target.avg_idle = std::min(target.avg_idle, 2 * target.max_idle_balance_cost);
    target.idle_stamp = 0;
  }
  if (tracing()) trace::sched_wakeup(self.now(), self.id(), p.pid, target.id());
  enqueue_task(target, p, true);
  target.tick().tick_nohz_dep_set_cpu_sched(self);  // sched_update_tick_dependency()
  wakeup_preempt(target, p, self);
}

void GuestKernel::sched_ttwu_pending(GuestCpu& c) {
  std::vector<Task*> list;
  list.swap(c.wake_list);
  c.rq_changed();
  for (Task* p : list) {
    c.kernel_work(p_.costs.resched_ipi_ns);  // the activation's share of the IPI handler
    ttwu_do_activate(c, *p, c);
  }
}

}  // namespace vtick
