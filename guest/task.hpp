// Guest tasks: programs of phases interpreted by the guest scheduler on a vCPU.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/log_histogram.hpp"
#include "core/time.hpp"
#include "guest/hrtimer.hpp"
#include "guest/pelt.hpp"

namespace vtick {

enum class PhaseKind {
  Run,     // user-space work of `ns`
  Sleep,   // nanosleep(ns): an hrtimer with the task's timer slack
  Wait,    // futex wait on event `obj` (consumes one post, or blocks)
  Wake,    // futex wake on event `obj` (wakes one waiter, or posts)
  Lock,    // pthread_mutex_lock(obj): free -> take; held -> futex wait, retry on wake-up
  Unlock,  // pthread_mutex_unlock(obj): futex wake of one waiter if any
  Yield,   // sched_yield()
  Io,      // submit a block I/O request and sleep until its completion interrupt
  Net,     // send a request over virtio-net and sleep until the reply's interrupt
  Loop,    // jump back to phase `obj` until this phase has been passed `ns` times
  Mark,    // the measured op starts here (its latency runs to the program's end)
  PickLock,// next event's lock: mutex obj + (shared counter++ % ns) (sysbench's lock_num)
  Fork,    // fork(): copy_process() (ns of kernel work), then wake_up_new_task() of task obj (added not started)
  Exit,    // do_exit(): ns of kernel work (exit_mm(), the files), then the parent's wait4() is told (event obj, -1: none)
};
const char* phase_kind_name(PhaseKind k);

struct Phase {
  PhaseKind kind = PhaseKind::Run;
  sim_ns ns = 0;      // Run/Sleep: length; Loop: iteration count
  int obj = -1;       // Wait/Wake/Exit: event; Lock/Unlock: mutex (-1: the picked one); Loop: target phase; Fork: the pid of the task it starts
  double jitter = 0;  // Run/Sleep: length drawn uniformly in ns * [1 - jitter, 1 + jitter]
  bool in_syscall = false;  // Wait/Wake: part of the syscall before it (a buffer's room), no entry of its own
  bool all = false;         // Wake: every waiter (a non-exclusive wait queue, as poll()'s), and the event stays set
};

// New: TASK_NEW, created by its parent's Fork phase and not yet woken (wake_up_new_task()).
enum class TaskState { Runnable, Running, Sleeping, Blocked, Exited, New };

// What a workload's tasks share in user space besides futexes: counters (sysbench's
// req_performed) and the record of each measured op's duration.
struct UserSpace {
  std::map<int, std::uint64_t> counters;
  LogHistogram op_latency;  // bounded: any number of ops
};

struct Task {
  int pid = 0;
  std::string comm;
  std::vector<Phase> program;      // repeated forever; one pass is one "op"
  std::uint64_t allowed = ~0ULL;   // cpumask (bit per CPU)
  int cpu = 0;                     // CPU it is queued on, runs on, or last ran on
  Rng rng{0, "task"};              // the task's own random stream (phase lengths)

  // interpreter state
  std::size_t pc = 0;
  sim_ns left = 0;                 // work left in the current Run phase
  std::vector<sim_ns> loop_left;   // per Loop phase: passes left
  TaskState state = TaskState::Runnable;
  Hrtimer sleep_timer;
  sim_ns woken_at = -1;            // for wake-up latency

  // scheduler state (the fair class, guest.sched.fair)
  sim_ns vruntime = 0;
  sim_ns deadline = 0;             // eevdf: se->deadline, virtual
  sim_ns vlag = 0;                 // eevdf: se->vlag (lag kept while dequeued; the deadline stashed at the pick while running)
  sim_ns exec_start = 0;
  sim_ns last_ran = -1;            // when it last stopped running (cache hotness)
  int last_cpu = -1;               // CPU it last ran on (migration detection)
  int mm = 0;                      // its process (mm_struct); 0: the workload's one process, or a kernel thread
  sim_ns refill_left = 0;          // cache refill still owed after a migration
  bool yield_skip = false;         // sched_yield(): let another task go first
  bool sched_delayed = false;      // se->sched_delayed: asleep but still on its queue (DELAY_DEQUEUE)
  bool on_cpu = false;             // p->on_cpu: running, or switching out until finish_task_switch()
  bool syscall_open = false;       // in a syscall whose way out (syscall_exit_share) is still to come
  int weight = 1024;               // se.load.weight: sched_prio_to_weight[nice + 20] (nice 0: 1024)
  SchedAvg avg;                    // se.avg: PELT load_avg (runnable while queued or running)
  int recent_used_cpu = -1;        // p->recent_used_cpu (select_idle_sibling)
  unsigned wakee_flips = 0;        // record_wakee(): how often it wakes a different task
  sim_ns wakee_flip_decay_ts = 0;
  const Task* last_wakee = nullptr;
  bool in_iowait = false;          // blocked in io_schedule(): counted in rq->nr_iowait
  bool posix_cpu_timer = false;    // TICK_DEP_BIT_POSIX_TIMER: CPU-time timers armed
  int cur_lock = -1;               // the mutex PickLock chose
  bool lock_waiting = false;       // in __lll_lock_wait(): retries with exchange(2)
  UserSpace* user = nullptr;       // its process's user-space state (the workload's)
  bool measure_ops = false;        // record each op's duration (latency percentiles)
  sim_ns op_start = 0;
  bool op_end_pending = false;     // the program's last phase blocked: the op ends when it runs again
  sim_ns exited_at = -1;

  // results
  std::uint64_t ops = 0;
  std::uint64_t wakeups = 0;
  std::uint64_t migrations = 0;
  sim_ns runtime = 0;
};

// calc_delta_fair(): real time as the task's virtual time (nice 0: weight 1024, as is)
inline sim_ns calc_delta_fair(sim_ns delta, const Task& se) { return delta * 1024 / se.weight; }

inline bool allowed_on(const Task& t, int cpu) { return (t.allowed >> cpu) & 1ULL; }

// A phase's length, with its jitter drawn from the task's stream.
inline sim_ns phase_length(Task& t, const Phase& ph) {
  if (ph.jitter <= 0) return ph.ns;
  double f = 1.0 + ph.jitter * (2.0 * t.rng.uniform01() - 1.0);
  sim_ns v = static_cast<sim_ns>(static_cast<double>(ph.ns) * f);
  return v > 0 ? v : 1;
}

// A futex-backed counting event (the userspace side of a semaphore / eventfd).
inline constexpr int kEventSet = 1 << 30;  // a count no run uses up: the event stays set (wake_up_all())
struct WaitEvent {
  int count = 0;
  int wake_at = 1;  // waiters are woken once count reaches this (a buffer's write-space threshold)
  std::deque<Task*> waiters;
};

// A futex-based pthread mutex (PTHREAD_MUTEX_NORMAL: no spinning, no hand-off).
// A glibc pthread mutex (nptl lowlevellock): the lock word is 0 free, 1 locked, 2 locked
// with possible waiters; the futex queue holds the sleepers.
struct Mutex {
  int word = 0;
  Task* owner = nullptr;
  std::deque<Task*> waiters;
  std::uint64_t acquisitions = 0;
  std::uint64_t contended = 0;  // lock attempts whose compare-and-swap failed
  // Who may take it (for local stretches, guest/task_program.cpp): the tasks whose
  // PickLock chose it, and whether a program names it directly.
  int pickers = 0;
  bool named = false;
};

}  // namespace vtick
