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
    for (int i = 0; i < count_or_vcpus(w, "threads", n); ++i)
      add_task(k, "sysbench-" + std::to_string(i),
               {{PhaseKind::PickLock, locks, base},
                {PhaseKind::Lock, 0, -1},
                {PhaseKind::Yield, 0, -1},
                {PhaseKind::Unlock, 0, -1},
                {PhaseKind::Run, w.getd("iteration_work"), -1},
                {PhaseKind::Loop, w.geti("thread_yields"), 1}},
               i % n, all_cpus(n));
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
           {"report_interval", 'd', 0, 0, 3600e9, "--report-interval: the reporting thread's period (0: off, sysbench's default)"},
           {"report_work", 'd', 30000, 0, 10 * MS, "the reporting thread's work per report (format and write a line) [EST]"}},
          factory<SysbenchThreads>()};
}

}  // namespace vtick
