// The results' counters: each stats struct's declared fields under its scope's prefix,
// and the families indexed by the model's enums (time per state, /proc/stat columns).
#include "sim/collect.hpp"

#include <regex>

#include "guest/kernel.hpp"
#include "guest/workloads.hpp"
#include "host/kvm.hpp"
#include "platform/sg_platform.hpp"
#include "sim/stats.hpp"

namespace vtick {

namespace {

template <class F>
std::vector<std::string> names(int count, F name) {
  std::vector<std::string> v;
  for (int i = 0; i < count; ++i) v.push_back(name(i));
  return v;
}

std::vector<std::string> vcpu_states() { return names(static_cast<int>(VcpuState::Count), [](int i) { return std::string(vcpu_state_name(static_cast<VcpuState>(i))); }); }
std::vector<std::string> guest_states() {
  return names(static_cast<int>(GuestCpuState::Count), [](int i) { return std::string(guest_cpu_state_name(static_cast<GuestCpuState>(i))); });
}
std::vector<std::string> cputimes() { return names(static_cast<int>(Cputime::Count), [](int i) { return std::string(cputime_name(static_cast<Cputime>(i))); }); }
std::vector<std::string> irq_vectors() { return names(static_cast<int>(IrqVector::Count), [](int i) { return std::string(irq_vector_name(static_cast<IrqVector>(i))); }); }
std::vector<std::string> hw_activities() { return names(static_cast<int>(HwActivity::Count), [](int i) { return std::string(hw_activity_name(static_cast<HwActivity>(i))); }); }
std::vector<std::string> cstates() { return enum_names_of<HostCState>(); }

template <class S>
void add(Metrics& m, const std::string& prefix, const S& s) {
  s.for_each_stat([&](const StatDesc& d, double v) {
    if (d.kind == StatKind::Counter) m.counter(prefix + d.name, v);
    else m.gauge(prefix + d.name, v);
  });
}

template <class Array>
void add_family(Metrics& m, const std::string& prefix, const std::string& pattern, const std::vector<std::string>& n, const Array& values) {
  for (std::size_t j = 0; j < n.size(); ++j) m.counter(prefix + stat_name(pattern, n[j]), static_cast<double>(values[j]));
}

// Per-task counters (struct task_struct / sched_entity), read by name.
const std::vector<StatDesc>& task_descs() {
  static const std::vector<StatDesc> d = {
      {"ops", "count", StatKind::Counter, "workload operations the task completed"},
      {"runtime_ns", "ns", StatKind::Counter, "se.sum_exec_runtime: time the task ran"},
      {"wakeups", "count", StatKind::Counter, "se.statistics.nr_wakeups"},
      {"migrations", "count", StatKind::Counter, "se.nr_migrations"},
  };
  return d;
}

}  // namespace

void read_metrics(Metrics& m, sim_ns t, Machine& machine, Kvm& vm, GuestKernel& k, const Workload& w) {
  m.counter("workload.ops", static_cast<double>(w.ops(k)));
  w.report(k, t, [&m](const std::string& name, double v, bool counter) {
    if (counter) m.counter(name, v);
    else m.gauge(name, v);
  });
  if (!w.op_latency().empty()) {
    m.gauge("workload.op_latency_p50_ns", static_cast<double>(w.op_latency().value_at_percentile(50)));
    m.gauge("workload.op_latency_p99_ns", static_cast<double>(w.op_latency().value_at_percentile(99)));
  }
  add(m, "sched.", k.sched_stats);
  k.packing_flush(t);
  add(m, "packing.", k.packing().stats());
  for (int i = 0; i < vm.nr_vcpus(); ++i) {
    const std::string p = "vcpu" + std::to_string(i) + ".";
    const KvmVcpu& v = vm.vcpu(i);
    const VcpuStats& s = v.stats();
    add(m, p, s);
    if (vm.costs().isa == Isa::Arm64) m.counter(p + "kvm.wfi_exit_stat", s.halt_exits);
    add(m, p, s.halt);
    add(m, p, s.exits);
    add(m, p, s.aware);
    m.counter(p + "exits.total", s.exits.total());
    m.gauge(p + "kvm.halt_poll_ns", v.halt_poll_ns());
    add_family(m, p, "host_time.{}_ns", vcpu_states(), v.time_in_state(t));
    m.counter(p + "steal_ns", v.steal_clock());
    m.counter(p + "host.run_delay_ns", v.host_thread().run_delay);
    m.counter(p + "host.preemptions", v.host_thread().preemptions);
    m.gauge(p + "host.timer_advance_ns", v.timer_advance_ns());
    m.gauge(p + "host.ple_window", static_cast<double>(v.ple_window()));
    GuestCpu& c = k.cpu(i);
    m.counter(p + "sched.packed_ns", k.packing().packed_ns(i));
    add(m, p + "tick.", c.tick().stats());
    add(m, p, c.idle_stats);
    add(m, p + "cpuidle.", c.cpuidle().stats);
    m.gauge(p + "cpuidle.poll_limit_ns", c.cpuidle().poll_limit_ns);
    add_family(m, p, "proc_stat.{}_ns", cputimes(), c.proc_stat(t));
    add(m, p + "clockevent.", c.clockevent().stats());
    add(m, p, c.cputime().stats());
    add_family(m, p, "irqs.{}", irq_vectors(), c.irqs);
    add_family(m, p, "guest_time.{}_ns", guest_states(), c.time_.totals(t));
  }
  for (const auto& task : k.tasks()) {
    const std::string p = "task." + std::to_string(task->pid) + "." + task->comm + ".";
    const double v[] = {static_cast<double>(task->ops), static_cast<double>(task->runtime), static_cast<double>(task->wakeups),
                        static_cast<double>(task->migrations)};
    for (std::size_t j = 0; j < task_descs().size(); ++j) m.counter(p + task_descs()[j].name, v[j]);
  }
  for (const auto& hw : machine.threads) {
    const std::string p = "pcpu" + std::to_string(hw->id()) + ".";
    auto b = hw->breakdown(t);
    add_family(m, p, "time.{}_ns", hw_activities(), b);
    sim_ns c0 = 0;
    for (size_t j = 0; j < b.size(); ++j)
      if (static_cast<HwActivity>(j) != HwActivity::Idle) c0 += b[j];
    m.counter(p + "time.c0_ns", c0);
    add_family(m, p, "idle.{}_ns", cstates(), hw->idle_by_cstate(t));
    if (hw->sibling()) m.counter(p + "smt_co_busy_ns", hw->co_busy_ns(t));
    const HostCpuStats& hs = vm.sched().cpu(hw->id()).stats;
    add(m, p, hs);
    add_family(m, p, "wakeups_from.{}", cstates(), hs.wakeups_from);
    add_family(m, p, "idle_choices.{}", cstates(), hs.idle_choices);
  }
  for (IoThread* io : {vm.iothread(), vm.vhost()})
    if (io) add(m, "host." + io->thread().name + ".", io->stats());
  for (std::size_t i = 0; i < vm.noise().size(); ++i) add(m, "host.noise" + std::to_string(i) + ".", vm.noise()[i]->stats());
}

const std::vector<MetricDoc>& metric_catalog() {
  static const std::vector<MetricDoc> cat = [] {
    std::vector<MetricDoc> v;
    auto put = [&](const std::string& prefix, const std::vector<StatDesc>& ds) {
      for (const auto& d : ds) v.push_back({prefix + d.name, d.unit, d.kind, d.help});
    };
    auto one = [&](const std::string& name, const char* unit, StatKind kind, const char* help) { v.push_back({name, unit, kind, help}); };
    auto family = [&](const std::string& prefix, const std::string& pattern, const std::vector<std::string>& n, const char* unit,
                      const char* help) { put(prefix, stat_family(pattern, n, unit, StatKind::Counter, help)); };
    const StatKind C = StatKind::Counter, G = StatKind::Gauge;
    one("workload.ops", "count", C, "workload operations completed (the headline metric's count)");
    one("workload.exited_tasks", "count", G, "tasks that exited (hackbench)");
    one("workload.last_exit_ns", "ns", G, "when the last task exited (-1: none)");
    one("workload.op_latency_p50_ns", "ns", G, "median duration of a measured op (e.g. an OLTP transaction), in the window");
    one("workload.op_latency_p99_ns", "ns", G, "99th percentile of it");
    put("sched.", SchedStats::descs());
    put("packing.", PackingStats::descs());
    const std::string V = "vcpu<N>.";
    put(V, VcpuStats::descs());
    one(V + "kvm.wfi_exit_stat", "count", C, "arm64 stat.wfi_exit_stat: WFI exits that reach kvm_vcpu_halt() (= halt_exits)");
    put(V, KvmHaltStats::descs());
    put(V, ExitStats::descs());
    put(V, TimerAwareStats::descs());
    one(V + "exits.total", "count", C, "VM exits of every reason (their sum)");
    one(V + "kvm.halt_poll_ns", "ns", G, "vcpu->halt_poll_ns: the poll window at the end");
    family(V, "host_time.{}_ns", vcpu_states(), "ns", "vCPU thread time by state as the host sees it");
    one(V + "steal_ns", "ns", C, "steal time the guest reads (run_delay through MSR_KVM_STEAL_TIME / PV_TIME_ST)");
    one(V + "host.run_delay_ns", "ns", C, "schedstat run_delay of the vCPU thread: runnable, not running");
    one(V + "host.preemptions", "count", C, "the vCPU thread preempted by another host thread");
    one(V + "host.timer_advance_ns", "ns", G, "lapic timer_advance_ns at the end (x86, adaptive)");
    one(V + "host.ple_window", "cycles", G, "the pause-loop window at the end (x86)");
    one(V + "sched.packed_ns", "ns", C, "time this vCPU had >= 2 runnable tasks while another vCPU was idle");
    put(V + "tick.", TickSchedStats::descs());
    put(V, IdleStats::descs());
    put(V + "cpuidle.", CpuidleStats::descs());
    one(V + "cpuidle.poll_limit_ns", "ns", G, "the haltpoll governor's poll limit at the end (dev->poll_limit_ns)");
    family(V, "proc_stat.{}_ns", cputimes(), "ns", "/proc/stat column of this CPU under the configured cputime scheme");
    put(V + "clockevent.", ClockeventStats::descs());
    put(V, CputimeStats::descs());
    family(V, "irqs.{}", irq_vectors(), "count", "interrupts taken by vector (/proc/interrupts)");
    family(V, "guest_time.{}_ns", guest_states(), "ns", "guest CPU time by state as the guest sees it");
    put("task.<pid>.<comm>.", task_descs());
    one("probe.timer<I>.expiry_ns", "ns", G, "nohz_full_test: when a probe timer was asked to fire");
    one("probe.timer<I>.fired_ns", "ns", G, "nohz_full_test: when it ran (-1: not by the end)");
    one("probe.timer<I>.lateness_ns", "ns", G, "nohz_full_test: how late it ran (or is, at the end)");
    const std::string T = "pcpu<T>.";
    family(T, "time.{}_ns", hw_activities(), "ns", "hardware thread time by activity");
    one(T + "time.c0_ns", "ns", C, "host C0 residency: every activity but idle");
    family(T, "idle.{}_ns", cstates(), "ns", "idle time by the C-state asked for");
    one(T + "smt_co_busy_ns", "ns", C, "time both SMT siblings of the core were busy");
    put(T, HostCpuStats::descs());
    family(T, "wakeups_from.{}", cstates(), "count", "wake-ups of the idle hardware thread by the C-state left");
    family(T, "idle_choices.{}", cstates(), "count", "the host idle governor's C-state choices");
    put("host.<thread>.", HostThreadStats::descs());
    return v;
  }();
  return cat;
}

std::string metric_pattern(const std::string& name) {
  static const std::vector<std::pair<std::regex, std::string>> scopes = {
      {std::regex(R"(^vcpu\d+\.)"), "vcpu<N>."},
      {std::regex(R"(^pcpu\d+\.)"), "pcpu<T>."},
      {std::regex(R"(^task\.\d+\.[^.]+\.)"), "task.<pid>.<comm>."},
      {std::regex(R"(^probe\.timer\d+\.)"), "probe.timer<I>."},
      {std::regex(R"(^host\.(iothread|vhost|noise\d+)\.)"), "host.<thread>."},
  };
  std::string p = name;
  for (const auto& [re, rep] : scopes) p = std::regex_replace(p, re, rep);
  for (const auto& d : metric_catalog())
    if (d.name == p) return p;
  return "";
}

}  // namespace vtick
