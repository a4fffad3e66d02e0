#include "sim/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <simgrid/s4u.hpp>
#include <sys/resource.h>
#include <xbt/config.hpp>
#include <xbt/log.h>

#include "core/sg.hpp"
#include "core/trace.hpp"
#include "guest/kernel.hpp"
#include "guest/workloads.hpp"
#include "host/kvm.hpp"
#include "platform/sg_platform.hpp"
#include "sim/collect.hpp"
#include "sim/invariants.hpp"

namespace vtick {

namespace sg4 = simgrid::s4u;

namespace {

// A workload's test device (guest/workloads.hpp): an actor on the first hardware thread
// that raises MSIs on the VM's vCPUs.
class SimTestDevice final : public TestDevice {
 public:
  SimTestDevice(Kvm& vm, sim_ns end) : vm_(vm), end_(end) {}
  void start(std::function<void()> body) override {
    spawn_actor("probe-device", vm_.machine().threads.front()->host(), std::move(body));
  }
  void sleep_until(sim_ns t) override { vtick::sleep_until(t); }
  void raise(int cpu, std::uint64_t request) override { vm_.vcpu(cpu).inject_device_irq(request, now()); }
  sim_ns run_end() const override { return end_; }

 private:
  Kvm& vm_;
  sim_ns end_;
};

}  // namespace

namespace {

}  // namespace

RunResult run_simulation(const Scenario& sc, const SimHooks& hooks) {
  RunResult res;
  auto wall0 = std::chrono::steady_clock::now();
  xbt_log_control_set("root.thres:critical");
  // SimGrid's options on its command line: some (contexts/factory) are read only when the
  // engine starts. Event times to 1 ps, not SimGrid's default 1 ns: a step timed by SimGrid
  // and the same step run ahead of the clock (integer ns) then end at the same nanosecond.
  std::vector<std::string> args = {"vtick", "--cfg=surf/precision:1e-12"};
  const std::vector<std::string> env_cfg = simgrid_env_cfg();
  std::vector<std::string> cfg = env_cfg;
  cfg.insert(cfg.end(), hooks.sg_cfg.begin(), hooks.sg_cfg.end());
  for (const auto& c : cfg) args.push_back("--cfg=" + c);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  std::unique_ptr<sg4::Engine> engine_owner;
  try {
    engine_owner = std::make_unique<sg4::Engine>(&argc, argv.data());
  } catch (const std::exception& e) {  // after its first line SimGrid lists "  key: (type)default" for every key
    std::string m = e.what(), keys, given;
    std::size_t nl = m.find('\n');
    for (std::size_t at = m.find("\n  ", nl); at != std::string::npos; at = m.find("\n  ", at + 1)) {
      std::size_t b = at + 3, e2 = m.find(':', b);
      if (e2 != std::string::npos) keys += (keys.empty() ? "" : ", ") + m.substr(b, e2 - b);
    }
    // the options as the user gave them: on the command line, and in VTICK_SG_CFG
    for (const auto& c : hooks.sg_cfg) given += (given.empty() ? "--sg-cfg '" : " '") + c + "'";
    std::string env;
    for (const auto& c : env_cfg) env += (env.empty() ? "VTICK_SG_CFG '" : " '") + c + "'";
    if (given.empty()) given = env;
    else if (!env.empty()) given += " (with " + env + ")";
    res.failed = res.input_error = true;
    res.error = given + ": " + m.substr(0, nl) + (keys.empty() ? "" : "; SimGrid's keys: " + keys);
    return res;
  }
  sg4::Engine& engine = *engine_owner;
  watch_for_deadlock();
  set_step_scheduler(sc.run.scheduler);
  set_fast_work_ns(sc.run.fast_work);
  set_timed_work(sc.run.timed_work);
  set_quantum_ns(sc.run.quantum);
  set_event_sink(hooks.sink);

  // Every actor gets a SimGrid stack (contexts/stack-size, 8 MiB by default) in address
  // space: under a limit (ulimit -v, as cluster jobs have) a large VM would abort in
  // SimGrid's allocation. Say so before: the vCPUs, up to 4 host threads per hardware
  // thread's worth of I/O and noise, the horizon and the devices.
  {
    rlimit as{};
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
      double stack = simgrid::config::get_value<int>("contexts/stack-size") * 1024.0;
      double actors = sc.vcpus + sc.host.noise.threads + 8;
      double need = actors * stack + 512.0 * 1024 * 1024;  // and the process itself
      if (need > static_cast<double>(as.rlim_cur)) {
        res.failed = res.input_error = true;
        char msg[400];
        std::snprintf(msg, sizeof msg,
                      "%.0f actors with SimGrid stacks of %.0f KiB need about %.1f GiB of address space, above this "
                      "process's limit (ulimit -v) of %.1f GiB: raise the limit, or give smaller stacks with "
                      "--sg-cfg contexts/stack-size:KIB (vtick's actors use well under 1 MiB)",
                      actors, stack / 1024, need / (1 << 30), static_cast<double>(as.rlim_cur) / (1 << 30));
        res.error = msg;
        return res;
      }
    }
  }
  std::unique_ptr<Machine> machine = build_machine(sc.shape.cores, sc.shape.threads_per_core, sc.costs);
  Kvm vm(*machine, sc.host, sc.run.seed);
  GuestKernel kernel(sc.guest, sc.vcpus, sc.run.seed);
  for (int i = 0; i < sc.vcpus; ++i) {
    KvmVcpu& v = vm.create_vcpu(i, machine->topology->placement(i));
    GuestCpu& c = kernel.cpu(i);
    c.attach(&v);
    v.set_guest(&c, [&c] { c.cpu_startup_entry(); });
  }
  std::unique_ptr<Workload> workload = make_workload(sc.workload);
  workload->install(kernel, sc.workload, sc.run.seed);
  install_background(kernel, sc.guest.background);
  res.ops_name = workload_kind(sc.workload.kind).ops_name;
  if (hooks.guest_setup) hooks.guest_setup(kernel);
  for (auto& hw : machine->threads) hw->start(0);
  for (int i = 0; i < sc.vcpus; ++i) vm.vcpu(i).start();
  vm.create_host_threads();
  vm.start_host_threads();
  if (hooks.host_setup) hooks.host_setup(*machine);
  if (hooks.vm_setup) hooks.vm_setup(vm, kernel);
  if (!sc.guest.hotplug_events.empty()) {
    // CPU hotplug driven from outside the vCPUs: cpu_down() then an interrupt so the CPU
    // notices; cpu_up() starts it again (INIT-SIPI / PSCI CPU_ON).
    GuestKernel* k = &kernel;
    Kvm* kvm = &vm;
    auto events = sc.guest.hotplug_events;
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
  SimTestDevice device(vm, sc.run.duration);
  workload->start_devices(device);
  // The horizon actor keeps time running to the end even when every vCPU sleeps with no
  // timer armed, takes the two snapshots from inside the simulation (at the warm-up and
  // the end, to the nanosecond) and then stops every actor. (Engine::run_until() can
  // overshoot its date by a rounding error and then refuse to continue.)
  Metrics at_warmup, at_end;
  std::vector<sim_ns> poll_open;
  sim_ns end = -1;
  Doorbell horizon_bell("horizon");
  spawn_actor("horizon", machine->threads.front()->host(), [&] {
    while (now() < sc.run.warmup) wait_event(horizon_bell, sc.run.warmup);
    vm.sched().sync_idle(now());  // idle CPUs' tick and POLL wake-ups replayed up to here
    read_metrics(at_warmup, now(), *machine, vm, kernel, *workload);
    kernel.wake_latency.clear();
    workload->start_window();
    while (now() < sc.run.duration) wait_event(horizon_bell, sc.run.duration);
    end = now();
    vm.sched().sync_idle(end);
    read_metrics(at_end, end, *machine, vm, kernel, *workload);
    for (int i = 0; i < vm.nr_vcpus(); ++i) poll_open.push_back(vm.vcpu(i).poll_open_ns(end));
    request_stop();
  }, true);
  // Progress, as the clock moves (under the SimGrid scheduler the model's clock can run
  // ahead of SimGrid's, so this is a lower bound).
  sim_ns progress_next = 0, progress_step = std::max<sim_ns>(sc.run.duration / 100, 1);
  if (hooks.progress)
    set_time_hook([&](sim_ns t) {
      if (t < progress_next) return;
      progress_next = (t / progress_step + 1) * progress_step;
      hooks.progress(t);
    });
  engine.run();
  set_time_hook(nullptr);
  if (end < 0) {  // stopped by a failure before the end
    end = engine_clock();
    read_metrics(at_end, end, *machine, vm, kernel, *workload);
  }
  res.metrics = at_end.since(at_warmup);
  res.measured_ns = end - std::min(sc.run.warmup, end);
  res.wake_latency = kernel.wake_latency;
  res.op_latency = workload->op_latency();
  const SgEventCounts& ev = sg_event_counts();
  // SimGrid activities: none under the vtick scheduler (its actors are fibers inside one
  // SimGrid actor, core/fiber.hpp; the hand-offs between them are in sg_detail.handoffs)
  res.sg_events = sc.run.scheduler == StepScheduler::Vtick ? 0 : ev.waits + ev.works + ev.rings;
  res.sg_detail = ev;

  if (simulation_failed()) {
    res.failed = true;
    res.error = failure_message();
  } else if (deadlock_detected()) {
    res.failed = true;
    res.error = "SimGrid detected a deadlock: every actor is blocked with nothing scheduled";
  } else if (end != sc.run.duration) {
    res.failed = true;
    res.error = "simulation stopped at " + format_duration(end) + " before its end " + format_duration(sc.run.duration);
  } else {
    InvariantInputs in{end, sc.vcpus, static_cast<int>(machine->threads.size()), sc.guest.tick_nsec(), sc.host.timer_aware.reclaim,
                       sc.guest.cputime == CputimeScheme::Old, !sc.guest.hotplug_events.empty(), poll_open};
    InvariantResult inv = check_invariants(at_end, res.metrics, in);
    res.invariants_checked = inv.checked;
    if (!inv.broken.empty()) {
      res.failed = true;
      res.error = "invariant broken: " + inv.broken;
    }
  }
  set_event_sink(nullptr);
  res.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return res;
}

}  // namespace vtick
