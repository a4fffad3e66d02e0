// User space: the task programs' interpreter (pthread mutexes over futexes as glibc does
// them, sysbench's lock picking, loops), calling the kernel's system calls.
#include "guest/task_program.hpp"

#include "core/warn.hpp"
#include "guest/kernel.hpp"
#include "guest/local_stretch.hpp"

namespace vtick {

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
    case PhaseKind::Mark: return "mark";
    case PhaseKind::PickLock: return "picklock";
    case PhaseKind::Fork: return "fork";
    case PhaseKind::Exit: return "exit";
  }
  return "?";
}

namespace {

// One phase; returns whether the program counter moves on to the next phase.
bool run_phase(GuestCpu& c, Task& t, const Phase& ph) {
  GuestKernel& k = c.kernel();
  switch (ph.kind) {
    case PhaseKind::Run: {
      if (t.left == 0) {
        t.left = phase_length(t, ph) + t.refill_left;
        t.refill_left = 0;
      }
      c.exit_to_user_mode();
      t.left = c.hw().run(t.left);
      return t.left == 0;
    }
    case PhaseKind::Sleep:
      c.syscall_enter();
      c.do_nanosleep(t, phase_length(t, ph));
      return true;
    case PhaseKind::Wait:
      if (!ph.in_syscall) c.syscall_enter();
      c.futex_wait(t, k.event(ph.obj));
      return true;
    case PhaseKind::Wake:
      if (!ph.in_syscall) c.syscall_enter();
      if (ph.all) c.wake_up_all(k.event(ph.obj));
      else c.futex_wake(k.event(ph.obj));
      return true;
    case PhaseKind::Fork: {  // kernel_clone(): copy_process(), then wake_up_new_task()
      c.syscall_enter();
      c.kernel_work(ph.ns);
      Task* child = ph.obj >= 1 && static_cast<std::size_t>(ph.obj) <= k.tasks().size() ? k.tasks()[static_cast<std::size_t>(ph.obj) - 1].get() : nullptr;
      if (!VTICK_WARN(!child, "task ", t.pid, " forks pid ", ph.obj, ", which does not exist")) k.wake_up_new_task(*child, c);
      return true;
    }
    case PhaseKind::PickLock:  // sb_threads.c: lock_num = req_performed++ % thread_locks
      if (VTICK_WARN(!t.user, "task ", t.pid, " picks a lock without a user space")) return true;
      if (t.cur_lock >= 0) --k.mutex(t.cur_lock).pickers;
      t.cur_lock = ph.obj + static_cast<int>(t.user->counters[ph.obj]++ % static_cast<std::uint64_t>(ph.ns));
      // Another task's lock now: the CPU running one that had it alone loses its promise.
      if (++k.mutex(t.cur_lock).pickers > 1)
        for (const auto& q : k.tasks())
          if (q.get() != &t && q->cur_lock == t.cur_lock) k.cpu(q->cpu).hw().revoke_local();
      return true;
    case PhaseKind::Mark:
      t.op_start = c.now();
      return true;
    case PhaseKind::Exit:
      c.syscall_enter();
      c.do_exit(t, ph.ns, ph.obj >= 0 ? &k.event(ph.obj) : nullptr);
      t.pc = t.program.size() - 1;  // stays here
      return false;
    case PhaseKind::Lock: {  // pthread_mutex_lock() -> lll_lock() (nptl lowlevellock)
      Mutex& m = k.mutex(ph.obj < 0 ? t.cur_lock : ph.obj);
      if (!t.lock_waiting) {
        if (m.word == 0) {  // the compare-and-swap 0 -> 1 wins
          m.word = 1;
          m.owner = &t;
          ++m.acquisitions;
          return true;
        }
        ++m.contended;  // a lock collision
        ++k.sched_stats.mutex_contended;
        t.lock_waiting = true;
      }
      // __lll_lock_wait(): while (atomic_exchange(word, 2) != 0) futex_wait(word, 2)
      int old = m.word;
      m.word = 2;
      if (old == 0) {
        m.owner = &t;
        ++m.acquisitions;
        t.lock_waiting = false;
        return true;
      }
      c.syscall_enter();
      c.futex_wait_lock(t, m);  // sleeps, or EAGAIN: the word changed; either way, retry
      return false;
    }
    case PhaseKind::Unlock: {  // lll_unlock(): atomic_exchange(word, 0); a 2 means someone may wait
      Mutex& m = k.mutex(ph.obj < 0 ? t.cur_lock : ph.obj);
      int old = m.word;
      m.word = 0;
      m.owner = nullptr;
      if (old == 2) {
        c.syscall_enter();
        c.futex_wake_lock(m);  // FUTEX_WAKE of one (lll_futex_wake)
      }
      return true;
    }
    case PhaseKind::Yield:
      c.syscall_enter();
      c.sched_yield(t);
      return true;
    case PhaseKind::Io:
      c.syscall_enter();
      c.submit_bio(t);
      return true;
    case PhaseKind::Net:
      c.syscall_enter();
      c.sendmsg(t);
      return true;
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

}  // namespace

// Local stretches (guest/local_stretch.hpp): at each phase, either check that the CPU
// keeps the promise it made, or make one when the rest of the loop is local.
static void local_stretch_point(GuestCpu& c, Task& t) {
  const Phase& ph = t.program[t.pc];
  if (c.hw().promised_local()) {
    VTICK_WARN(!phase_is_local(c, t, ph), "CPU ", c.id(), ": task ", t.pid, "'s ", phase_kind_name(ph.kind),
               " phase is not local inside the CPU's local stretch");
  } else {
    sim_ns h = local_horizon(c, t);
    if (h > c.now()) c.hw().promise_local(h);
  }
}

// An op that ended in a phase that blocked (a wait, a sleep, a net reply) ends when
// the task runs again, not when it blocked.
static void end_op(GuestCpu& c, Task& t) {
  t.user->op_latency.record(c.now() - t.op_start);
  t.op_start = c.now();
}

void run_task_program(GuestCpu& c, Task& t) {
  if (t.op_end_pending) {
    t.op_end_pending = false;
    end_op(c, t);
  }
  while (!c.need_resched && t.state == TaskState::Running) {
    if (t.syscall_open && !t.program[t.pc].in_syscall) {  // back to user space for the next phase
      c.syscall_exit(t);
      continue;  // exit_to_user_mode_loop(): a reschedule asked for meanwhile comes first
    }
    local_stretch_point(c, t);
    if (!run_phase(c, t, t.program[t.pc])) continue;
    if (++t.pc == t.program.size()) {
      t.pc = 0;
      ++t.ops;
      if (t.measure_ops && t.user) {
        if (t.state == TaskState::Running) end_op(c, t);
        else t.op_end_pending = true;
      }
    }
  }
}

}  // namespace vtick
