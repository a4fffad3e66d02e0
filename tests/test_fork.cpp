// guest/fair_fork.cpp: wake_up_new_task() and sched_balance_find_dst_cpu() (fork placement,
// SD_BALANCE_FORK); hackbench's start (its parent forks, kicks and reaps every task).
#include <catch2/catch.hpp>

#include "guest/kernel.hpp"
#include "helpers.hpp"

using namespace vtick;

namespace {

const char* kQuiet =
    "[platform]\nshape = \"generic\"\narch = \"skylake-sp\"\ncores = 2\nthreads_per_core = 1\n"
    "[guest]\nhz = 250\n[guest.sched]\ntopology = \"mc\"\n[guest.background]\npreset = \"none\"\n"
    "[workload]\nkind = \"idle\"\n[run]\nduration = \"1ms\"\nwarmup = \"0ns\"\n";

// `body` at set-up, on the quiet 2-vCPU guest (one MC domain, a group per vCPU).
void at_setup(const std::function<void(GuestKernel&)>& body) {
  Scenario sc = test::scenario(kQuiet, {});
  SimHooks hooks;
  bool ran = false;
  hooks.guest_setup = [&](GuestKernel& k) {
    body(k);
    ran = true;
  };
  RunResult r = run_simulation(sc, hooks);
  INFO(r.error);
  REQUIRE_FALSE(r.failed);
  REQUIRE(ran);
}

// A task queued on `cpu` whose PELT load is `load` now.
Task& loaded(GuestKernel& k, const char* comm, int cpu, double load) {
  Task& t = k.add_task(comm, {{PhaseKind::Run, 1000000}}, cpu, ~0ULL);
  t.avg.load_avg = load;
  t.avg.last_update = 0;
  return t;
}

RunResult hackbench(const std::vector<std::string>& extra) {
  std::vector<std::string> all = {"run.duration=2s", "run.warmup=0ns", "workload.kind=hackbench", "workload.groups=1",
                                  "workload.fds=2", "workload.loops=20", "workload.pipe=1", "guest.background.preset=none"};
  all.insert(all.end(), extra.begin(), extra.end());
  RunResult r = run_simulation(test::scenario("[platform]\nshape = \"VM.Standard2.1\"\n", all));
  INFO(r.error);
  REQUIRE_FALSE(r.failed);
  return r;
}

}  // namespace

TEST_CASE("fork placement: an idle CPU before a busy one, the parent's CPU on equal loads, a clearly lighter CPU otherwise") {
  at_setup([](GuestKernel& k) {
    Task& child = k.add_task("child", {{PhaseKind::Exit}}, 0, ~0ULL, false);
    CHECK(child.state == TaskState::New);
    CHECK(k.cpu(0).rq.empty());  // not queued until its parent's Fork phase
    // the parent runs on vCPU 0, vCPU 1 idle: the idle group has spare room, the local one
    // is fully busy (group_type has_spare < fully_busy)
    Task& parent = loaded(k, "parent", 0, 1024);
    CHECK(k.sched_balance_find_dst_cpu(child, 0) == 1);
    // both busy at the same load: the idlest group is no lighter than local + NICE_0_LOAD x
    // 17 % (imbalance_pct 117), so the task stays on the parent's CPU
    Task& other = loaded(k, "other", 1, 1024);
    CHECK(k.sched_balance_find_dst_cpu(child, 0) == 0);
    // vCPU 1 far lighter (100 against 1024: under local + 174, and 1024 > 1.17 x 100)
    other.avg.load_avg = 100;
    CHECK(k.sched_balance_find_dst_cpu(child, 0) == 1);
    // ... but not when the difference is within imbalance_pct (1024 against 900)
    other.avg.load_avg = 900;
    CHECK(k.sched_balance_find_dst_cpu(child, 0) == 0);
    // an affinity the other CPU is outside of wins over load
    child.allowed = 1ULL;
    other.avg.load_avg = 0;
    CHECK(k.sched_balance_find_dst_cpu(child, 0) == 0);
    (void)parent;
  });
}

TEST_CASE("wake_up_new_task: a new task starts at its full weight's load, queued where placement says, resched_curr() on that CPU") {
  at_setup([](GuestKernel& k) {
    Task& parent = loaded(k, "parent", 0, 1024);
    Task& child = k.add_task("child", {{PhaseKind::Exit}}, 0, ~0ULL, false);
    // vCPU 1 polls in its idle loop (set-up: no IPI can be sent yet): resched_curr() sets
    // the flag without one (a halted vCPU gets smp_send_reschedule(): hackbench's case below)
    k.cpu(1).polling = true;
    const auto no_ipi = k.sched_stats.wake_idle_without_ipi;
    k.wake_up_new_task(child, k.cpu(0));
    CHECK(child.state == TaskState::Runnable);
    CHECK(child.cpu == 1);
    CHECK(k.cpu(1).rq.size() == 1);
    CHECK(child.avg.load_avg == Approx(1024));  // init_entity_runnable_average()
    CHECK(k.sched_stats.forks == 1);
    CHECK(k.cpu(1).need_resched);
    CHECK(k.sched_stats.wake_idle_without_ipi == no_ipi + 1);
    k.cpu(1).polling = false;
    (void)parent;
  });
}

TEST_CASE("hackbench's start: the parent forks every task, one write wakes all of them, and it reaps each exit") {
  RunResult r = hackbench({});
  // 2 receivers + 2 senders forked, all exited, the parent too; the first fork finds vCPU 1
  // halted (no driver, no polling): a reschedule IPI wakes it
  CHECK(r.metrics.get("sched.resched_ipis") >= 1);
  CHECK(r.metrics.get("sched.forks") == 4);
  CHECK(r.metrics.get("workload.exited_tasks") == 5);
  CHECK(r.metrics.get("workload.ops") == 2 * 2 * 20);
  // hackbench's Time runs from the kick (after every fork: at least 4 x fork_work and the
  // tasks' start) to the parent's last reap, i.e. within the run
  const double timed = r.metrics.get("workload.timed_ns"), last = r.metrics.get("workload.last_exit_ns");
  CHECK(timed > 0);
  CHECK(timed < last - 4 * 455e3);
  // thread mode: pthread_create()'s clone(), a thread's first run and exit, measured apart
  // (tens of us, not hundreds): the start before the kick is far shorter
  RunResult thr = hackbench({"workload.threads=1"});
  CHECK(thr.metrics.get("sched.forks") == 4);
  const double start_proc = last - timed;
  const double start_thr = thr.metrics.get("workload.last_exit_ns") - thr.metrics.get("workload.timed_ns");
  CHECK(start_thr < start_proc / 4);
  // without the start: nothing forked, every task runnable at boot, no parent
  RunResult flat = hackbench({"workload.start=0"});
  CHECK(flat.metrics.get("sched.forks") == 0);
  CHECK(flat.metrics.get("workload.exited_tasks") == 4);
  CHECK(flat.metrics.get("workload.ops") == 2 * 2 * 20);
  CHECK_FALSE(flat.metrics.has("workload.timed_ns"));
}
