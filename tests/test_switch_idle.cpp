// guest/schedule.cpp, guest/sched.cpp: the switch to the idle task (guest.costs.switch_idle_ns),
// p->on_cpu until finish_task_switch(), and try_to_wake_up()'s wakelist for a task still
// switching out (issue 43, steps 1 and 3).
#include <catch2/catch.hpp>
#include <algorithm>
#include <map>

#include "guest/kernel.hpp"
#include "helpers.hpp"

using namespace vtick;

namespace {

RunResult run_with(const std::string& toml, const std::vector<std::string>& sets, SimHooks hooks = {}) {
  RunResult r = run_simulation(test::scenario(toml, sets), hooks);
  INFO(r.error);
  REQUIRE_FALSE(r.failed);
  return r;
}

// From each sched_switch to idle on `cpu` to the CPU's next HLT, in ns.
std::vector<sim_ns> pre_hlt_windows(const test::Recorder& rec, int cpu) {
  std::vector<sim_ns> w;
  sim_ns from = -1;
  for (const auto& e : rec.on_cpu(cpu)) {
    if (e.id == EventId::SchedSwitch && e.sched_switch.next_pid == 0 && e.sched_switch.prev_pid != 0) from = e.t;
    if (e.id == EventId::SchedSwitch && e.sched_switch.next_pid != 0) from = -1;
    if (e.id == EventId::Halt && from >= 0) {
      w.push_back(e.t - from);
      from = -1;
    }
  }
  return w;
}

// On vCPU 1: from the sleeper's last timer step before it blocks (hrtimer_start, the
// clockevent or deadline write) to its sched_switch out to idle, in ns.
std::vector<sim_ns> write_to_switch_gaps(const test::Recorder& rec) {
  std::vector<sim_ns> gaps;
  sim_ns last = -1;
  for (const ModelEvent& e : rec.on_cpu(1)) {
    if (e.id == EventId::WriteMsr || e.id == EventId::ClockeventWrite || e.id == EventId::HrtimerStart) last = e.t;
    if (e.id == EventId::SchedSwitch && e.sched_switch.next_pid == 0 && e.sched_switch.prev_pid != 0 && last >= 0)
      gaps.push_back(e.t - last);
    if (e.id == EventId::SchedSwitch) last = -1;
  }
  return gaps;
}

sim_ns median(std::vector<sim_ns> v) {
  REQUIRE(!v.empty());
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

const char* kSleeper =
    "[platform]\nshape = \"generic\"\narch = \"skylake-sp\"\ncores = 2\nthreads_per_core = 1\n"
    "[guest]\ncmdline = \"nohz=off\"\n[guest.background]\npreset = \"none\"\n"
    "[workload]\nkind = \"idle\"\n[run]\nduration = \"100ms\"\nwarmup = \"0ns\"\n";

// Two sysbench threads on one lock on 2 vCPUs: the unlock often lands in the waiter's
// switch to idle.
const char* kOneLock =
    "[guest]\nhz = 250\n[guest.background]\npreset = \"none\"\n[workload]\nkind = \"sysbench_threads\"\n"
    "threads = 2\nthread_locks = 1\n[run]\nduration = \"30ms\"\nwarmup = \"0ns\"\n";

// A task on vCPU1 works 100 us and sleeps 3.5 ms (kSleeper), with switch_idle_ns 2000 and
// idle_enter_ns 200, and `sets` on top; its run's model events go to `rec`.
void run_sleeper(test::Recorder& rec, const std::vector<std::string>& sets) {
  SimHooks hooks;
  hooks.sink = &rec;
  hooks.guest_setup = [](GuestKernel& k) {
    k.add_task("sleeper", {{PhaseKind::Run, 100000, -1}, {PhaseKind::Sleep, 3500000, -1}}, 1, 1ULL << 1);
  };
  std::vector<std::string> all = {"guest.costs.switch_idle_ns=2000", "guest.costs.idle_enter_ns=200"};
  all.insert(all.end(), sets.begin(), sets.end());
  run_with(kSleeper, all, hooks);
}

}  // namespace

TEST_CASE("switch to idle: a blocking task's switch costs guest.costs.switch_idle_ns before do_idle() reaches HLT") {
  // A task on vCPU1 works 100 us and sleeps 3.5 ms on a platform without SMT (guest work
  // runs at nominal speed); nohz=off keeps tick_nohz_idle_enter() to a stamp, so the path
  // from its sched_switch to HLT is switch_idle_ns + idle_enter_ns = 2000 + 200 ns.
  test::Recorder rec;
  run_sleeper(rec, {});
  std::vector<sim_ns> w = pre_hlt_windows(rec, 1);
  REQUIRE(w.size() >= 20);  // 100 ms of 3.6 ms cycles
  CHECK(median(w) == 2200);
  CHECK(*std::min_element(w.begin(), w.end()) == 2200);  // nothing shortens that path
}

TEST_CASE("try_to_wake_up: a task woken while it switches out is queued on its own CPU's wakelist with an IPI") {
  // Two sysbench threads on one lock (2 vCPUs): the holder's unlock often wakes the waiter
  // within its switch to idle. Each such wake-up, told from the timeline (between the
  // waiter's sched_switch to idle and its CPU's do_idle()), must stay on that CPU and
  // send it CALL_FUNCTION_SINGLE; every other wake-up must not count as one.
  test::Recorder rec;
  SimHooks hooks;
  hooks.sink = &rec;
  RunResult r = run_with(kOneLock,
                         {"guest.costs.switch_idle_ns=2000"}, hooks);
  std::map<int, int> switching_out;  // pid -> the CPU it is switching to idle on
  std::map<int, int> expect_on;      // pid -> the CPU its pending wake-up must queue on
  std::map<int, int> switching_pid;  // CPU -> the pid switching out there
  std::uint64_t in_window = 0, queued_ok = 0, ipis = 0;
  for (std::size_t i = 0; i < rec.events.size(); ++i) {
    const ModelEvent& e = rec.events[i];
    if (e.id == EventId::SchedSwitch && e.sched_switch.next_pid == 0 && e.sched_switch.prev_pid != 0) {
      switching_out[e.sched_switch.prev_pid] = e.cpu;
      switching_pid[e.cpu] = e.sched_switch.prev_pid;
    } else if (e.id == EventId::IdleEnter && switching_pid.count(e.cpu)) {
      switching_out.erase(switching_pid[e.cpu]);  // finish_task_switch() was before do_idle()
      switching_pid.erase(e.cpu);
    } else if (e.id == EventId::SchedWaking) {
      auto it = switching_out.find(e.sched_waking.pid);
      if (it != switching_out.end() && it->second != e.cpu) {
        ++in_window;
        expect_on[e.sched_waking.pid] = it->second;
        // the wakelist's IPI follows at once from the waker
        for (std::size_t j = i + 1; j < rec.events.size(); ++j) {
          const ModelEvent& f = rec.events[j];
          if (f.cpu == e.cpu && f.id == EventId::IpiSendCpu) {
            if (f.ipi_send_cpu.dest_cpu == it->second && f.ipi_send_cpu.vector == IrqVector::CallFunction) ++ipis;
            break;
          }
          if (f.cpu == e.cpu && f.id == EventId::SchedWaking) break;
        }
      }
    } else if (e.id == EventId::SchedWakeup && expect_on.count(e.sched_wakeup.pid)) {
      if (e.sched_wakeup.target_cpu == expect_on[e.sched_wakeup.pid] && e.cpu == e.sched_wakeup.target_cpu) ++queued_ok;
      expect_on.erase(e.sched_wakeup.pid);
    }
  }
  REQUIRE(in_window >= 50);  // the path is taken, not rare
  CHECK(r.metrics.get("sched.ttwu_on_cpu") == static_cast<double>(in_window));
  CHECK(expect_on.size() <= 1);                     // one may still be in flight at the end
  CHECK(queued_ok + expect_on.size() == in_window);  // activated by the CPU it was switching out on
  CHECK(ipis == in_window);       // that CPU was not polling yet: an IPI each time
  CHECK(r.metrics.get("sched.ttwu_on_cpu_spins") == 0);  // the other CPU had nothing to run
}

TEST_CASE("try_to_wake_up: with the wakelist off a waker spins until the task has switched out") {
  // TTWU_QUEUE off: ttwu_queue_cond() refuses, so a wake-up in the window waits for
  // finish_task_switch() (smp_cond_load_acquire) and no wake-up is queued
  RunResult r = run_with(kOneLock,
                         {"guest.costs.switch_idle_ns=2000", "guest.sched.ttwu_queue=false"});
  CHECK(r.metrics.get("sched.ttwu_on_cpu") == 0);
  CHECK(r.metrics.get("sched.ttwu_queued") == 0);
  CHECK(r.metrics.get("sched.ttwu_on_cpu_spins") >= 50);
}


TEST_CASE("switch to idle: guest.costs.schedule_block_ns is __schedule()'s part before a blocking task's switch") {
  // The sleeper of the first test with schedule_block_ns = 1500: do_nanosleep() arms its
  // timer (hrtimer_start, then the deadline write, the sleep timer being the first) and
  // calls schedule(); from the write's return to the sched_switch out is the cost alone,
  // and the path from sched_switch to HLT stays switch_idle_ns + idle_enter_ns.
  test::Recorder rec;
  run_sleeper(rec, {"guest.costs.schedule_block_ns=1500"});
  std::vector<sim_ns> gaps = write_to_switch_gaps(rec);
  REQUIRE(gaps.size() >= 20);  // 100 ms of 3.6 ms cycles
  CHECK(median(gaps) == 1500);
  CHECK(*std::min_element(gaps.begin(), gaps.end()) == *std::max_element(gaps.begin(), gaps.end()));  // guest.costs.sigma 0: no draw
  CHECK(median(pre_hlt_windows(rec, 1)) == 2200);
}

TEST_CASE("try_to_wake_up: a wake-up during schedule_block_ns finds the waiter before its switch, on its CPU") {
  // Two sysbench threads on one lock with the waiter's __schedule() taking 2 us before its
  // switch: the holder's unlock lands there, before the waiter's sched_switch is traced
  // (trace-compare's wakeups.on_cpu); each such wake-up takes the WF_ON_CPU wakelist.
  test::Recorder rec;
  SimHooks hooks;
  hooks.sink = &rec;
  RunResult r = run_with(kOneLock, {"guest.costs.schedule_block_ns=2000"}, hooks);
  std::map<int, bool> running;
  std::map<int, int> cpu_of;    // pid -> the CPU it was switched in on
  std::map<int, int> woken_on;  // CPU -> the pid woken there before its switch
  double before_switch = 0, then_switched = 0, then_user = 0;
  for (const ModelEvent& e : rec.events) {
    if (e.id == EventId::SchedSwitch) {
      running[e.sched_switch.prev_pid] = false;
      running[e.sched_switch.next_pid] = true;
      cpu_of[e.sched_switch.next_pid] = e.cpu;
      auto it = woken_on.find(e.cpu);
      if (it != woken_on.end() && it->second == e.sched_switch.prev_pid && e.sched_switch.next_pid == 0) {
        ++then_switched;
        woken_on.erase(it);
      }
    } else if (e.id == EventId::SchedWaking && running[e.sched_waking.pid]) {
      before_switch += 1;
      for (auto it = woken_on.begin(); it != woken_on.end();) it = it->second == e.sched_waking.pid ? woken_on.erase(it) : std::next(it);
      woken_on[cpu_of[e.sched_waking.pid]] = e.sched_waking.pid;
    } else if (e.id == EventId::GuestCpuState && e.guest_cpu_state.state == GuestCpuState::User && woken_on.count(e.cpu)) {
      ++then_user;  // back to user space without the switch: the wakelist IPI was taken too early
      woken_on.erase(e.cpu);
    }
  }
  CHECK(before_switch >= 100);
  CHECK(r.metrics.get("sched.ttwu_on_cpu") + r.metrics.get("sched.ttwu_on_cpu_spins") >= before_switch);
  // interrupts stay off from try_to_block_task() to finish_lock_switch(): the waiter
  // switches to idle, takes the IPI there and switches back in (two switches per wait)
  CHECK(then_user == 0);
  CHECK(then_switched >= before_switch - 1);
}

TEST_CASE("guest.costs.sigma draws each kernel path's cost lognormal around its declared figure") {
  // The sleeper of the schedule_block_ns test over 400 ms (about 110 cycles) with sigma
  // 0.3, the blocking FUTEX_WAIT's spread on the AMD guest: the write-to-switch gaps are
  // no longer all 1500 ns, keep a mean of 1500 (a standard error of about 45 ns) and spread
  // as a lognormal of that sigma does (p90/p10 = exp(2 x 1.2816 x 0.3) = 2.16).
  test::Recorder rec;
  run_sleeper(rec, {"guest.costs.schedule_block_ns=1500", "guest.costs.sigma=0.3", "run.duration=400ms"});
  std::vector<sim_ns> gaps = write_to_switch_gaps(rec);
  REQUIRE(gaps.size() >= 100);
  std::sort(gaps.begin(), gaps.end());
  double mean = 0;
  for (sim_ns g : gaps) mean += static_cast<double>(g) / static_cast<double>(gaps.size());
  CHECK(mean == Approx(1500).margin(200));
  const double p10 = static_cast<double>(gaps[gaps.size() / 10]), p90 = static_cast<double>(gaps[gaps.size() * 9 / 10]);
  CHECK(p90 / p10 == Approx(2.16).margin(0.6));
}

TEST_CASE("guest.costs.sigma: a lone sysbench thread's local stretch holds with drawn costs") {
  // One thread on one lock (its loop local: lock, sched_yield() that keeps it, unlock) with
  // a wide spread: the lookahead may not count on a yield's declared cost as its least
  // (a lognormal draw has no floor), else the thread leaves its stretch before its end
  // and the run fails (WARN_ON(!phase_is_local()) in guest/task_program.cpp).
  RunResult r = run_with("[guest]\nhz = 250\n[guest.background]\npreset = \"none\"\n[workload]\nkind = \"sysbench_threads\"\n"
                         "threads = 1\nthread_locks = 1\n[run]\nduration = \"200ms\"\nwarmup = \"0ns\"\n",
                         {"guest.costs.sigma=1.5"});
  CHECK(r.measured_ns == 200000000);
  CHECK(r.metrics.get("sched.yield_switches") == 0);  // alone: every yield keeps it
}

TEST_CASE("guest.costs.syscall_exit_share: a syscall's way out is charged when its task goes back to user space") {
  // The sleeper with syscall_ns 1000, 0.4 of it on the way out: nanosleep()'s entry
  // takes 600 ns up to hrtimer_start(); the way out comes after the sleep, from the
  // task's switch in to its return to user space: 400 ns exactly.
  test::Recorder rec;
  run_sleeper(rec, {"guest.costs.syscall_ns=1000", "guest.costs.syscall_exit_share=0.4"});
  std::vector<sim_ns> entry, way_out;
  sim_ns sys_at = -1, in_at = -1;
  for (const ModelEvent& e : rec.on_cpu(1)) {
    if (e.id == EventId::GuestCpuState && e.guest_cpu_state.state == GuestCpuState::Sys && in_at < 0 && sys_at < 0) sys_at = e.t;
    if (e.id == EventId::HrtimerStart && sys_at >= 0) {
      entry.push_back(e.t - sys_at);
      sys_at = -1;
    }
    if (e.id == EventId::SchedSwitch && e.sched_switch.next_pid != 0) in_at = e.t;
    if (e.id == EventId::GuestCpuState && e.guest_cpu_state.state == GuestCpuState::User) {
      if (in_at >= 0) way_out.push_back(e.t - in_at);
      in_at = sys_at = -1;
    }
  }
  REQUIRE(entry.size() >= 20);
  REQUIRE(way_out.size() >= 20);
  CHECK(median(entry) == 600);
  CHECK(median(way_out) == 400);
}

TEST_CASE("guest.costs.futex_wait_setup_ns and futex_wake_ns: futex's own parts beyond the syscall") {
  // One task on vCPU 1 posts an event and takes it back at once (FUTEX_WAKE with nobody
  // queued, FUTEX_WAIT that finds the unit: neither blocks), then runs 10 us in user
  // space. syscall_ns 1000 each: a pass is 12000 ns from one return to user space to
  // the next; futex_wake()'s 300 and futex_wait_setup()'s 200 make it 12500.
  auto period = [](const std::vector<std::string>& sets) {
    test::Recorder rec;
    SimHooks hooks;
    hooks.sink = &rec;
    hooks.guest_setup = [](GuestKernel& k) {
      int ev = k.add_event();
      k.add_task("poster", {{PhaseKind::Wake, 0, ev}, {PhaseKind::Wait, 0, ev}, {PhaseKind::Run, 10000, -1}}, 1, 1ULL << 1);
    };
    std::vector<std::string> all = {"guest.costs.syscall_ns=1000", "run.duration=20ms"};
    all.insert(all.end(), sets.begin(), sets.end());
    run_with(kSleeper, all, hooks);
    std::vector<sim_ns> gaps;
    sim_ns last = -1;
    for (const ModelEvent& e : rec.on_cpu(1))
      if (e.id == EventId::GuestCpuState && e.guest_cpu_state.state == GuestCpuState::User) {
        if (last >= 0) gaps.push_back(e.t - last);
        last = e.t;
      }
    REQUIRE(gaps.size() >= 100);
    return median(gaps);
  };
  CHECK(period({}) == 12000);
  CHECK(period({"guest.costs.futex_wake_ns=300", "guest.costs.futex_wait_setup_ns=200"}) == 12500);
}

TEST_CASE("guest.costs.ttwu_wakelist_ns: try_to_wake_up()'s way to the wakelist IPI for a task still switching out") {
  // Two sysbench threads on one lock (two cores, no SMT sibling to slow the waker), the
  // waiter's __schedule() 2 us before its switch: each wake-up of a task still on its CPU
  // (WF_ON_CPU) sends the IPI ttwu_wakelist_ns after its sched_waking, from the waker's
  // CPU: 0, and 700 ns at least and as the median (an interrupt may come in between).
  auto gaps = [](const std::string& ns) {
    test::Recorder rec;
    SimHooks hooks;
    hooks.sink = &rec;
    RunResult r = run_with(kOneLock, {"platform.shape=generic", "platform.cores=2", "platform.threads_per_core=1", "guest.costs.schedule_block_ns=2000",
                                          "guest.costs.ttwu_wakelist_ns=" + ns}, hooks);
    std::map<int, bool> running;
    std::map<int, sim_ns> waking_at;  // waker CPU -> its on-CPU wakee's sched_waking
    std::vector<sim_ns> g;
    for (const ModelEvent& e : rec.events) {
      if (e.id == EventId::SchedSwitch) {
        running[e.sched_switch.prev_pid] = false;
        running[e.sched_switch.next_pid] = true;
      } else if (e.id == EventId::SchedWaking && running[e.sched_waking.pid]) {
        waking_at[e.cpu] = e.t;
      } else if (e.id == EventId::IpiSendCpu && waking_at.count(e.cpu)) {
        g.push_back(e.t - waking_at[e.cpu]);
        waking_at.erase(e.cpu);
      }
    }
    REQUIRE(g.size() >= 100);
    CHECK(static_cast<double>(g.size()) <= r.metrics.get("sched.ttwu_on_cpu"));
    std::sort(g.begin(), g.end());
    return std::make_pair(g.front(), g[g.size() / 2]);
  };
  CHECK(gaps("0") == std::make_pair(sim_ns{0}, sim_ns{0}));
  CHECK(gaps("700") == std::make_pair(sim_ns{700}, sim_ns{700}));
}

TEST_CASE("guest.costs.finish_task_switch_ns: the switch to idle after prev->on_cpu's clear, before do_idle()") {
  // The sleeper: its path from sched_switch to HLT grows by finish_task_switch_ns (2000 +
  // 700 + 200 ns).
  test::Recorder rec;
  run_sleeper(rec, {"guest.costs.finish_task_switch_ns=700"});
  std::vector<sim_ns> w = pre_hlt_windows(rec, 1);
  REQUIRE(w.size() >= 20);
  CHECK(median(w) == 2900);
  CHECK(*std::min_element(w.begin(), w.end()) == 2900);
  // Two sysbench threads on one lock, a 100 ns switch: the holder's wake-up comes after
  // the waiter's on_cpu clear. With nothing after it the idle task is polling by then and
  // the wake-up needs no IPI (set_nr_if_polling()); with 3 us of finish_task_switch() it
  // is not polling yet and each wake-up sends one.
  auto wakes = [](const std::string& finish) {
    RunResult r = run_with(kOneLock, {"guest.costs.switch_idle_ns=100", "guest.costs.finish_task_switch_ns=" + finish});
    REQUIRE(r.metrics.get("sched.wakeups_remote") >= 100);
    CHECK(r.metrics.get("sched.ttwu_on_cpu") == 0);
    return std::make_pair(r.metrics.get("sched.wake_idle_without_ipi") / r.metrics.get("sched.wakeups_remote"),
                          r.metrics.get("sched.call_function_ipis") / r.metrics.get("sched.wakeups_remote"));
  };
  CHECK(wakes("0") == std::make_pair(1.0, 0.0));
  CHECK(wakes("3000") == std::make_pair(0.0, 1.0));
}
