// The host's kernel/sched/fair.c (CFS: vruntime, wake-up preemption, slices) on the VM's
// hardware threads; their idle loop is host/host_idle.cpp.
#include "host/host_sched.hpp"
#include "core/warn.hpp"

#include <algorithm>

#include "core/trace.hpp"
#include "platform/sg_platform.hpp"

namespace vtick {

VTICK_PARAM_TABLE(HostSchedParams, VTICK_HOST_SCHED_PARAMS)
VTICK_PARAM_CTOR(HostSchedParams)

HostScheduler::HostScheduler(Machine& m, HostSchedParams p) : p_(std::move(p)), costs_(m.costs) {
  for (auto& hw : m.threads) cpus_.push_back(std::make_unique<HostCpu>(*hw));
  init_idle();
}

void HostScheduler::add_running(HostThread& t, int hw) {
  HostCpu& c = cpu(hw);
  t.cpu = &c;
  t.state = HostThread::State::Running;
  t.exec_start = now();
  c.curr = &t;
  c.slice_start = now();
}

void HostScheduler::add_sleeping(HostThread& t, int hw) {
  t.cpu = &cpu(hw);
  t.state = HostThread::State::Sleeping;
  t.cpu->sleepers.push_back(&t);
}

// select_task_rq_fair() on the host: the previous CPU if idle, else an idle allowed
// one, else the previous one.
int HostScheduler::select_cpu(const HostThread& t) const {
  int prev = t.cpu->hw.id();
  if (t.cpu->idle() && ((t.allowed >> prev) & 1)) return prev;
  for (int i = 0; i < nr_cpus(); ++i)
    if (((t.allowed >> i) & 1) && cpus_[static_cast<size_t>(i)]->idle()) return i;
  if ((t.allowed >> prev) & 1) return prev;
  for (int i = 0; i < nr_cpus(); ++i)
    if ((t.allowed >> i) & 1) return i;
  return prev;
}

sim_ns HostScheduler::next_timer_on(const HostCpu& c) const {
  sim_ns next = KTIME_MAX;
  for (const HostThread* t : c.sleepers) next = std::min(next, t->next_timer);
  return next;
}

void HostScheduler::pick_next(HostCpu& c) {
  if (tracing()) trace::host_nr_running(now(), -1 - c.hw.id(), static_cast<int>(c.rq.size()));
  if (c.rq.empty()) {
    c.curr = nullptr;
    go_idle(c);
    return;
  }
  auto best = c.rq.begin();
  for (auto it = c.rq.begin(); it != c.rq.end(); ++it)
    if ((*it)->vruntime < (*best)->vruntime) best = it;
  HostThread* next = *best;
  c.rq.erase(best);
  if (tracing()) (next->is_vcpu ? trace::host_switch_vcpu : trace::host_switch_thread)(now(), -1 - c.hw.id(), next->vruntime);
  c.curr = next;
  c.slice_start = now();
  next->state = HostThread::State::Running;
  next->exec_start = now();
  ++c.stats.switches;
  next->bell->ring();
}

void HostScheduler::wake(HostThread& t) {
  if (t.state != HostThread::State::Sleeping) return;
  ++t.wakeups;
  HostCpu& c = cpu(select_cpu(t));
  sim_ns n = now();
  // the idle CPU's past first: its governor saw this thread's timer until now
  HostCState s = HostCState::C1;
  sim_ns exit_latency = c.idle() ? idle_exit(c, n, s) : 0;
  auto& sl = t.cpu->sleepers;  // (after idle_exit(): the governor saw its timer until now)
  sl.erase(std::find(sl.begin(), sl.end(), &t));
  t.next_timer = KTIME_MAX;
  t.cpu = &c;
  // place_entity(): a sleeper gets at most half a latency period of credit
  t.vruntime = std::max(t.vruntime, c.min_vruntime - p_.latency / 2);
  if (c.idle()) {
    t.exit_latency = exit_latency;
    ++c.stats.wakeups_from[static_cast<int>(s)];
    trace::host_idle_exit(n, -1 - c.hw.id(), s);
    trace::host_nr_running(n, -1 - c.hw.id(), 1);
    c.curr = &t;
    c.slice_start = n;
    t.state = HostThread::State::Running;
    t.exec_start = n;
    t.bell->ring();
    return;
  }
  t.state = HostThread::State::Runnable;
  t.exit_latency = 0;
  c.curr->bell->revoke_promise();  // its slice now ends (slice_end()): its lookahead with it
  c.rq.push_back(&t);
  trace::host_nr_running(n, -1 - c.hw.id(), c.nr_running());
  if (tracing()) (t.is_vcpu ? trace::host_enqueue_vcpu : trace::host_enqueue_thread)(n, -1 - c.hw.id(), c.curr->is_vcpu);
  // check_preempt_wakeup(): the woken thread is far enough behind
  HostThread* cur = c.curr;
  sim_ns cur_vr = cur->vruntime + (n - cur->exec_start);
  if (cur_vr - t.vruntime > p_.wakeup_granularity && !cur->preempt_pending) {
    cur->preempt_pending = true;
    ++cur->preemptions;
    ++c.stats.preemptions;
    cur->bell->ring();
  }
}

sim_ns HostScheduler::wait_until_running(HostThread& t) {
  sim_ns t0 = now();
  trace::host_wait(t0, -1 - t.cpu->hw.id(), t.is_vcpu, static_cast<int>(t.state));
  while (!(t.cpu->curr == &t && t.state == HostThread::State::Running)) {
    next_step_host_only();  // (for the speed report: the thread is switched in, host code)
    wait_event(*t.bell, KTIME_MAX);
  }
  sim_ns queued = now() - t0;
  if (t.exit_latency > 0) {
    // The hardware thread leaves its C-state before it handles the wake-up (the IPI or
    // the hrtimer that enqueues the thread): not run-queue time, so not in run_delay
    // (sched_info_enqueue() stamps the enqueue that follows) and not steal.
    next_step_host_only();
    sleep_until(now() + t.exit_latency);
    t.exit_latency = 0;
  }
  t.run_delay += queued;
  t.exec_start = now();
  return queued;
}

void HostScheduler::schedule_out(HostThread& t, bool still_runnable) {
  HostCpu& c = *t.cpu;
  VTICK_WARN(c.curr != &t, t.name, " schedules out of hardware thread ", c.hw.id(), " where it does not run");
  sim_ns n = now();
  t.vruntime += n - t.exec_start;
  c.min_vruntime = std::max(c.min_vruntime, t.vruntime - p_.latency);
  t.preempt_pending = false;
  if (still_runnable) {
    t.state = HostThread::State::Runnable;
    c.rq.push_back(&t);
  } else {
    t.state = HostThread::State::Sleeping;
    c.sleepers.push_back(&t);
  }
  c.curr = nullptr;
  pick_next(c);
}

bool HostScheduler::must_yield(const HostThread& t) const {
  return t.preempt_pending || now() >= slice_end(t);
}

// check_preempt_tick(): with others waiting, the running thread gets its share of the
// latency period, at least min_granularity.
sim_ns HostScheduler::slice_end(const HostThread& t) const {
  const HostCpu& c = *t.cpu;
  if (c.rq.empty() || c.curr != &t) return KTIME_MAX;
  sim_ns slice = std::max(p_.min_granularity, p_.latency / c.nr_running());
  return c.slice_start + slice;
}

}  // namespace vtick
