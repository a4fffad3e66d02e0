// guest/workloads.cpp: each workload's programs do what the real benchmark does.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using namespace vtick;

namespace {
RunResult run(const std::vector<std::string>& sets, const std::string& duration = "200ms") {
  std::vector<std::string> all = {"run.duration=" + duration, "run.warmup=0ns"};
  all.insert(all.end(), sets.begin(), sets.end());
  RunResult r = run_simulation(test::scenario("[platform]\nshape = \"VM.Standard2.1\"\n", all));
  REQUIRE_FALSE(r.failed);
  return r;
}
double yields_of(const RunResult& r) { return r.metrics.get("sched.yields"); }
double r_halts(const RunResult& r) { return r.metrics.get("vcpu0.idle.halts") + r.metrics.get("vcpu1.idle.halts"); }
}  // namespace

TEST_CASE("sysbench threads: an event is thread_yields x (lock, sched_yield, unlock)") {
  // 4 threads on 2 vCPUs over 2 locks: events n and n+2 share a lock, so threads contend
  RunResult r = run({"workload.kind=sysbench_threads", "workload.threads=4", "workload.thread_yields=10",
                     "workload.thread_locks=2"});
  double events = r.metrics.get("workload.ops");
  REQUIRE(events > 1000);
  // every finished event yielded 10 times; each thread may be inside one more event
  CHECK(r.metrics.get("sched.yields") >= 10 * events);
  CHECK(r.metrics.get("sched.yields") <= 10 * events + 4 * 10);
  CHECK(r.metrics.get("sched.mutex_contended") > 0);
}

TEST_CASE("sysbench threads with one thread per vCPU never idles") {
  // sysbench's defaults (1000 yields per event, 8 locks): the two threads' concurrent
  // events never share a lock, a yield finds nothing else to run
  RunResult r = run({"workload.kind=sysbench_threads"}, "100ms");
  CHECK(r.metrics.get("workload.ops") > 100);
  CHECK(r.metrics.get("sched.mutex_contended") == 0);
  CHECK(r.metrics.get("vcpu0.idle.halts") + r.metrics.get("vcpu1.idle.halts") == 0);
}

// Two threads, one lock, 2 vCPUs (issue 43 step 0). With every iteration alike, a
// thread that finds the lock taken enters futex(FUTEX_WAIT) just as the holder's unlock
// clears the word: the wait returns EAGAIN, the lock is retaken in user space, and the
// threads never sleep. A real guest sleeps on about 1-5 % of its iterations (11-44 k
// halts/s at ~1.4 M iterations/s, docs/validation.md); with iteration_jitter the model's
// threads fall out of step and sleep too. (One run per test case: a second simulation in
// one process can stop short of its end, a fault of the test process seen with hackbench
// too.)
static RunResult one_lock(const std::string& jitter) {
  std::vector<std::string> sets = {"workload.kind=sysbench_threads", "workload.threads=2", "workload.thread_locks=1",
                                   "guest.tick_policy=got_tick"};
  if (!jitter.empty()) sets.push_back("workload.iteration_jitter=" + jitter);
  RunResult r = run(sets, "100ms");
  REQUIRE(yields_of(r) > 10000);
  return r;
}
static double per_yield(const RunResult& r, const char* m) { return r.metrics.get(m) / yields_of(r); }

TEST_CASE("sysbench threads on one lock with equal iterations phase-lock: every futex wait returns EAGAIN") {
  RunResult r = one_lock("0");
  CHECK(per_yield(r, "sched.mutex_contended") > 0.5);  // they meet on nearly every iteration...
  CHECK(per_yield(r, "sched.futex_eagain") > 0.5);     // ...and the wait comes back at once
  CHECK(per_yield(r, "sched.futex_waits") < 0.002);    // almost no real sleep
}

TEST_CASE("sysbench threads on one lock with varied iterations sleep on the futex and halt") {
  RunResult r = one_lock("");  // the declared default
  CHECK(per_yield(r, "sched.futex_waits") > 0.01);  // a real guest's order of magnitude
  CHECK(r_halts(r) >= 0.9 * r.metrics.get("sched.futex_waits"));  // each sleep halts a vCPU
}

TEST_CASE("hackbench: every sender writes loops messages to every receiver of its group, then all exit") {
  RunResult r = run({"workload.kind=hackbench", "workload.groups=2", "workload.fds=3", "workload.loops=20"});
  CHECK(r.metrics.get("workload.ops") == 2 * 3 * 3 * 20);  // messages read
  double done = r.metrics.get("workload.last_exit_ns");
  CHECK(done > 0);
  CHECK(done < 200e6);
  // a receiver that finds its pipe empty sleeps and is woken by a writer
  CHECK(r.metrics.get("sched.wakeups_local") + r.metrics.get("sched.wakeups_remote") > 0);
}

TEST_CASE("hackbench over pipes: more messages than a pipe holds all arrive (writers wait for room)") {
  // 4 senders x 700 messages to each of 4 receivers: more than a pipe's 655 in flight
  RunResult r = run({"workload.kind=hackbench", "workload.groups=1", "workload.fds=4", "workload.loops=700", "workload.pipe=1"},
                    "1s");
  CHECK(r.metrics.get("workload.ops") == 4 * 4 * 700);
  CHECK(r.metrics.get("workload.last_exit_ns") > 0);
}

TEST_CASE("hackbench's process mode switches the mm between its tasks, thread mode never, and the switch costs guest.costs.switch_mm_ns") {
  // without the start (fork, exit), whose measured costs differ by mode (tests/test_fork.cpp)
  const std::vector<std::string> base = {"workload.kind=hackbench", "workload.groups=1", "workload.fds=4", "workload.loops=200",
                                         "workload.pipe=1", "guest.background.preset=none", "workload.start=0"};
  auto with = [&](const std::string& threads, const std::string& cost) {
    std::vector<std::string> s = base;
    s.push_back("workload.threads=" + threads);
    s.push_back("guest.costs.switch_mm_ns=" + cost);
    return run(s, "1s");
  };
  RunResult proc = with("0", "2000"), thr = with("1", "2000");
  // a switch between two hackbench processes loads the other mm; with no kernel thread
  // between (no background) every such switch does, and a switch to idle keeps it
  CHECK(proc.metrics.get("sched.switch_mm") > 0);
  CHECK(proc.metrics.get("sched.switch_mm") <= proc.metrics.get("sched.switches"));
  CHECK(thr.metrics.get("sched.switch_mm") == 0);
  CHECK(proc.metrics.get("workload.last_exit_ns") > thr.metrics.get("workload.last_exit_ns"));
  // free, the two modes are one schedule: the mm is the only difference between them
  RunResult proc0 = with("0", "0"), thr0 = with("1", "0");
  CHECK(proc0.metrics.get("workload.last_exit_ns") == thr0.metrics.get("workload.last_exit_ns"));
  CHECK(proc0.metrics.get("sched.switches") == thr0.metrics.get("sched.switches"));
}

TEST_CASE("oltp: every transaction's commit is flushed through the block device") {
  RunResult r = run({"workload.kind=oltp"});
  double tx = r.metrics.get("workload.ops");
  REQUIRE(tx > 50);
  double io = r.metrics.get("sched.io_requests");
  // one log flush per commit (a commit in flight at the end may be flushed or not)
  CHECK(io >= tx);
  CHECK(io <= tx + 2);
  CHECK(r.metrics.get("vcpu0.irqs.device") + r.metrics.get("vcpu1.irqs.device") >= io - 2);
  CHECK(r.metrics.get("vcpu0.proc_stat.iowait_ns") + r.metrics.get("vcpu1.proc_stat.iowait_ns") > 0);
}

TEST_CASE("script net phase: a request over virtio-net, handled by the vhost worker, the reply wakes the task") {
  Scenario sc = test::scenario(R"(
[platform]
shape = "VM.Standard2.1"
[host]
max_cstate = "C1"
vhost = true
net_latency = "200us"
io_latency_dist = "constant"
[workload]
kind = "script"
[[workload.task]]
name = "client"
cpus = "1"
program = ["run 50us", "net"]
[run]
duration = "100ms"
warmup = "0ns"
)");
  RunResult r = run_simulation(sc);
  REQUIRE_FALSE(r.failed);
  double req = r.metrics.get("sched.net_requests");
  // each round: 50 us of work, the kick, 200 us to the peer and back, two vhost passes
  // (host C-states limited to C1: no deep-state exits on the way)
  CHECK(req > 300);
  CHECK(req < 400);
  CHECK(r.metrics.get("vcpu1.exits.net") == req);
  CHECK(r.metrics.get("vcpu1.irqs.device") >= req - 1);
  CHECK(r.metrics.get("host.vhost.wakeups") >= 2 * req - 2);  // TX, then the reply
  CHECK(r.metrics.get("vcpu1.proc_stat.iowait_ns") == 0);     // a socket wait is not iowait
}

TEST_CASE("sysbench threads pinned together run on vCPU 0 only, and slower than apart") {
  RunResult r = run({"workload.kind=sysbench_threads", "workload.cpus_mask=1"}, "100ms");
  CHECK(r.metrics.get("vcpu1.guest_time.user_ns") == 0);
  CHECK(r.metrics.get("task.2.sysbench-0.ops") > 0);
  CHECK(r.metrics.get("task.3.sysbench-1.ops") > 0);
  CHECK(r.metrics.get("sched.yield_switches") > 1000);  // each yield hands vCPU 0 to the other thread
}

TEST_CASE("sysbench's disturber: a loop pinned to vCPU 1 shares it with a worker") {
  RunResult r = run({"workload.kind=sysbench_threads", "workload.disturber_cpu=1", "workload.pin_apart=1"}, "100ms");
  CHECK(r.metrics.get("task.4.disturber.runtime_ns") > 30 * NSEC_PER_MSEC);
  CHECK(r.metrics.get("task.3.sysbench-1.runtime_ns") > 0);
}
