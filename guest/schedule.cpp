// kernel/sched/core.c: __schedule() and the cross-CPU call queue.
#include <algorithm>

#include "core/trace.hpp"
#include "guest/kernel.hpp"

namespace vtick {

// sched_switch's prev_state letters (__trace_sched_switch_state): "R+" when preempted.
static const char* switch_state(const Task& prev, bool yielded) {
  switch (prev.state) {
    case TaskState::Running: return yielded ? "R" : "R+";
    case TaskState::Exited: return "Z";
    default: return "S";
  }
}

// __schedule(): put the previous task back (preempted or yielding) or let it go (it
// blocked), pick the next, switch. A CPU with nothing to run returns to the idle loop.
void GuestCpu::schedule() {
  need_resched = false;
  Task* prev = curr;
  sim_ns t = now();
  bool yielded = prev && prev->yield_skip;
  const char* prev_state = prev ? switch_state(*prev, yielded) : "R";
  // A blocking task's part before its switch runs with interrupts off (rq_lock_irq()) up
  // to finish_lock_switch(): a wakelist IPI meanwhile is taken after the switch.
  bool irqs_were_on = true, irqs_saved = false;
  Task* running = nullptr;  // prev, still runnable (cfs_rq->curr at the pick)
  const bool eevdf = k_.sched().fair == FairPolicy::Eevdf;
  if (prev) {
    update_curr();
    prev->last_ran = t;
    if (prev->state == TaskState::Running) {
      prev->state = TaskState::Runnable;
      rq.push_back(prev);
      running = prev;
      if (!prev->yield_skip) ++k_.sched_stats.preemptions;
    } else {
      if (dequeue_delayed(*prev)) prev->sched_delayed = true;  // set_delayed(): stays queued until picked
      else if (eevdf) update_entity_lag(*prev);               // dequeue_entity(): its lag kept for its wake-up
      else prev->vruntime -= min_vruntime;                    // dequeue_task(): keep the lag relative
      prev->avg.update(t, true);  // it ran until now; from here its load decays
    }
    curr = nullptr;
    if (prev->sched_delayed) delayed.push_back(prev);  // once no longer curr: counted once in the sums
    rq_changed();
    if (prev->state != TaskState::Runnable && k_.params().costs.schedule_block_ns > 0) {
      irqs_were_on = hw_->local_irq_save();
      irqs_saved = true;
      schedule_block();
    }
    if (active_balance) k_.active_load_balance_cpu_stop(*this);  // the stopper runs first
  }
  Task* next = pick_next_task(running);
  if (!next) {
    if (prev) context_switch_to_idle(*prev, prev_state);
    if (irqs_saved) hw_->local_irq_restore(irqs_were_on);
    // finish_task_switch()'s rest after finish_lock_switch() and the return into do_idle():
    // interrupts on, prev off its CPU, the idle task not polling yet
    // (guest.costs.finish_task_switch_ns; 0: inside switch_idle_ns)
    if (prev) kernel_work(k_.params().costs.finish_task_switch_ns);
    return;
  }
  if (eevdf && next != prev) next->vlag = next->deadline;  // set_next_entity(): RUN_TO_PARITY's stash
  switching_to = next;
  next->on_cpu = true;  // prepare_task()
  rq_changed();
  enter_state(GuestCpuState::Sys);
  const bool irqs_on_at_switch = hw_->local_irq_save();  // off from rq_lock_irq() to finish_lock_switch()
  if (next != prev) {
    // context_switch(): switch_mm_irqs_off() only into another process's mm; a kernel
    // thread (or a thread of the loaded process) keeps the loaded one (enter_lazy_tlb())
    sim_ns mm_cost = 0;
    if (next->mm != 0 && next->mm != loaded_mm) {
      mm_cost = k_.params().costs.switch_mm_ns;
      loaded_mm = next->mm;
      ++k_.sched_stats.switch_mm;
    }
    kernel_work(k_.params().costs.schedule_ns + mm_cost);
    ++k_.sched_stats.switches;
    if (yielded) ++k_.sched_stats.yield_switches;
  } else {
    kernel_work(k_.params().costs.schedule_noswitch_ns);  // nothing else to run: no switch
  }
  if (next != prev && tracing()) trace::sched_switch(now(), id_, prev ? prev->pid : 0, next->pid, prev_state);
  idle_stamp = 0;
  switching_to = nullptr;
  curr = next;
  rq_changed();
  if (prev && prev->state != TaskState::Runnable) k_.packing_update(now(), LbCause::Block);  // nr_running fell
  next->state = TaskState::Running;
  next->exec_start = now();
  slice_start = now();
  if (next->last_cpu >= 0 && next->last_cpu != id_) {
    ++next->migrations;
    ++k_.sched_stats.migrations;
    next->refill_left += k_.sched().cache_refill_ns;  // its working set is in another cache
  }
  next->last_cpu = id_;
  next->cpu = id_;
  tick_.tick_nohz_task_switch();
  if (next->woken_at >= 0) {
    k_.wake_latency.record(now() - next->woken_at);
    next->woken_at = -1;
  }
  if (prev && prev != next) finish_task_switch(*prev);
  hw_->local_irq_restore(irqs_on_at_switch);
  if (irqs_saved) hw_->local_irq_restore(irqs_were_on);
}

// __schedule() of a task that blocks, before its switch (try_to_block_task(), the pick):
// under the runqueue lock with interrupts off (the caller's), the task still on_cpu, so a
// waker meanwhile queues it on this CPU's wakelist (try_to_wake_up() with WF_ON_CPU) and
// sends the IPI, which this CPU takes once switched to idle (or to another task).
void GuestCpu::schedule_block() {
  enter_state(GuestCpuState::Sys);
  kernel_work(k_.params().costs.schedule_block_ns);
}

// context_switch() to the idle task, with interrupts off from the runqueue lock to
// finish_task_switch()'s unlock (finish_lock_switch()). Until then prev is still on_cpu:
// a wake-up in this window goes through this CPU's wakelist (try_to_wake_up()).
void GuestCpu::context_switch_to_idle(Task& prev, const char* prev_state) {
  if (tracing()) trace::sched_switch(now(), id_, prev.pid, 0, prev_state);
  k_.packing_update(now(), prev.state == TaskState::Runnable ? LbCause::Other : LbCause::Block);
  const bool irqs_were_on = hw_->local_irq_save();
  enter_state(GuestCpuState::Sys);
  kernel_work(k_.params().costs.switch_idle_ns);
  finish_task_switch(prev);
  hw_->local_irq_restore(irqs_were_on);
}

// finish_task_switch() -> finish_task(): prev->on_cpu cleared (smp_store_release); from
// here a waker may place prev anywhere.
void GuestCpu::finish_task_switch(Task& prev) { prev.on_cpu = false; }

// flush_smp_call_function_queue(): queued cross-CPU calls: the remote wake-ups
// (sched_ttwu_pending() -> ttwu_do_activate()) and the nohz idle-balance kick.
void GuestCpu::flush_smp_call_function_queue() {
  if (retrigger_pending) {  // retrigger_next_event(): timers moved here from a dying CPU
    retrigger_pending = false;
    hrtimers_.retrigger_next_event();
  }
  if (!wake_list.empty()) k_.sched_ttwu_pending(*this);
  if (nohz_flags & GuestKernel::NOHZ_KICK_MASK) k_.nohz_csd_func(*this);
}

}  // namespace vtick
