#include "host/host_threads.hpp"

#include <algorithm>
#include <simgrid/s4u/Exec.hpp>

#include "host/kvm.hpp"

namespace vtick {

HostWorker::HostWorker(std::string name, HostScheduler& s, std::uint64_t cpus, int home)
    : s_(s), bell_(name + ".bell") {
  t_.name = std::move(name);
  t_.bell = &bell_;
  t_.allowed = cpus;
  s_.add_sleeping(t_, home);
}

HostThreadStats HostWorker::stats() const { return {t_.wakeups, t_.preemptions, run_ns_, t_.run_delay}; }

// Wake, wait for a CPU, run the work (preemptible), go back to sleep.
// Wake, wait for a CPU, run the work (preemptible: cut and restarted with what is left,
// possibly on another hardware thread), go back to sleep.
void HostWorker::run_on_cpu(sim_ns work, const std::function<sim_ns()>& then) {
  s_.wake(t_);
  s_.wait_until_running(t_);
  sim_ns left = work;
  for (;;) {
    HwThread* hw = &t_.cpu->hw;
    hw->set_activity(HwActivity::HostThread, now());
    sim_ns started = now();
    bool done;
    if (work_is_timed(hw->sibling() != nullptr)) {  // no Exec
      for (;;) {
        next_step_host_only();  // (the speed report's count: a host thread's every step is)
        done = wait_timed_work(bell_, hw->host(), left, s_.slice_end(t_));
        if (done || s_.must_yield(t_)) break;
      }
    } else {
      simgrid::s4u::ExecPtr ex = start_work(hw->host(), left);
      while (!work_done(ex) && !s_.must_yield(t_)) wait_event(bell_, ex, s_.slice_end(t_));  // (the simgrid scheduler counts no steps)
      done = work_done(ex);
      if (!done) {
        left = work_remaining(ex);
        work_cancel(ex);
      }
    }
    run_ns_ += now() - started;
    if (done) break;
    s_.schedule_out(t_, true);
    s_.wait_until_running(t_);
  }
  t_.next_timer = then ? then() : KTIME_MAX;
  s_.schedule_out(t_, false);
}

VTICK_PARAM_TABLE(NoiseParams, VTICK_NOISE_PARAMS)
VTICK_PARAM_CTOR(NoiseParams)
VTICK_PARAM_TABLE(IoThreadParams, VTICK_IOTHREAD_PARAMS)
VTICK_PARAM_CTOR(IoThreadParams)
VTICK_PARAM_TABLE(VhostParams, VTICK_VHOST_PARAMS)
VTICK_PARAM_CTOR(VhostParams)

IoThread::IoThread(Kvm& vm, std::string name, std::uint64_t cpus, sim_ns submit_ns, sim_ns complete_ns, int home, bool net)
    : HostWorker(std::move(name), vm.sched(), cpus, home), vm_(vm), submit_ns_(submit_ns), complete_ns_(complete_ns), net_(net) {}

void IoThread::submit(KvmVcpu& from, std::uint64_t request, sim_ns at) {
  items_.push_back({at, false, &from, request});
  bell_.ring();
}

void IoThread::start() {
  spawn_actor(t_.name, t_.cpu->hw.host(), [this] { main(); });
}

// Each request: the thread picks it up and submits it (submit_ns), the device takes the
// host I/O latency, the completion wakes the thread again, which completes it
// (complete_ns) and signals the irqfd: a posted interrupt to the vCPU.
void IoThread::main() {
  for (;;) {
    auto next = std::min_element(items_.begin(), items_.end(), [](const Item& a, const Item& b) { return a.ready < b.ready; });
    if (next == items_.end() || next->ready > now()) {
      t_.next_timer = next == items_.end() ? KTIME_MAX : next->ready;
      next_step_host_only();
      wait_event(bell_, next == items_.end() ? KTIME_MAX : next->ready);
      continue;
    }
    Item it = *next;
    items_.erase(next);
    auto next_ready = [this] {
      sim_ns t = KTIME_MAX;
      for (const Item& i : items_) t = std::min(t, i.ready);
      return t;
    };
    if (!it.completion) {
      run_on_cpu(submit_ns_, [&] {
        items_.push_back({now() + (net_ ? vm_.net_latency() : vm_.io_latency()), true, it.vcpu, it.request});
        return next_ready();
      });
    } else {
      run_on_cpu(complete_ns_, next_ready);
      it.vcpu->inject_device_irq(it.request, now() + vm_.costs().ipi_deliver_ns);
    }
  }
}

NoiseThread::NoiseThread(HostScheduler& s, const NoiseParams& p, int index, int home, std::uint64_t seed)
    : HostWorker("noise" + std::to_string(index), s, p.cpus.mask, home), p_(p), rng_(seed, "host/noise" + std::to_string(index)) {}

void NoiseThread::start() {
  spawn_actor(t_.name, t_.cpu->hw.host(), [this] { main(); });
}

void NoiseThread::main() {
  auto draw = [this] { return now() + rng_.exponential(static_cast<sim_ns>(1e9 / p_.hz)); };
  sim_ns wake = draw();
  for (;;) {
    t_.next_timer = wake;
    while (now() < wake) {
      next_step_host_only();
      wait_event(bell_, wake);
    }
    run_on_cpu(p_.work, [&] { return wake = draw(); });
  }
}

}  // namespace vtick
