// kernel/sched/core.c __schedule(), and the system calls guest task programs make
// (futex wait/wake, pthread mutexes over futexes, nanosleep, sched_yield, block I/O).
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

const char* phase_kind_name(PhaseKind k) {
  switch (k) {
    case PhaseKind::Run: return "run";
    case PhaseKind::Sleep: return "sleep";
    case PhaseKind::Wait: return "wait";
    case PhaseKind::Wake: return "wake";
    case PhaseKind::Lock: return "lock";
    case PhaseKind::Unlock: return "unlock";
    case PhaseKind::Yield: return "yield";
    case PhaseKind::Io: return "io";
    case PhaseKind::Net: return "net";
    case PhaseKind::Loop: return "loop";
    case PhaseKind::PickLock: return "picklock";
    case PhaseKind::Exit: return "exit";
  }
  return "?";
}

// __schedule(): put the previous task back (preempted or yielding) or let it go (it
// blocked), pick the next, switch. A CPU with nothing to run returns to the idle loop.
void GuestCpu::schedule() {
  need_resched = false;
  Task* prev = curr;
  sim_ns t = now();
  bool yielded = prev && prev->yield_skip;
  const char* prev_state = prev ? switch_state(*prev, yielded) : "R";
  if (prev) {
    update_curr();
    prev->last_ran = t;
    if (prev->state == TaskState::Running) {
      prev->state = TaskState::Runnable;
      rq.push_back(prev);
      if (!prev->yield_skip) ++k_.sched_stats.preemptions;
    } else {
      prev->vruntime -= min_vruntime;  // dequeue_task(): keep the lag relative
    }
    curr = nullptr;
  }
  Task* next = pick_next_task();
  if (!next) {
    if (prev && tracing()) trace::sched_switch(now(), id_, prev->pid, 0, prev_state);
    return;
  }
  enter_state(GuestCpuState::Sys);
  if (next != prev) {
    kernel_work(k_.params().costs.schedule_ns);
    ++k_.sched_stats.switches;
    if (yielded) ++k_.sched_stats.yield_switches;
  } else {
    kernel_work(k_.params().costs.schedule_ns / 4);  // nothing else to run: no switch
  }
  if (next != prev && tracing()) trace::sched_switch(now(), id_, prev ? prev->pid : 0, next->pid, prev_state);
  idle_stamp = 0;
  curr = next;
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
    if (k_.record_latency) k_.wake_latency.push_back(now() - next->woken_at);
    next->woken_at = -1;
  }
}

// Interprets the current task's program until it blocks or must reschedule.
void GuestCpu::run_curr() {
  Task& t = *curr;
  while (!need_resched && t.state == TaskState::Running) {
    if (!run_phase(t, t.program[t.pc])) continue;
    if (++t.pc == t.program.size()) {
      t.pc = 0;
      ++t.ops;
      if (t.measure_ops) {
        if (k_.record_latency) k_.op_latency.push_back(now() - t.op_start);
        t.op_start = now();
      }
    }
  }
}

// One phase; returns whether the program counter moves on to the next phase.
bool GuestCpu::run_phase(Task& t, const Phase& ph) {
  const GuestCosts& c = k_.params().costs;
  auto syscall = [&] {
    enter_state(GuestCpuState::Sys);
    kernel_work(c.syscall_ns);
  };
  switch (ph.kind) {
    case PhaseKind::Run: {
      if (t.left == 0) {
        t.left = phase_length(t, ph) + t.refill_left;
        t.refill_left = 0;
      }
      tick_.tick_nohz_user_enter();  // context tracking: back to user space
      enter_state(GuestCpuState::User);
      t.left = hw_->run(t.left);
      return t.left == 0;
    }
    case PhaseKind::Sleep:
      syscall();
      hw_->local_irq_disable();
      hrtimers_.start(t.sleep_timer, now() + phase_length(t, ph), k_.params().timer_slack_ns);
      hw_->local_irq_enable();
      t.state = TaskState::Sleeping;
      return true;
    case PhaseKind::Wait: {
      if (!ph.in_syscall) syscall();
      WaitEvent& ev = k_.event(ph.obj);
      if (ev.count > 0) --ev.count;
      else {
        ev.waiters.push_back(&t);
        t.state = TaskState::Blocked;
      }
      return true;
    }
    case PhaseKind::Wake: {
      if (!ph.in_syscall) syscall();
      WaitEvent& ev = k_.event(ph.obj);
      // post one unit; once wake_at units are there (1: at once; a buffer's write-space
      // threshold: unix_write_space() / pipe_read() waking the writers) each waiter takes one
      if (++ev.count >= ev.wake_at)
        while (ev.count > 0 && !ev.waiters.empty()) {
          --ev.count;
          Task* w = ev.waiters.front();
          ev.waiters.pop_front();
          k_.try_to_wake_up(*w, *this);
        }
      return true;
    }
    case PhaseKind::PickLock:
      t.cur_lock = ph.obj + static_cast<int>(k_.counter(ph.obj)++ % static_cast<std::uint64_t>(ph.ns));
      return true;
    case PhaseKind::Exit:
      syscall();
      t.state = TaskState::Exited;
      t.exited_at = now();
      ++k_.exited_tasks;
      k_.last_exit = now();
      t.pc = t.program.size() - 1;  // stays here
      return false;
    case PhaseKind::Lock: {
      Mutex& m = k_.mutex(ph.obj < 0 ? t.cur_lock : ph.obj);
      if (!m.owner) {  // uncontended: a user-space compare-and-swap
        m.owner = &t;
        ++m.acquisitions;
        return true;
      }
      syscall();  // futex(FUTEX_WAIT): sleep, then try again when woken
      if (!m.owner) {  // released while we entered the kernel: the value check fails (EAGAIN), retry wins
        m.owner = &t;
        ++m.acquisitions;
        return true;
      }
      ++m.contended;
      ++k_.sched_stats.mutex_contended;
      m.waiters.push_back(&t);
      t.state = TaskState::Blocked;
      return false;
    }
    case PhaseKind::Unlock: {
      Mutex& m = k_.mutex(ph.obj < 0 ? t.cur_lock : ph.obj);
      m.owner = nullptr;
      if (!m.waiters.empty()) {  // futex(FUTEX_WAKE, 1)
        syscall();
        // the kernel wakes whoever is queued once it gets there: another CPU's unlock may
        // have woken the waiter we saw while this one was entering the kernel
        if (!m.waiters.empty()) {
          Task* w = m.waiters.front();
          m.waiters.pop_front();
          k_.try_to_wake_up(*w, *this);
        }
      }
      return true;
    }
    case PhaseKind::Yield:
      syscall();  // sched_yield(): yield_task_fair() lets another runnable task go first
      ++k_.sched_stats.yields;
      t.yield_skip = true;
      need_resched = true;
      return true;
    case PhaseKind::Io: {
      syscall();
      kernel_work(c.io_submit_ns);
      ++k_.sched_stats.io_requests;
      hw_->io_submit((static_cast<std::uint64_t>(t.pid) << 32) | (t.ops & 0xffffffffULL));
      t.state = TaskState::Blocked;
      t.in_iowait = true;  // io_schedule()
      ++cputime_.nr_iowait;
      return true;
    }
    case PhaseKind::Net: {  // sendmsg() then recvmsg(): an interruptible sleep, not iowait
      syscall();
      kernel_work(c.net_xmit_ns);
      ++k_.sched_stats.net_requests;
      hw_->net_xmit((static_cast<std::uint64_t>(t.pid) << 32) | (t.ops & 0xffffffffULL));
      t.state = TaskState::Blocked;
      return true;
    }
    case PhaseKind::Loop: {
      if (t.loop_left.size() < t.program.size()) t.loop_left.resize(t.program.size(), 0);
      sim_ns& left = t.loop_left[t.pc];
      if (left == 0) left = ph.ns;
      if (--left > 0) {
        t.pc = static_cast<std::size_t>(ph.obj);
        return false;
      }
      return true;
    }
  }
  return true;
}

// flush_smp_call_function_queue(): queued cross-CPU calls (the nohz idle-balance kick).
void GuestCpu::flush_smp_call_function_queue() {
  if (ilb_kick_pending) k_.nohz_idle_balance(*this);
}

}  // namespace vtick
