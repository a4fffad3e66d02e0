// sysbench's threads test (sb_threads.c): each event is thread_yields x {lock one of
// thread_locks mutexes, sched_yield(), unlock}; the lock is picked from the shared event
// counter (faa(req_performed) % thread_locks), so threads that drift apart collide. Plus
// the main thread (blocked in pthread_join()) and the optional --report-interval thread.
#include "guest/workloads/kinds.hpp"

namespace vtick {

namespace {
class SysbenchThreads final : public Workload {
 public:
  // sb_threads.c: lock_num = req_performed++ % thread_locks, then thread_yields x
  // {pthread_mutex_lock, sched_yield, pthread_mutex_unlock}
  void install(GuestKernel& k, const WorkloadSpec& w, std::uint64_t) override {
    const int n = k.nr_cpus();
    // the main thread: creates the workers, then waits in pthread_join() (a futex wait)
    int joined = k.add_event();
    k.add_task("sysbench", {{PhaseKind::Run, 20000, -1}, {PhaseKind::Wait, 0, joined}}, 0, all_cpus(n));
    // --report-interval: a thread that wakes each interval and prints the running totals
    if (sim_ns every = static_cast<sim_ns>(w.getd("report_interval")); every > 0)
      k.add_task("sysbench", {{PhaseKind::Sleep, every, -1}, {PhaseKind::Run, static_cast<sim_ns>(w.getd("report_work")), -1}}, 0,
                 all_cpus(n));
    int locks = w.geti("thread_locks");
    int base = k.add_mutex();
    for (int i = 1; i < locks; ++i) k.add_mutex();
    for (int i = 0; i < count_or_vcpus(w, "threads", n); ++i) {
      std::uint64_t mask = thread_mask(w, i, n);
      int start = i % n;
      while (!((mask >> start) & 1ULL)) start = (start + 1) % n;  // created on a CPU it may run on
      add_task(k, "sysbench-" + std::to_string(i),
               {{PhaseKind::PickLock, locks, base},
                {PhaseKind::Lock, 0, -1},
                {PhaseKind::Yield, 0, -1},
                {PhaseKind::Unlock, 0, -1},
                {PhaseKind::Run, w.getd("iteration_work"), -1, w.get("iteration_jitter")},
                {PhaseKind::Loop, w.geti("thread_yields"), 1}},
               start, mask);
    }
    // the measurement procedure's disturber (scripts/measure-guest.sh): a loop pinned to
    // one vCPU, busy all the time or `disturber_run` out of every `disturber_period`
    int dc = w.geti("disturber_cpu");
    if (dc >= 0 && dc < n) {
      sim_ns on = w.getd("disturber_run"), period = w.getd("disturber_period");
      if (on <= 0 || period <= on) k.add_task("disturber", {{PhaseKind::Run, 10 * NSEC_PER_MSEC, -1}}, dc, 1ULL << dc);
      else k.add_task("disturber", {{PhaseKind::Run, on, -1}, {PhaseKind::Sleep, period - on, -1}}, dc, 1ULL << dc);
    }
  }

 private:
  // taskset of the measurement runs: apart (thread i on vCPU i mod n), or every thread
  // in cpus_mask; default all vCPUs
  static std::uint64_t thread_mask(const WorkloadSpec& w, int i, int n) {
    if (w.geti("pin_apart")) return 1ULL << (i % n);
    auto mask = static_cast<std::uint64_t>(w.get("cpus_mask"));
    return mask ? mask & all_cpus(n) : all_cpus(n);
  }
};
}  // namespace

WorkloadKind sysbench_threads_kind() {
  return {WorkloadKindId::SysbenchThreads,
          "sysbench threads: each event is thread_yields x {lock one of thread_locks mutexes, sched_yield(), unlock}", "events",
          {{"threads", 'i', 0, 0, 4096, "--threads (0: one per vCPU)"},
           {"thread_yields", 'i', 1000, 1, 1e6, "--thread-yields: iterations per event"},
           {"thread_locks", 'i', 8, 1, 4096, "--thread-locks: mutexes; event n uses lock n mod thread_locks"},
           {"iteration_work", 'd', 200, 0, 1 * MS, "user work per iteration besides the calls [EST]"},
           {"iteration_jitter", 'f', 0.5, 0, 1,
            "iteration_work varies uniformly by +/- this fraction: real iterations are not all alike (caches, "
            "branch history, the lock's cache line moving), and equal ones phase-lock two threads so that they "
            "never meet on one lock [EST] (issue 43 step 0: 0 leaves sb-n2-l1 ~100x short of the real futex waits)"},
           {"report_interval", 'd', 0, 0, 3600e9, "--report-interval: the reporting thread's period (0: off, sysbench's default)"},
           {"report_work", 'd', 30000, 0, 10 * MS, "the reporting thread's work per report (format and write a line) [EST]"},
           {"pin_apart", 'i', 0, 0, 1, "1: thread i pinned to vCPU i mod n (taskset per thread)"},
           {"cpus_mask", 'i', 0, 0, 4294967295.0, "every thread's affinity as a CPU bitmask (0: all vCPUs); 1: all on vCPU 0"},
           {"disturber_cpu", 'i', -1, -1, 4095, "a busy loop pinned to this vCPU (-1: none)"},
           {"disturber_run", 'd', 0, 0, 10e9, "the disturber runs this long per period (0: always)"},
           {"disturber_period", 'd', 0, 0, 10e9, "the disturber's period"}},
          factory<SysbenchThreads>()};
}

}  // namespace vtick
