// kernel/sched/fair.c as of v6.12: DELAY_DEQUEUE (152e11f6df29), DELAY_ZERO (54a58a787791) and
// ENQUEUE_DELAYED. A task that sleeps while not eligible is not dequeued: it stays on the queue,
// competing (its weight and vruntime in avg_vruntime()), until pick_eevdf() picks it, i.e. until
// it has given back what it ran ahead; it leaves then with at most zero lag. Lag is a measure
// of the competition, not something to carry across a long sleep. guest.sched.delay_dequeue.
#include <algorithm>

#include "core/trace.hpp"
#include "core/warn.hpp"
#include "guest/kernel.hpp"

namespace vtick {

// dequeue_entity() of a sleep (not a migration): with DELAY_DEQUEUE an entity not eligible
// is delayed (set_delayed()) instead. Asked while the sleeper is still curr.
bool GuestCpu::dequeue_delayed(const Task& se) const {
  return k_.sched().fair == FairPolicy::Eevdf && k_.sched().delay_dequeue &&
         (se.state == TaskState::Sleeping || se.state == TaskState::Blocked) &&
         !entity_eligible(se);
}

// pick_next_entity() found a delayed entity: dequeue_entities(DEQUEUE_SLEEP | DEQUEUE_DELAYED).
// Its lag taken on the queue, a positive one cut to zero (finish_delayed_dequeue_entity(),
// DELAY_ZERO).
void GuestCpu::finish_delayed_dequeue_entity(Task& se) {
  VTICK_WARN(!se.sched_delayed, "task ", se.pid, " dequeued as delayed but not delayed");
  update_entity_lag(se);
  if (se.vlag > 0) se.vlag = 0;
  delayed.erase(std::find(delayed.begin(), delayed.end(), &se));
  se.sched_delayed = false;
  rq_changed();
}

// requeue_delayed_entity() (enqueue_task_fair() with ENQUEUE_DELAYED): woken while still
// queued, it stays where it is, unless its lag is positive: then cut to zero and placed
// again (DELAY_ZERO).
void GuestCpu::requeue_delayed_entity(Task& se) {
  update_entity_lag(se);
  delayed.erase(std::find(delayed.begin(), delayed.end(), &se));
  if (se.vlag > 0) {
    se.vlag = 0;
    place_entity(se, false);
  }
  se.sched_delayed = false;
  hw().revoke_local();
  rq.push_back(&se);
  rq_changed();
}

// ttwu_runnable(): the wakee is still on its queue (p->on_rq), delayed: requeued on its CPU
// under that CPU's runqueue lock, no placement, no wakelist; it preempts if pick_eevdf()
// picks it. The lock is the switching-out CPU's until finish_lock_switch(). False: its CPU
// dequeued it meanwhile (the pick found it), so the wake-up is an ordinary one.
bool GuestKernel::ttwu_runnable(Task& p, GuestCpu& waker) {
  wait_task_off_cpu(p, waker);
  if (!p.sched_delayed) return false;
  // under the lock, at once: its CPU's pick cannot dequeue it meanwhile
  GuestCpu& c = cpu(p.cpu);
  c.requeue_delayed_entity(p);
  ttwu_woken(p, c, waker);
  if (tracing()) trace::sched_wakeup(waker.now(), waker.id(), p.pid, c.id());
  packing_update(waker.now(), LbCause::Wakeup);
  c.tick().tick_nohz_dep_set_cpu_sched(waker);  // one more runnable in the model's count
  waker.kernel_work(p_.costs.ttwu_ns);
  if (c.curr != &p && c.switching_to != &p) wakeup_preempt(c, p, waker);  // !task_on_cpu(): picked meanwhile
  return true;
}

}  // namespace vtick
