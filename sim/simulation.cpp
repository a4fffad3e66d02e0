#include "sim/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include "core/sg.hpp"
#include "core/trace.hpp"
#include "guest/kernel.hpp"
#include "guest/workloads.hpp"
#include "host/kvm.hpp"
#include "platform/sg_platform.hpp"
#include "sim/stats.hpp"

namespace vtick {

namespace sg4 = simgrid::s4u;

namespace {

std::string lower(const char* s) { return s; }

void collect(Metrics& m, sim_ns t, Machine& machine, Kvm& vm, GuestKernel& k, const WorkloadSpec& w) {
  m.counter("workload.ops", static_cast<double>(workload_ops(k, w)));
  m.gauge("workload.exited_tasks", static_cast<double>(k.exited_tasks));
  m.gauge("workload.last_exit_ns", static_cast<double>(k.last_exit));
  if (!k.op_latency.empty()) {
    std::vector<double> lat(k.op_latency.begin(), k.op_latency.end());
    m.gauge("workload.op_latency_p50_ns", percentile(lat, 50));
    m.gauge("workload.op_latency_p99_ns", percentile(lat, 99));
  }
  const SchedStats& ss = k.sched_stats;
  m.counter("sched.switches", ss.switches);
  m.counter("sched.wakeups_local", ss.wakeups_local);
  m.counter("sched.wakeups_remote", ss.wakeups_remote);
  m.counter("sched.resched_ipis", ss.resched_ipis);
  m.counter("sched.wake_idle_without_ipi", ss.wake_idle_without_ipi);
  m.counter("sched.preemptions", ss.preemptions);
  m.counter("sched.wakeup_preemptions", ss.wakeup_preemptions);
  m.counter("sched.wake_to_prev", ss.wake_to_prev);
  m.counter("sched.wake_to_waker", ss.wake_to_waker);
  m.counter("sched.wake_to_idle", ss.wake_to_idle);
  m.counter("sched.yields", ss.yields);
  m.counter("sched.yield_switches", ss.yield_switches);
  m.counter("sched.migrations", ss.migrations);
  m.counter("sched.lb_calls", ss.lb_calls);
  m.counter("sched.lb_pulled", ss.lb_pulled);
  m.counter("sched.newidle_balances", ss.newidle_balances);
  m.counter("sched.nohz_kicks", ss.nohz_kicks);
  m.counter("sched.mutex_contended", ss.mutex_contended);
  m.counter("sched.io_requests", ss.io_requests);
  m.counter("sched.net_requests", ss.net_requests);
  for (int i = 0; i < vm.nr_vcpus(); ++i) {
    const std::string p = "vcpu" + std::to_string(i) + ".";
    const KvmVcpu& v = vm.vcpu(i);
    const VcpuStats& s = v.stats();
    // KVM stats (debugfs / binary stats names)
    // x86 stat.halt_exits; arm64 has no halt_exits but counts the same WFI exits (that
    // reach kvm_vcpu_halt) in stat.wfi_exit_stat: both names there, the first for tables
    m.counter(p + "kvm.halt_exits", s.halt_exits);
    if (vm.costs().isa == Isa::Arm64) m.counter(p + "kvm.wfi_exit_stat", s.halt_exits);
    m.counter(p + "kvm.halt_attempted_poll", s.halt.halt_attempted_poll);
    m.counter(p + "kvm.halt_successful_poll", s.halt.halt_successful_poll);
    m.counter(p + "kvm.halt_poll_invalid", s.halt.halt_poll_invalid);
    m.counter(p + "kvm.halt_wakeup", s.halt.halt_wakeup);
    m.counter(p + "kvm.halt_poll_success_ns", s.halt.halt_poll_success_ns);
    m.counter(p + "kvm.halt_poll_fail_ns", s.halt.halt_poll_fail_ns);
    m.counter(p + "kvm.halt_wait_ns", s.halt.halt_wait_ns);
    m.gauge(p + "kvm.halt_poll_ns", v.halt_poll_ns());
    m.counter(p + "kvm.halt_poll_grow", s.halt.halt_poll_grow);
    m.counter(p + "kvm.halt_poll_shrink", s.halt.halt_poll_shrink);
    // exits by reason
    m.counter(p + "exits.hlt", s.exits.hlt);
    m.counter(p + "exits.hlt_fastpath", s.exits.hlt_fastpath);
    m.counter(p + "exits.msr_tsc_deadline", s.exits.msr_tsc_deadline);
    m.counter(p + "exits.apic_lvtt", s.exits.apic_lvtt);
    m.counter(p + "exits.ipi", s.exits.ipi);
    m.counter(p + "exits.timer_expiry", s.exits.timer_expiry);
    m.counter(p + "exits.total", s.exits.total());
    m.counter(p + "host.blocks", s.blocks);
    m.counter(p + "host.timer_wakeups", s.timer_wakeups);
    m.counter(p + "host.ipi_wakeups", s.ipi_wakeups);
    m.counter(p + "host.posted_irqs", s.posted_irqs);
    m.counter(p + "host.irqs_while_preempted", s.irqs_while_preempted);
    m.counter(p + "host.guest_timer_fired", s.timer_fired);
    auto vt = v.time_in_state(t);
    for (size_t j = 0; j < vt.size(); ++j) m.counter(p + "host_time." + vcpu_state_name(static_cast<VcpuState>(j)) + "_ns", vt[j]);
    m.counter(p + "steal_ns", v.steal_clock());
    m.counter(p + "host.run_delay_ns", v.host_thread().run_delay);
    m.counter(p + "host.preemptions", v.host_thread().preemptions);
    m.counter(p + "exits.external_interrupt", s.exits.external_interrupt);
    m.counter(p + "host.entries", s.entries);
    m.counter(p + "host.l1d_flushes", s.l1d_flushes);
    m.counter(p + "host.verw_clears", s.verw_clears);
    m.counter(p + "exits.kick", s.exits.kick);
    m.counter(p + "exits.pause", s.exits.pause);
    m.counter(p + "exits.io", s.exits.io);
    m.counter(p + "exits.net", s.exits.net);
    m.counter(p + "exits.msr_poll_control", s.exits.msr_poll_control);
    m.counter(p + "host.halts_in_guest", s.halts_in_guest);
    m.counter(p + "host.hv_to_sw_timer", s.hv_to_sw_timer);
    m.counter(p + "host.timer_advance_waits", s.timer_advance_waits);
    m.counter(p + "host.timer_advance_wait_ns", s.timer_advance_wait_ns);
    m.gauge(p + "host.timer_advance_ns", v.timer_advance_ns());
    m.gauge(p + "host.ple_window", static_cast<double>(v.ple_window()));
    m.counter(p + "host.timer_polls", s.aware.timer_polls);
    m.counter(p + "host.reclaims", s.aware.reclaims);
    m.counter(p + "host.keeps", s.aware.keeps);
    m.counter(p + "host.amplified_wakeups", s.amplified_wakeups);
    m.counter(p + "host.amplifier_ns", s.amplifier_ns);
    // guest side
    GuestCpu& c = k.cpu(i);
    const TickSchedStats& ts = c.tick().stats();
    m.counter(p + "tick.idle_calls", ts.idle_calls);
    m.counter(p + "tick.idle_sleeps", ts.idle_sleeps);
    m.counter(p + "tick.ticks", ts.ticks);
    m.counter(p + "tick.ticks_idle", ts.ticks_idle);
    m.counter(p + "tick.ticks_busy", ts.ticks_busy);
    m.counter(p + "tick.stops", ts.stops);
    m.counter(p + "tick.restarts", ts.restarts);
    m.counter(p + "tick.retains", ts.retains);
    m.counter(p + "tick.do_timer_handovers", ts.do_timer_handovers);
    m.counter(p + "tick.do_timer_takeovers", ts.do_timer_takeovers);
    m.counter(p + "tick.ticks_user", ts.ticks_user);
    m.counter(p + "tick.ticks_polling", ts.ticks_polling);
    m.counter(p + "tick.kept_for_reason", ts.kept_for_reason);
    m.counter(p + "tick.user_entry_stops", ts.user_entry_stops);
    m.counter(p + "tick.dep_kicks", ts.dep_kicks);
    m.counter(p + "tick.nohz_kicks", c.nohz_kicks);
    m.counter(p + "timers.background", c.background_timers);
    const CpuidleStats& cs = c.cpuidle().stats;
    m.counter(p + "cpuidle.poll_entries", cs.poll_entries);
    m.counter(p + "cpuidle.poll_timeouts", cs.poll_timeouts);
    m.counter(p + "cpuidle.poll_ns", cs.poll_ns);
    m.counter(p + "cpuidle.halt_entries", cs.halt_entries);
    m.counter(p + "cpuidle.busy", cs.busy);
    m.gauge(p + "cpuidle.poll_limit_ns", c.cpuidle().poll_limit_ns);
    Kcpustat ps = c.proc_stat(t);
    for (size_t j = 0; j < ps.size(); ++j) m.counter(p + "proc_stat." + cputime_name(static_cast<Cputime>(j)) + "_ns", ps[j]);
    const ClockeventStats& ce = c.clockevent().stats();
    m.counter(p + "clockevent.program", ce.program);
    m.counter(p + "clockevent.stop", ce.stop);
    m.counter(p + "clockevent.restart", ce.restart);
    m.counter(p + "clockevent.deadline_writes", ce.deadline_writes);
    m.counter(p + "clockevent.control_writes", ce.control_writes);
    m.counter(p + "idle.episodes", c.idle_stats.episodes);
    m.counter(p + "idle.halts", c.idle_stats.halts);
    m.counter(p + "idle.halt_skipped", c.idle_stats.halt_skipped);
    m.counter(p + "idle.retained_halts", c.idle_stats.retained_halts);
    m.counter(p + "idle.tick_woken_halts", c.idle_stats.tick_woken_halts);
    for (size_t j = 0; j < c.irqs.size(); ++j) m.counter(p + "irqs." + irq_vector_name(static_cast<IrqVector>(j)), c.irqs[j]);
    auto gt = c.time_.totals(t);
    for (size_t j = 0; j < gt.size(); ++j) m.counter(p + "guest_time." + guest_cpu_state_name(static_cast<GuestCpuState>(j)) + "_ns", gt[j]);
  }
  for (const auto& task : k.tasks()) {
    const std::string p = "task." + std::to_string(task->pid) + "." + task->comm + ".";
    m.counter(p + "ops", task->ops);
    m.counter(p + "runtime_ns", task->runtime);
    m.counter(p + "wakeups", task->wakeups);
    m.counter(p + "migrations", task->migrations);
  }
  for (std::size_t i = 0; i < k.timer_probes.size(); ++i) {
    const TimerProbe& pr = k.timer_probes[i];
    const std::string p = "probe.timer" + std::to_string(i) + ".";
    m.gauge(p + "expiry_ns", pr.expiry);
    m.gauge(p + "fired_ns", pr.fired);
    m.gauge(p + "lateness_ns", pr.fired >= 0 ? pr.fired - pr.expiry : t - pr.expiry);
  }
  for (const auto& hw : machine.threads) {
    const std::string p = "pcpu" + std::to_string(hw->id()) + ".";
    auto b = hw->breakdown(t);
    sim_ns c0 = 0;
    for (size_t j = 0; j < b.size(); ++j) {
      m.counter(p + "time." + hw_activity_name(static_cast<HwActivity>(j)) + "_ns", b[j]);
      if (static_cast<HwActivity>(j) != HwActivity::Idle) c0 += b[j];
    }
    m.counter(p + "time.c0_ns", c0);  // host C0 residency: everything but idle
    auto cs = hw->idle_by_cstate(t);
    for (int j = 0; j < kNumCStates; ++j) m.counter(p + "idle." + lower(cstate_name(static_cast<HostCState>(j))) + "_ns", cs[j]);
    if (hw->sibling()) m.counter(p + "smt_co_busy_ns", hw->co_busy_ns(t));
    const HostCpuStats& hs = vm.sched().cpu(hw->id()).stats;
    m.counter(p + "sched.switches", hs.switches);
    m.counter(p + "sched.preemptions", hs.preemptions);
    for (int j = 0; j < kNumCStates; ++j) {
      std::string cs = cstate_name(static_cast<HostCState>(j));
      m.counter(p + "wakeups_from." + cs, hs.wakeups_from[j]);
      m.counter(p + "menu_choices." + cs, hs.menu_choices[j]);
    }
  }
  for (IoThread* io : {vm.iothread(), vm.vhost()}) {
    if (!io) continue;
    HostThreadStats st = io->stats();
    const std::string p = "host." + io->thread().name + ".";
    m.counter(p + "wakeups", st.wakeups);
    m.counter(p + "run_ns", st.run_ns);
    m.counter(p + "run_delay_ns", st.run_delay_ns);
  }
  for (std::size_t i = 0; i < vm.noise().size(); ++i) {
    HostThreadStats st = vm.noise()[i]->stats();
    std::string p = "host.noise" + std::to_string(i) + ".";
    m.counter(p + "wakeups", st.wakeups);
    m.counter(p + "run_ns", st.run_ns);
    m.counter(p + "run_delay_ns", st.run_delay_ns);
  }
}

}  // namespace

RunResult run_simulation(const Scenario& sc, const SimHooks& hooks) {
  RunResult res;
  auto wall0 = std::chrono::steady_clock::now();
  xbt_log_control_set("root.thres:critical");
  int argc = 1;
  char arg0[] = "vtick";
  char* argv[] = {arg0, nullptr};
  sg4::Engine engine(&argc, argv);
  watch_for_deadlock();
  set_fast_work_ns(sc.run.fast_work);
  set_quantum_ns(sc.run.quantum);
  set_event_sink(hooks.sink);

  std::unique_ptr<Machine> machine = build_machine(sc.shape.cores, sc.shape.threads_per_core, sc.costs);
  Kvm vm(*machine, sc.host, sc.run.seed);
  GuestKernel kernel(sc.guest, sc.vcpus, sc.run.seed);
  for (int i = 0; i < sc.vcpus; ++i) {
    KvmVcpu& v = vm.create_vcpu(i, machine->topology->placement(i));
    GuestCpu& c = kernel.cpu(i);
    c.attach(&v);
    v.set_guest(&c, [&c] { c.cpu_startup_entry(); });
  }
  WorkloadInfo info = install_workload(kernel, sc.workload, sc.run.seed);
  res.ops_name = info.metric_name;
  if (hooks.guest_setup) hooks.guest_setup(kernel);
  for (auto& hw : machine->threads) hw->start(0);
  for (int i = 0; i < sc.vcpus; ++i) vm.vcpu(i).start();
  vm.create_host_threads(sc.run.seed);
  vm.start_host_threads();
  if (hooks.host_setup) hooks.host_setup(*machine);
  if (hooks.vm_setup) hooks.vm_setup(vm, kernel);
  if (!sc.guest.hotplug.empty()) {
    // CPU hotplug driven from outside the vCPUs: cpu_down() then an interrupt so the CPU
    // notices; cpu_up() starts it again (INIT-SIPI / PSCI CPU_ON).
    GuestKernel* k = &kernel;
    Kvm* kvm = &vm;
    auto events = sc.guest.hotplug;
    spawn_actor("hotplug", machine->threads.front()->host(), [k, kvm, events] {
      for (const auto& ev : events) {
        sleep_until(ev.at);
        if (ev.online) kvm->vcpu(ev.cpu).power_on();
        else {
          k->cpu_down(ev.cpu);
          kvm->vcpu(ev.cpu).kvm_apic_accept_irq(IrqVector::Reschedule, now());
        }
      }
    });
  }
  if (sc.workload.kind == "nohz_full_test") {
    // the series' two checks: one timer queued from a device interrupt on the polling
    // nohz_full CPU, then two timers queued by one interrupt
    KvmVcpu* target = &vm.vcpu(sc.workload.geti("cpu"));
    sim_ns t1 = sc.run.duration - 90 * NSEC_PER_MSEC, t2 = sc.run.duration - 50 * NSEC_PER_MSEC;
    spawn_actor("probe-device", machine->threads.front()->host(), [target, t1, t2] {
      sleep_until(t1);
      target->inject_device_irq(timer_probe_token(1, 5 * NSEC_PER_MSEC), now());
      sleep_until(t2);
      target->inject_device_irq(timer_probe_token(2, 2 * NSEC_PER_MSEC), now());
    });
  }
  // The horizon actor keeps time running to the end even when every vCPU sleeps with no
  // timer armed, takes the two snapshots from inside the simulation (at the warm-up and
  // the end, to the nanosecond) and then stops every actor. (Engine::run_until() can
  // overshoot its date by a rounding error and then refuse to continue.)
  Metrics at_warmup, at_end;
  sim_ns end = -1;
  Doorbell horizon_bell("horizon");
  spawn_actor("horizon", machine->threads.front()->host(), [&] {
    while (now() < sc.run.warmup) wait_event(horizon_bell, sc.run.warmup);
    collect(at_warmup, now(), *machine, vm, kernel, sc.workload);
    kernel.wake_latency.clear();
    kernel.op_latency.clear();
    while (now() < sc.run.duration) wait_event(horizon_bell, sc.run.duration);
    end = now();
    collect(at_end, end, *machine, vm, kernel, sc.workload);
    request_stop();
  });
  // Progress: SimGrid calls this when its clock moves (the model's own clock can run
  // ahead of it, so this is a lower bound); connected once per process, like the engine.
  static std::function<void()>* progress_cb = nullptr;
  static bool progress_connected = false;
  sim_ns progress_next = 0, progress_step = std::max<sim_ns>(sc.run.duration / 100, 1);
  std::function<void()> progress = [&] {
    sim_ns t = from_seconds(sg4::Engine::get_clock());
    if (t < progress_next) return;
    progress_next = (t / progress_step + 1) * progress_step;
    hooks.progress(t);
  };
  if (hooks.progress) {
    progress_cb = &progress;
    if (!progress_connected) sg4::Engine::on_time_advance_cb([](double) { if (progress_cb) (*progress_cb)(); });
    progress_connected = true;
  }
  engine.run();
  progress_cb = nullptr;
  if (end < 0) {  // stopped by a failure before the end
    end = now();
    collect(at_end, end, *machine, vm, kernel, sc.workload);
  }
  res.metrics = at_end.since(at_warmup);
  res.measured_ns = end - std::min(sc.run.warmup, end);
  res.wake_latency_ns.assign(kernel.wake_latency.begin(), kernel.wake_latency.end());
  const SgEventCounts& ev = sg_event_counts();
  res.sg_events = ev.waits + ev.works + ev.rings;
  res.sg_detail[0] = ev.waits;
  res.sg_detail[1] = ev.works;
  res.sg_detail[2] = ev.executes;
  res.sg_detail[3] = ev.rings;
  res.sg_detail[4] = ev.run_aheads;

  if (simulation_failed()) {
    res.failed = true;
    res.error = failure_message();
  } else if (deadlock_detected()) {
    res.failed = true;
    res.error = "SimGrid detected a deadlock: every actor is blocked with nothing scheduled";
  } else if (end != sc.run.duration) {
    res.failed = true;
    res.error = "simulation stopped at " + format_duration(end) + " before its end " + format_duration(sc.run.duration);
  }
  set_event_sink(nullptr);
  res.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return res;
}

}  // namespace vtick
