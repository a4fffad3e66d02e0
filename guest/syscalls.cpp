// The system calls guest task programs make, kernel side: kernel/futex/ (futex wait and
// wake, the queue under pthread mutexes), kernel/time/hrtimer.c do_nanosleep(),
// kernel/sched/core.c sched_yield(), kernel/exit.c do_exit(), block submit_bio() through
// virtio-blk and a socket sendmsg() through virtio-net.
#include <cmath>

#include "guest/kernel.hpp"

namespace vtick {

// syscall entry (entry_SYSCALL_64 / el0_svc with the mitigations, syscall_enter_from_user_mode()):
// syscall_ns less the part charged on the way out.
void GuestCpu::syscall_enter() {
  enter_state(GuestCpuState::Sys);
  if (curr) curr->syscall_open = true;
  const GuestCosts& c = k_.params().costs;
  kernel_work(c.syscall_ns - syscall_exit_ns());
}

sim_ns GuestCpu::syscall_exit_ns() const {
  const GuestCosts& c = k_.params().costs;
  return static_cast<sim_ns>(std::llround(static_cast<double>(c.syscall_ns) * c.syscall_exit_share));
}

// syscall_exit_to_user_mode() and the return path: guest.costs.syscall_exit_share of
// syscall_ns, once the task goes back to user space (after its block or yield, if any).
void GuestCpu::syscall_exit(Task& t) {
  t.syscall_open = false;
  kernel_work(syscall_exit_ns());
}

// exit_to_user_mode(): context tracking tells a nohz_full CPU it is back in user space.
void GuestCpu::exit_to_user_mode() {
  tick_.tick_nohz_user_enter();
  enter_state(GuestCpuState::User);
}

// do_nanosleep(): an hrtimer with the task's timer slack, then schedule().
void GuestCpu::do_nanosleep(Task& t, sim_ns length) {
  hw_->local_irq_disable();
  hrtimers_.start(t.sleep_timer, now() + length, k_.params().timer_slack_ns);
  hw_->local_irq_enable();
  t.state = TaskState::Sleeping;
}

// futex_wait_setup(): the key, the hash bucket and its lock, up to the read of the word
// (guest.costs.futex_wait_setup_ns; 0: inside syscall_ns).
void GuestCpu::futex_wait_setup() { kernel_work(k_.params().costs.futex_wait_setup_ns); }

// futex(FUTEX_WAIT) on a counting event: a posted unit is taken, else the task sleeps.
void GuestCpu::futex_wait(Task& t, WaitEvent& ev) {
  futex_wait_setup();
  if (ev.count > 0) {
    --ev.count;
    return;
  }
  ev.waiters.push_back(&t);
  t.state = TaskState::Blocked;
}

// futex(FUTEX_WAKE): post one unit; once wake_at units are there (1: at once; a buffer's
// write-space threshold: unix_write_space() / pipe_read() waking the writers) each waiter
// takes one.
void GuestCpu::futex_wake(WaitEvent& ev) {
  kernel_work(k_.params().costs.futex_wake_ns);  // key, bucket, scan
  if (++ev.count < ev.wake_at) return;
  while (ev.count > 0 && !ev.waiters.empty()) {
    --ev.count;
    Task* w = ev.waiters.front();
    ev.waiters.pop_front();
    k_.try_to_wake_up(*w, *this);
  }
}

// __wake_up() of a non-exclusive wait queue (a pipe's readers in poll()): every waiter is
// woken, and the event stays set (the byte written stays unread: later waits return at once).
void GuestCpu::wake_up_all(WaitEvent& ev) {
  kernel_work(k_.params().costs.futex_wake_ns);  // the queue's lock and walk
  ev.count = kEventSet;
  while (!ev.waiters.empty()) {
    Task* w = ev.waiters.front();
    ev.waiters.pop_front();
    k_.try_to_wake_up(*w, *this);
  }
}

// futex(FUTEX_WAIT, 2) on a pthread mutex's word (futex_wait_setup()): if the word is no
// longer 2 (the owner released it while this task entered the kernel) the call returns
// EAGAIN and the task retries in user space; else it sleeps until a FUTEX_WAKE.
bool GuestCpu::futex_wait_lock(Task& t, Mutex& m) {
  futex_wait_setup();
  if (m.word != 2) {
    ++k_.sched_stats.futex_eagain;
    return false;
  }
  ++k_.sched_stats.futex_waits;
  m.waiters.push_back(&t);
  t.state = TaskState::Blocked;
  return true;
}

// futex(FUTEX_WAKE, 1): whoever is queued once the kernel gets there (it may be nobody:
// the word stays 2 after a contended acquisition whether or not others still wait).
void GuestCpu::futex_wake_lock(Mutex& m) {
  kernel_work(k_.params().costs.futex_wake_ns);  // key, bucket, scan
  ++k_.sched_stats.futex_wakes;
  if (m.waiters.empty()) return;
  Task* w = m.waiters.front();
  m.waiters.pop_front();
  k_.try_to_wake_up(*w, *this);
}

// sched_yield() -> do_sched_yield(): yield_task_fair(), then schedule(). eevdf pushes the
// task's deadline one slice on when others are queued, and (79104becf42b) an eligible task
// first forfeits the rest of its slice: its vruntime moves to its deadline; cfs's picker,
// by vruntime, passes the task over once (the same order for the tasks it alternates with).
void GuestCpu::sched_yield(Task& t) {
  ++k_.sched_stats.yields;
  t.yield_skip = true;
  if (k_.sched().fair == FairPolicy::Eevdf && !rq.empty()) {
    update_curr();
    const sim_ns vslice = calc_delta_fair(k_.sched_slice(), t);
    if (!k_.sched().yield_forfeit) {
      t.deadline += vslice;
    } else if (entity_eligible(t)) {
      t.vruntime = t.deadline;
      t.deadline += vslice;
      update_curr();  // update_min_vruntime(): no time has passed, only curr's vruntime moved
    }
  }
  need_resched = true;
}

// submit_bio() -> virtio-blk: the request set up and the queue kicked; the task sleeps in
// io_schedule() (rq->nr_iowait) until the completion interrupt wakes it.
void GuestCpu::submit_bio(Task& t) {
  kernel_work(k_.params().costs.io_submit_ns);
  ++k_.sched_stats.io_requests;
  hw_->io_submit(k_.add_request([&t](GuestCpu& c) { c.kernel().try_to_wake_up(t, c); }));
  t.state = TaskState::Blocked;
  t.in_iowait = true;
  ++cputime_.nr_iowait;
}

// sendmsg() then recvmsg() of a request/reply over TCP: TX through virtio-net, then an
// interruptible sleep (not iowait) until the reply's interrupt.
void GuestCpu::sendmsg(Task& t) {
  kernel_work(k_.params().costs.net_xmit_ns);
  ++k_.sched_stats.net_requests;
  hw_->net_xmit(k_.add_request([&t](GuestCpu& c) { c.kernel().try_to_wake_up(t, c); }));
  t.state = TaskState::Blocked;
}

// do_exit(): the task's teardown (exit_mm(), exit_files(): `work`), then exit_notify()'s
// do_notify_parent() wakes a parent waiting in wait4() (its wait queue: parent_wait).
void GuestCpu::do_exit(Task& t, sim_ns work, WaitEvent* parent_wait) {
  kernel_work(work);
  if (parent_wait) futex_wake(*parent_wait);
  t.state = TaskState::Exited;
  t.exited_at = now();
}

}  // namespace vtick
