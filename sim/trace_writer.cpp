// Model events -> trace tracks (what runs on each hardware thread, vCPU thread, vCPU,
// tick and guest task), with the kernel's and KVM's tracepoint names, and the tracepoint
// records the ftrace outputs write (sim/ftrace_events.hpp).
#include "sim/trace_writer.hpp"

#include <algorithm>
#include <cstring>

#include "guest/kernel.hpp"
#include "host/kvm.hpp"
#include "sim/scenario.hpp"

namespace vtick {

namespace {

std::string cut_comm(std::string c) {
  if (c.size() >= static_cast<std::size_t>(kTaskCommLen)) c.resize(kTaskCommLen - 1);
  return c;
}

// sched_switch's prev_state bits (__trace_sched_switch_state): TASK_REPORT_MAX when preempted.
std::int64_t prev_state_bits(const char* s) {
  if (!s || std::strcmp(s, "R") == 0) return 0;
  if (std::strcmp(s, "R+") == 0) return 0x100;
  if (std::strcmp(s, "D") == 0) return 0x02;
  if (std::strcmp(s, "Z") == 0) return 0x20;
  return 0x01;  // S
}

// The exit as kvm_exit records it: VMX basic exit reason / SVM exit code (x86), or
// exception type and ESR_ELx.EC (arm64, ARM_EXCEPTION_TRAP = 2, ARM_EXCEPTION_IRQ = 0).
int vmx_reason(ExitReason r) {
  switch (r) {
    case ExitReason::Hlt: return 12;                                          // EXIT_REASON_HLT
    case ExitReason::TimerExpiry: return 52;                                  // EXIT_REASON_PREEMPTION_TIMER
    case ExitReason::ExternalInterrupt: case ExitReason::Kick: return 1;      // EXIT_REASON_EXTERNAL_INTERRUPT
    case ExitReason::Pause: return 40;                                        // EXIT_REASON_PAUSE_INSTRUCTION
    case ExitReason::Io: case ExitReason::Net: return 49;                     // EXIT_REASON_EPT_MISCONFIG
    default: return 32;                                                       // EXIT_REASON_MSR_WRITE
  }
}
int svm_code(ExitReason r) {
  switch (r) {
    case ExitReason::Hlt: return 0x078;                                       // SVM_EXIT_HLT
    case ExitReason::TimerExpiry: case ExitReason::ExternalInterrupt: case ExitReason::Kick: return 0x060;  // SVM_EXIT_INTR
    case ExitReason::Pause: return 0x077;                                     // SVM_EXIT_PAUSE
    case ExitReason::Io: case ExitReason::Net: return 0x400;                  // SVM_EXIT_NPF
    default: return 0x07c;                                                    // SVM_EXIT_MSR
  }
}
std::pair<int, int> arm64_exit(ExitReason r) {
  switch (r) {
    case ExitReason::Hlt: case ExitReason::Pause: return {2, 0x01};           // TRAP, ESR_ELx_EC_WFx
    case ExitReason::PollControl: return {2, 0x16};                           // TRAP, HVC64
    case ExitReason::Io: case ExitReason::Net: return {2, 0x24};              // TRAP, DABT_LOW
    case ExitReason::TscDeadline: case ExitReason::Lvtt: case ExitReason::Ipi: return {2, 0x18};  // TRAP, SYS64
    default: return {0, 0};                                                   // IRQ (esr_ec 0)
  }
}

// The guest-side tracepoint of an interrupt's entry (x86 irq_vectors.h, arm64 ipi_entry).
const char* irq_entry_name(int vector, bool x86) {
  switch (static_cast<IrqVector>(vector)) {
    case IrqVector::LocalTimer: return x86 ? "local_timer_entry" : "irq_handler_entry";
    case IrqVector::Reschedule: return x86 ? "reschedule_entry" : "ipi_entry";
    case IrqVector::CallFunction: return x86 ? "call_function_single_entry" : "ipi_entry";
    default: return "irq_handler_entry";
  }
}

}  // namespace

TraceTopology trace_topology(const Scenario& sc, Kvm& vm, GuestKernel& k) {
  TraceTopology t;
  t.scenario = sc.source;
  t.seed = sc.run.seed;
  Machine& m = vm.machine();
  t.x86 = m.costs.isa == Isa::X86_64;
  t.svm = m.costs.name == "milan";
  t.host_name = "host: " + sc.shape.name + " (" + sc.shape.arch + ", " + std::to_string(sc.shape.cores) + " core x " +
                std::to_string(sc.shape.threads_per_core) + " threads)";
  t.vm_name = "vm0: " + std::to_string(sc.vcpus) + " vCPUs, HZ=" + std::to_string(sc.guest.hz) + ", " + enum_name(sc.guest.tick_policy);
  for (const auto& hw : m.threads) {
    t.pcpu_names.push_back(hw->name());
    t.pcpu_nr_running.push_back(vm.sched().cpu(hw->id()).nr_running());
  }
  t.vcpus = vm.nr_vcpus();
  for (const auto& task : k.tasks()) t.tasks[task->pid] = task->comm;
  return t;
}

bool parse_trace_window(const std::string& text, sim_ns& start, sim_ns& end, std::string& err) {
  auto colon = text.find(':');
  if (colon == std::string::npos) {
    err = "expected START:END durations like 10ms:30ms, got '" + text + "'";
    return false;
  }
  std::string a = text.substr(0, colon), b = text.substr(colon + 1);
  sim_ns s = 0, e = KTIME_MAX;
  if ((!a.empty() && !parse_duration(a, s)) || (!b.empty() && !parse_duration(b, e)) || s < 0) {
    err = "expected START:END durations like 10ms:30ms, got '" + text + "'";
    return false;
  }
  if (e <= s) {
    err = "END must be after START in '" + text + "'";
    return false;
  }
  start = s;
  end = e;
  return true;
}

TraceWriter::TraceWriter(sim_ns window_start, sim_ns window_end) : ws_(window_start), we_(window_end) {}

void TraceWriter::describe(const TraceTopology& topo) {
  topo_ = topo;
  pcpus_.assign(topo.pcpu_names.size(), PcpuView{});
  vcpus_.assign(static_cast<std::size_t>(topo.vcpus), VcpuView{});
  for (std::size_t h = 0; h < topo.pcpu_names.size(); ++h) {
    int i = static_cast<int>(h);
    Track& p = pcpu_track(i);
    p.name = "pCPU" + std::to_string(h) + " (" + topo.pcpu_names[h] + ")";
    p.comm = "pcpu" + std::to_string(h);
    p.fpid = kFtraceHostMarks + 1 + i;
    p.ftgid = kFtraceHostMarks;
    p.cpu = i;
    counters_[{kTraceHostPid, "pCPU" + std::to_string(h) + " runqueue"}] = {"nr_running", topo.pcpu_nr_running[h], p.tid};
    // hardware threads start idle (HwThread::start)
    queue_.push({model_event(0, -1 - i, ev::hw_activity{HwActivity::Idle, HostCState::C1}), next_seq_++});
  }
  for (int v = 0; v < topo.vcpus; ++v) {
    std::string n = "vCPU" + std::to_string(v);
    Track& kvm = kvm_track(v);
    kvm.name = n + " thread (KVM)";
    kvm.comm = "CPU " + std::to_string(v) + "/KVM";  // QEMU's name for its vCPU threads
    kvm.fpid = kFtraceVmm + 1 + v;
    kvm.ftgid = kFtraceVmm;
    vcpu_track(v).name = n;
    vcpu_track(v).cpu = sched_track(v).cpu = tick_track(v).cpu = v;
    vcpu_track(v).comm = "vcpu" + std::to_string(v);
    vcpu_track(v).fpid = kFtraceGuestMarks + 1 + 2 * v;
    sched_track(v).name = n + " sched";
    tick_track(v).name = n + " tick";
    tick_track(v).comm = "vcpu" + std::to_string(v) + "_tick";
    tick_track(v).fpid = kFtraceGuestMarks + 2 + 2 * v;
    vcpu_track(v).ftgid = tick_track(v).ftgid = kFtraceGuestMarks;
    counters_[{kTraceVmPid, n + " tick"}] = {"stopped", 0, vcpu_track(v).tid};
    counters_[{kTraceVmPid, n + " runqueue"}] = {"nr_running", 0, vcpu_track(v).tid};
    counters_[{kTraceHostPid, n + " kvm"}] = {"halt_poll_ns", 0, kvm.tid};
  }
  for (const auto& [pid, c] : topo.tasks) task_track(pid);
}

TraceWriter::Track& TraceWriter::track(int pid, int tid) {
  Track& t = tracks_[{pid, tid}];
  if (t.pid == 0) {
    t.pid = pid;
    t.tid = tid;
    t.marks = pid == kTraceHostPid || (tid >= 10000 && tid < 20000 && (tid - 10000) % 4 != 1);
    t.host = pid == kTraceHostPid;
    t.name = "track " + std::to_string(tid);
    t.comm = "track" + std::to_string(tid);
  }
  return t;
}

TraceWriter::Track& TraceWriter::task_track(int pid) {
  bool fresh = !tracks_.count({kTraceVmPid, 20000 + pid});
  Track& t = track(kTraceVmPid, 20000 + pid);
  if (fresh) t.name = comm(pid) + " (pid " + std::to_string(pid) + ")";
  return t;
}

std::string TraceWriter::comm(int pid) const {
  auto it = topo_.tasks.find(pid);
  return cut_comm(it != topo_.tasks.end() ? it->second : "task" + std::to_string(pid));
}

TraceWriter::VcpuView& TraceWriter::vcpu(int v) {
  if (v >= static_cast<int>(vcpus_.size())) vcpus_.resize(static_cast<std::size_t>(v) + 1);
  return vcpus_[static_cast<std::size_t>(v)];
}
TraceWriter::PcpuView& TraceWriter::pcpu(int h) {
  if (h >= static_cast<int>(pcpus_.size())) pcpus_.resize(static_cast<std::size_t>(h) + 1);
  return pcpus_[static_cast<std::size_t>(h)];
}
TraceWriter::TaskView& TraceWriter::task(int pid) { return tasks_[pid]; }

// ---- output items -------------------------------------------------------------

void TraceWriter::set_slice(Track& tr, sim_ns t, std::uint64_t seq, std::string name, const char* cat, int cpu) {
  if (tr.open) {
    if (tr.sname == name && std::strcmp(tr.cat, cat) == 0) return;
    end_slice(tr, t);
    t = std::max(t, tr.ts);  // an event from behind: never overlap the slice before
  }
  tr.open = true;
  tr.ts = t;
  tr.seq = seq;
  tr.sname = std::move(name);
  tr.cat = cat;
  tr.cpu = cpu;
}

void TraceWriter::end_slice(Track& tr, sim_ns t) {
  if (!tr.open) return;
  tr.open = false;
  sim_ns b = std::max(tr.ts, ws_), e = std::min(std::max(t, tr.ts), we_);
  if (e <= b) return;  // empty, or outside the window
  TraceRecord r;
  r.ph = 'X';
  r.pid = tr.pid;
  r.tid = tr.tid;
  r.cpu = tr.cpu;
  r.ts = b;
  r.dur = e - b;
  r.seq = tr.seq;
  r.cat = tr.cat;
  r.name = std::move(tr.sname);
  if (tr.reached) r.args[static_cast<std::size_t>(r.nargs++)] = {"reached", 0, tr.reached};
  tr.reached = nullptr;
  out_.push_back(std::move(r));
}

void TraceWriter::instant(Track& tr, sim_ns t, std::uint64_t seq, std::string name, const char* cat,
                          std::initializer_list<TraceArg> args, const char* mark) {
  if (t < ws_ || t > we_) return;
  TraceRecord r;
  r.ph = 'i';
  r.pid = tr.pid;
  r.tid = tr.tid;
  r.cpu = tr.cpu;
  r.ts = t;
  r.seq = seq;
  r.cat = cat;
  r.name = std::move(name);
  r.mark = mark;
  for (const TraceArg& a : args)
    if (r.nargs < static_cast<int>(r.args.size())) r.args[static_cast<std::size_t>(r.nargs++)] = a;
  out_.push_back(std::move(r));
}

void TraceWriter::counter(const Track& owner, const std::string& name, const char* key, std::int64_t v, sim_ns t,
                          std::uint64_t seq) {
  int pid = owner.pid;
  auto [it, fresh] = counters_.try_emplace({pid, name}, Counter{key, v, owner.tid});
  if (!fresh && it->second.v == v) return;
  it->second.v = v;
  if (!window_open_ || t > we_) return;  // open_window() writes the value at the start
  TraceRecord r;
  r.ph = 'C';
  r.pid = pid;
  r.tid = owner.tid;
  r.cpu = owner.cpu;
  r.ts = t;
  r.seq = seq;
  r.name = name;
  r.args[0] = {key, v};
  r.nargs = 1;
  out_.push_back(std::move(r));
}

FtraceEvent* TraceWriter::guest_event(int v, sim_ns t, std::uint64_t seq, Tp tp, std::uint8_t flags, std::uint8_t preempt) {
  if (t < ws_ || t > we_) return nullptr;
  FtraceEvent& e = fevents_.emplace_back();
  int curr = vcpu(v).curr;
  e.ts = t;
  e.seq = seq;
  e.sub = static_cast<int>(fevents_.size());
  e.cpu = v;
  e.pid = curr;
  e.comm = curr ? comm(curr) : "<idle>";
  e.tp = tp;
  e.flags = flags;
  e.preempt = preempt;
  return &e;
}

FtraceEvent* TraceWriter::host_event(int v, sim_ns t, std::uint64_t seq, Tp tp, std::uint8_t flags, std::uint8_t preempt) {
  if (t < ws_ || t > we_) return nullptr;
  const Track& k = kvm_track(v);
  FtraceEvent& e = fevents_.emplace_back();
  e.ts = t;
  e.seq = seq;
  e.sub = static_cast<int>(fevents_.size());
  e.host = true;
  e.cpu = k.cpu;
  e.pid = k.fpid;
  e.comm = k.comm;
  e.tp = tp;
  e.flags = flags;
  e.preempt = preempt;
  return &e;
}

// hrtimer=%p: each timer gets an address of its own, in order of first appearance.
std::uint64_t TraceWriter::timer_address(const void* timer) {
  auto [it, fresh] = timers_.try_emplace(timer, 0);
  if (fresh) it->second = 0xffff888000100000ULL + 0x40ULL * (timers_.size() - 1);  // the direct map, 64-byte apart
  return it->second;
}

std::map<int, std::string> TraceWriter::ftrace_tasks(bool host) const {
  std::map<int, std::string> m;
  for (const auto& [id, tr] : tracks_)
    if (tr.marks && tr.host == host && tr.fpid) m[tr.fpid] = tr.comm;
  if (host) {
    m[kFtraceVmm] = topo_.x86 ? "qemu-system-x86" : "qemu-system-aar";  // qemu-system-x86_64, -aarch64: cut at 15
  } else {
    for (const auto& [pid, c] : topo_.tasks) m[pid] = comm(pid);
  }
  return m;
}

void TraceWriter::open_window() {
  window_open_ = true;
  for (const auto& [id, c] : counters_) {
    TraceRecord r;
    r.ph = 'C';
    r.pid = id.first;
    r.tid = c.owner;
    r.cpu = tracks_.count({id.first, c.owner}) ? tracks_.at({id.first, c.owner}).cpu : 0;
    r.ts = ws_;
    r.name = id.second;
    r.args[0] = {c.key, c.v};
    r.nargs = 1;
    out_.push_back(std::move(r));
  }
}

// ---- events -------------------------------------------------------------------

void TraceWriter::on_event(const ModelEvent& e) {
  if (finished_) return;
  if (e.t > we_) {  // past the window: it can change nothing written
    newest_ = std::max(newest_, e.t);
    return;
  }
  queue_.push({e, next_seq_++});
  newest_ = std::max(newest_, e.t);
  while (!queue_.empty() && queue_.top().e.t < newest_ - kReorderNs) {
    Pending p = queue_.top();
    queue_.pop();
    process(p.e, p.seq);
  }
}

void TraceWriter::finish(sim_ns end) {
  if (finished_) return;
  while (!queue_.empty()) {
    Pending p = queue_.top();
    queue_.pop();
    process(p.e, p.seq);
  }
  sim_ns t = std::max(end, last_);
  end_ = std::max(ws_, std::min(t, we_));
  if (!window_open_ && t >= ws_) open_window();
  for (auto& [id, tr] : tracks_) end_slice(tr, t);
  std::stable_sort(out_.begin(), out_.end(), [](const TraceRecord& a, const TraceRecord& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.seq < b.seq;
  });
  finished_ = true;
}

void TraceWriter::process(const ModelEvent& e, std::uint64_t seq) {
  if (!window_open_ && e.t >= ws_) open_window();
  last_ = std::max(last_, e.t);
  if (process_host(e, seq) || process_guest_cpu(e, seq) || process_sched(e, seq)) return;
  process_tick(e, seq);
}

// Host and KVM events: the hardware threads' activity and C-states, vCPU states, exits,
// halts and halt polling, interrupt acceptance, the host timer.
bool TraceWriter::process_host(const ModelEvent& e, std::uint64_t seq) {
  const sim_ns t = e.t;
  const int v = e.cpu;  // a vCPU for guest and KVM events
  const bool x86 = topo_.x86;
  switch (e.id) {
    case EventId::HwActivity: {
      PcpuView& p = pcpu(-1 - e.cpu);
      p.activity = static_cast<int>(e.hw_activity.activity);
      p.cstate = static_cast<int>(e.hw_activity.cstate);
      refresh_pcpu(-1 - e.cpu, t, seq);
      break;
    }
    case EventId::KvmVcpuState: {
      int h = e.kvm_vcpu_state.hw;
      if (pcpu(h).owner != v) {
        pcpu(h).owner = v;
        refresh_pcpu(h, t, seq);
      }
      kvm_track(v).cpu = h;
      kvm_state(v, static_cast<int>(e.kvm_vcpu_state.state), t, seq);
      break;
    }
    case EventId::KvmExit: {
      ExitReason r = e.kvm_exit.reason;
      vcpu(v).pending = std::string("kvm_exit ") + exit_reason_name(r, x86);
      if (x86) {
        if (FtraceEvent* f = host_event(v, t, seq, Tp::KvmExit, TRACE_FLAG_IRQS_OFF, 1)) {
          f->v[0] = topo_.svm ? svm_code(r) : vmx_reason(r);  // exit_reason; guest_rip, info1/2: not modelled
          f->v[2] = topo_.svm ? KVM_ISA_SVM : KVM_ISA_VMX;
          f->v[7] = v;  // vcpu_id
        }
      } else if (FtraceEvent* f = host_event(v, t, seq, Tp::KvmExitArm64, TRACE_FLAG_IRQS_OFF, 1)) {
        auto [ret, ec] = arm64_exit(r);
        f->v[0] = ret;
        f->v[1] = ec;
      }
      break;
    }
    case EventId::KvmVcpuBlock:
      vcpu(v).pending = "kvm_vcpu_block";
      break;
    case EventId::KvmVcpuHalt:
      counter(kvm_track(v), "vCPU" + std::to_string(v) + " kvm", "halt_poll_ns", e.kvm_vcpu_halt.halt_poll_ns, t, seq);
      break;
    case EventId::KvmHaltPollNs: {
      const auto& f = e.kvm_halt_poll_ns;
      instant(kvm_track(v), t, seq, f.new_ns > f.old_ns ? "kvm_halt_poll_ns grow" : "kvm_halt_poll_ns shrink",
              "kvm.halt_poll_ns", {{"new", f.new_ns}, {"old", f.old_ns}}, "");
      if (FtraceEvent* r = host_event(v, t, seq, Tp::KvmHaltPollNs, 0, 0)) {
        r->v[0] = f.new_ns > f.old_ns;  // grow
        r->v[1] = v;
        r->v[2] = f.new_ns;
        r->v[3] = f.old_ns;
      }
      counter(kvm_track(v), "vCPU" + std::to_string(v) + " kvm", "halt_poll_ns", f.new_ns, t, seq);
      break;
    }
    case EventId::KvmVcpuWakeup:
      instant(kvm_track(v), t, seq, "kvm_vcpu_wakeup", "kvm.wakeup",
              {{"mode", 0, e.kvm_vcpu_wakeup.waited ? "wait" : "poll"}, {"time_ns", e.kvm_vcpu_wakeup.ns}}, "");
      if (FtraceEvent* r = host_event(v, t, seq, Tp::KvmVcpuWakeup, 0, 0)) {
        r->v[0] = e.kvm_vcpu_wakeup.ns;
        r->v[1] = e.kvm_vcpu_wakeup.waited;
        r->v[2] = 1;  // valid: vcpu_valid_wakeup() (x86: always; arm64: the vCPU is neither stopped nor paused)
      }
      break;
    case EventId::KvmApicAcceptIrq:
      instant(kvm_track(v), t, seq, "kvm_apic_accept_irq", "kvm.irq",
              {{"vector", 0, irq_vector_name(e.kvm_apic_accept_irq.vector)}});
      break;
    case EventId::ApicTimerExpired:
      instant(kvm_track(v), t, seq, "apic_timer_expired", "kvm.timer", {{"in_guest", e.apic_timer_expired.in_guest}});
      break;
    case EventId::KvmTimerUpdateIrq:
      instant(kvm_track(v), t, seq, "kvm_timer_update_irq", "kvm.timer", {{"in_guest", e.kvm_timer_update_irq.in_guest}});
      break;
    case EventId::HostIdleExit:  // the C-state the hardware thread really left: an arg of its idle slice
      pcpu_track(-1 - e.cpu).reached = cstate_name(e.host_idle_exit.cstate);
      break;
    case EventId::HostNrRunning:
      counter(pcpu_track(-1 - e.cpu), "pCPU" + std::to_string(-1 - e.cpu) + " runqueue", "nr_running",
              e.host_nr_running.nr_running, t, seq);
      break;
    default:
      return false;
  }
  return true;
}

// A vCPU's own state and its virtual hardware: guest CPU state, interrupt entries,
// cpuidle, MSR writes, IPIs sent.
bool TraceWriter::process_guest_cpu(const ModelEvent& e, std::uint64_t seq) {
  const sim_ns t = e.t;
  const int v = e.cpu;  // a vCPU for guest and KVM events
  const bool x86 = topo_.x86;
  switch (e.id) {
    case EventId::GuestCpuState:
      vcpu(v).gstate = static_cast<int>(e.guest_cpu_state.state);
      refresh_vcpu(v, t, seq);
      break;
    case EventId::Irq: {
      IrqVector vec = e.irq.vector;
      vcpu(v).vector = static_cast<int>(vec);
      // x86 irq_vectors tracepoints: LOCAL_TIMER_VECTOR 0xec, RESCHEDULE_VECTOR 0xfd, CALL_FUNCTION_SINGLE_VECTOR 0xfb
      Tp tp = vec == IrqVector::LocalTimer ? Tp::LocalTimerEntry : vec == IrqVector::Reschedule ? Tp::RescheduleEntry
                                                                                                : Tp::CallFunctionSingleEntry;
      bool real = x86 && vec != IrqVector::Device;
      instant(vcpu_track(v), t, seq, irq_entry_name(static_cast<int>(vec), x86), "guest.irq_entry",
              {{"vector", 0, irq_vector_name(vec)}}, real ? "" : nullptr);
      if (real)
        if (FtraceEvent* r = guest_event(v, t, seq, tp, TRACE_FLAG_IRQS_OFF | TRACE_FLAG_HARDIRQ, 1))
          r->v[0] = tp == Tp::LocalTimerEntry ? 0xec : tp == Tp::RescheduleEntry ? 0xfd : 0xfb;
      break;
    }
    case EventId::CpuIdle:
      vcpu(v).poll = e.cpu_idle.state == 0;
      refresh_vcpu(v, t, seq);
      if (FtraceEvent* r = guest_event(v, t, seq, Tp::CpuIdle, TRACE_FLAG_IRQS_OFF, 1)) {
        r->v[0] = e.cpu_idle.state;
        r->v[1] = v;  // cpu_id
      }
      break;
    case EventId::WriteMsr:
      // after the WRMSR returns, as do_trace_write_msr()
      if (FtraceEvent* r = guest_event(v, t, seq, Tp::WriteMsr, TRACE_FLAG_IRQS_OFF, 1)) {
        r->v[0] = e.write_msr.msr;
        r->v[1] = e.write_msr.value;
      }
      break;
    case EventId::IpiSendCpu: {
      IrqVector vec = e.ipi_send_cpu.vector;
      instant(vcpu_track(v), t, seq, "ipi_send_cpu", "guest.ipi_send",
              {{"cpu", e.ipi_send_cpu.dest_cpu}, {"vector", 0, irq_vector_name(vec)}, {"callsite", 0, e.ipi_send_cpu.callsite}}, "");
      if (FtraceEvent* r = guest_event(v, t, seq, Tp::IpiSendCpu, TRACE_FLAG_IRQS_OFF, 2)) {
        // smp_send_reschedule() has no callback; send_call_function_single_ipi() names the
        // CALL_FUNCTION_SINGLE handler
        bool resched = vec == IrqVector::Reschedule;
        r->v[0] = e.ipi_send_cpu.dest_cpu;
        r->v[1] = static_cast<std::int64_t>(syms_.address(e.ipi_send_cpu.callsite));
        r->v[2] = resched ? 0 : static_cast<std::int64_t>(syms_.address("generic_smp_call_function_single_interrupt"));
      }
      break;
    }
    default:
      return false;
  }
  return true;
}

// The guest scheduler: switches, wake-ups, migrations, nohz kicks, packed phases.
bool TraceWriter::process_sched(const ModelEvent& e, std::uint64_t seq) {
  const sim_ns t = e.t;
  const int v = e.cpu;  // a vCPU for guest and KVM events
  switch (e.id) {
    case EventId::SchedSwitch: {
      int prev = e.sched_switch.prev_pid, next = e.sched_switch.next_pid;
      const char* ps = e.sched_switch.prev_state ? e.sched_switch.prev_state : "R";
      if (FtraceEvent* r = guest_event(v, t, seq, Tp::SchedSwitch, TRACE_FLAG_IRQS_OFF, 2)) {
        r->pid = prev;
        r->comm = prev ? comm(prev) : "<idle>";
        r->s[0] = prev ? comm(prev) : cut_comm("swapper/" + std::to_string(v));
        r->v[1] = prev;
        r->v[2] = 120;  // prio: nice 0
        r->v[3] = prev_state_bits(ps);
        r->s[1] = next ? comm(next) : cut_comm("swapper/" + std::to_string(v));
        r->v[5] = next;
        r->v[6] = 120;
      }
      vcpu(v).curr = next;
      if (prev) {
        TaskView& p = task(prev);
        int to = ps[0] == 'R' ? v : p.woken_to;
        p.woken_to = -1;
        task_state(prev, to >= 0 ? 1 : 0, to, t, seq);
        if (to >= 0 && to != v) update_nr_running(to, t, seq);
      }
      if (next) {
        int from = task(next).cpu;
        task_state(next, 2, v, t, seq);
        if (from >= 0 && from != v) update_nr_running(from, t, seq);
        set_slice(sched_track(v), t, seq, comm(next), "sched.task", v);
      } else {
        end_slice(sched_track(v), t);
      }
      update_nr_running(v, t, seq);
      refresh_vcpu(v, t, seq);
      break;
    }
    case EventId::SchedWaking:  // the record only: the task's state changes at sched_wakeup
      if (FtraceEvent* r = guest_event(v, t, seq, Tp::SchedWaking, TRACE_FLAG_IRQS_OFF, 2)) {
        r->s[0] = comm(e.sched_waking.pid);
        r->v[1] = e.sched_waking.pid;
        r->v[2] = 120;
        r->v[3] = e.sched_waking.target_cpu;
      }
      break;
    case EventId::SchedWakeup: {
      int pid = e.sched_wakeup.pid, target = e.sched_wakeup.target_cpu;
      if (FtraceEvent* r = guest_event(v, t, seq, Tp::SchedWakeup, TRACE_FLAG_IRQS_OFF, 2)) {
        r->s[0] = comm(pid);
        r->v[1] = pid;
        r->v[2] = 120;
        r->v[3] = target;
      }
      if (task(pid).state == 2) {  // still on its way out of the CPU it blocked on
        task(pid).woken_to = target;
        break;
      }
      int from = task(pid).cpu;
      task_state(pid, 1, target, t, seq);
      if (from >= 0 && from != target) update_nr_running(from, t, seq);
      update_nr_running(target, t, seq);
      break;
    }
    case EventId::SchedMigrateTask: {
      int pid = e.sched_migrate_task.pid, to = e.sched_migrate_task.dest_cpu;
      if (FtraceEvent* r = guest_event(v, t, seq, Tp::SchedMigrateTask, TRACE_FLAG_IRQS_OFF, 2)) {
        r->s[0] = comm(pid);
        r->v[1] = pid;
        r->v[2] = 120;
        r->v[3] = e.sched_migrate_task.orig_cpu;
        r->v[4] = to;
      }
      int from = task(pid).cpu;
      task(pid).cpu = to;
      if (from >= 0) update_nr_running(from, t, seq);
      update_nr_running(to, t, seq);
      break;
    }
    case EventId::NohzKick:
      instant(vcpu_track(v), t, seq, "kick_ilb", "sched.nohz_kick", {{"ilb_cpu", e.nohz_kick.ilb_cpu}, {"flags", e.nohz_kick.flags}}, "");
      break;
    case EventId::PackStart:
      instant(vcpu_track(v), t, seq, "packed", "sched.packed", {{"idle_cpu", e.pack_start.idle_cpu}, {"cause", 0, e.pack_start.cause}}, "");
      break;
    case EventId::PackEnd:
      instant(vcpu_track(v), t, seq, "unpacked", "sched.packed",
              {{"cause", 0, e.pack_end.cause}, {"length_ns", e.pack_end.length}}, "");
      break;
    default:
      return false;
  }
  return true;
}

// The tick and timers: ticks, stops, retains and restarts (and CPU hotplug, which ends a
// stopped tick), hrtimers, clockevent writes.
bool TraceWriter::process_tick(const ModelEvent& e, std::uint64_t seq) {
  const sim_ns t = e.t;
  const int v = e.cpu;  // a vCPU for guest and KVM events
  switch (e.id) {
    case EventId::Tick:
      instant(tick_track(v), t, seq, "tick", "tick.tick", {{"in_idle", e.tick.in_idle}});
      break;
    case EventId::NohzStop: {
      VcpuView& c = vcpu(v);
      instant(tick_track(v), t, seq, "tick_stop", "tick.stop", {{"expires_ns", e.nohz_stop.expires}}, "nohz_stop");
      if (!c.tick_stopped) {
        c.tick_stopped = true;
        set_slice(tick_track(v), t, seq, "tick stopped", "tick.stopped", v);
        counter(vcpu_track(v), "vCPU" + std::to_string(v) + " tick", "stopped", 1, t, seq);
      }
      break;
    }
    case EventId::TickStop:
      if (FtraceEvent* r = guest_event(v, t, seq, Tp::TickStop, TRACE_FLAG_IRQS_OFF, 1)) {
        r->v[0] = e.tick_stop.success;
        r->v[1] = static_cast<int>(e.tick_stop.dependency);
      }
      break;
    case EventId::TickRetain:
      instant(tick_track(v), t, seq, "tick_retain", "tick.retain");
      break;
    case EventId::TickRestart:
      instant(tick_track(v), t, seq, "tick_restart", "tick.restart");
      [[fallthrough]];
    case EventId::CpuOffline:
      if (vcpu(v).tick_stopped) {
        vcpu(v).tick_stopped = false;
        end_slice(tick_track(v), t);
        counter(vcpu_track(v), "vCPU" + std::to_string(v) + " tick", "stopped", 0, t, seq);
      }
      if (e.id == EventId::CpuOffline) {
        vcpu(v).offline = true;
        refresh_vcpu(v, t, seq);
      }
      break;
    case EventId::CpuOnline:
      vcpu(v).offline = false;
      refresh_vcpu(v, t, seq);
      break;
    case EventId::HrtimerStart: {
      const auto& h = e.hrtimer_start;
      const char* fn = h.function ? h.function : "?";
      instant(tick_track(v), t, seq, "hrtimer_start", "timer.start", {{"function", 0, fn}, {"expires_ns", h.expires}}, "");
      if (FtraceEvent* r = guest_event(v, t, seq, Tp::HrtimerStart, TRACE_FLAG_IRQS_OFF, 1)) {
        r->v[0] = static_cast<std::int64_t>(timer_address(h.hrtimer));
        r->v[1] = static_cast<std::int64_t>(syms_.address(fn));
        r->v[2] = h.expires;
        r->v[3] = h.softexpires;
        // the mode its starters pass: the tick HRTIMER_MODE_ABS_PINNED_HARD (10), nanosleep REL (1)
        r->v[4] = std::strcmp(fn, "tick_nohz_handler") == 0 ? 10 : std::strcmp(fn, "hrtimer_wakeup") == 0 ? 1 : 0;
      }
      break;
    }
    case EventId::HrtimerExpireEntry: {
      const auto& h = e.hrtimer_expire_entry;
      const char* fn = h.function ? h.function : "?";
      if (FtraceEvent* r = guest_event(v, t, seq, Tp::HrtimerExpireEntry, TRACE_FLAG_IRQS_OFF | TRACE_FLAG_HARDIRQ, 1)) {
        r->v[0] = static_cast<std::int64_t>(timer_address(h.hrtimer));
        r->v[1] = h.now;
        r->v[2] = static_cast<std::int64_t>(syms_.address(fn));
      }
      if (std::strcmp(fn, "tick_nohz_handler") == 0) break;  // the "tick" instant
      instant(tick_track(v), t, seq, "hrtimer_expire_entry", "timer.expire", {{"function", 0, fn}}, "");
      break;
    }
    case EventId::ClockeventWrite: {
      const auto& f = e.clockevent_write;
      instant(tick_track(v), t, seq, "clockevent_write", "timer.clockevent", {{"register", 0, f.reg ? f.reg : "?"}, {"value", f.value}});
      break;
    }
    default:
      return false;
  }
  return true;
}

// ---- track states ---------------------------------------------------------------

void TraceWriter::refresh_pcpu(int h, sim_ns t, std::uint64_t seq) {
  const PcpuView& p = pcpu(h);
  std::string who = p.owner >= 0 ? "vCPU" + std::to_string(p.owner) + " " : "";
  std::string name;
  const char* cat = "hw.idle";
  switch (static_cast<HwActivity>(p.activity)) {
    case HwActivity::Idle: {
      static const char* const kIdleCats[] = {"hw.idle_c1", "hw.idle_c1e", "hw.idle_c6"};
      name = std::string("idle ") + cstate_name(static_cast<HostCState>(p.cstate));
      cat = p.cstate >= 0 && p.cstate < kNumCStates ? kIdleCats[p.cstate] : "hw.idle";
      break;
    }
    case HwActivity::Guest: name = who + "guest"; cat = "hw.guest"; break;
    case HwActivity::HostKernel: name = who + "kvm"; cat = "hw.host_kernel"; break;
    case HwActivity::HaltPoll: name = who + "halt-poll"; cat = "hw.halt_poll"; break;
    case HwActivity::GuestPoll: name = who + "guest poll"; cat = "hw.guest_poll"; break;
    default: name = "host thread"; cat = "hw.host_thread"; break;
  }
  set_slice(pcpu_track(h), t, seq, std::move(name), cat, h);
}

void TraceWriter::refresh_vcpu(int v, sim_ns t, std::uint64_t seq) {
  const VcpuView& c = vcpu(v);
  std::string name;
  const char* cat;
  switch (static_cast<GuestCpuState>(c.gstate)) {
    case GuestCpuState::User: name = c.curr ? comm(c.curr) : "user"; cat = "guest.user"; break;
    case GuestCpuState::Sys: name = c.curr ? comm(c.curr) + " (kernel)" : "kernel"; cat = "guest.sys"; break;
    case GuestCpuState::Irq:
      name = std::string("irq ") + irq_vector_name(static_cast<IrqVector>(c.vector));
      cat = "guest.irq";
      break;
    case GuestCpuState::Halted:
      name = c.offline ? "offline" : topo_.x86 ? "HLT" : "WFI";
      cat = "guest.halt";
      break;
    default:
      name = c.poll ? "poll" : "idle loop";
      cat = c.poll ? "guest.poll" : "guest.idle";
      break;
  }
  set_slice(vcpu_track(v), t, seq, std::move(name), cat, v);
}

// The vCPU thread as KVM sees it; an exit slice carries the reason of the exit that
// opened it, the host work after a poll or a block says what it is.
void TraceWriter::kvm_state(int v, int state, sim_ns t, std::uint64_t seq) {
  VcpuView& c = vcpu(v);
  if (state == c.kstate && !(state == static_cast<int>(VcpuState::Exit) && !c.pending.empty())) return;
  if (state != c.kstate) {
    c.kprev = c.kstate;
    c.kstate = state;
  }
  std::string name;
  const char* cat;
  switch (static_cast<VcpuState>(state)) {
    case VcpuState::Guest: name = "guest mode"; cat = "kvm.guest"; break;
    case VcpuState::Exit:
      cat = "kvm.exit";
      if (!c.pending.empty()) name = c.pending;
      else if (c.kprev == static_cast<int>(VcpuState::Runnable)) name = "wake-up + entry";
      else if (c.kprev == static_cast<int>(VcpuState::HaltPoll)) name = "poll success + entry";
      else name = "exit handling";
      c.pending.clear();
      break;
    case VcpuState::HaltPoll: name = "halt-poll"; cat = "kvm.halt_poll"; break;
    case VcpuState::Blocked: name = "blocked"; cat = "kvm.blocked"; break;
    default: name = "runnable (run_delay)"; cat = "kvm.runnable"; break;
  }
  Track& tr = kvm_track(v);
  set_slice(tr, t, seq, std::move(name), cat, tr.cpu);
  if (state == static_cast<int>(VcpuState::Guest)) {  // kvm_entry: vcpu_enter_guest() / kvm_arch_vcpu_ioctl_run()
    if (FtraceEvent* f = host_event(v, t, seq, topo_.x86 ? Tp::KvmEntry : Tp::KvmEntryArm64, TRACE_FLAG_IRQS_OFF, 1))
      f->v[0] = topo_.x86 ? v : 0;  // x86: vcpu_id (rip not modelled); arm64: vcpu_pc (not modelled)
  }
}

void TraceWriter::task_state(int pid, int state, int cpu, sim_ns t, std::uint64_t seq) {
  TaskView& k = task(pid);
  k.state = state;
  if (state) k.cpu = cpu;
  Track& tr = task_track(pid);
  if (state == 2) set_slice(tr, t, seq, "running on vCPU" + std::to_string(cpu), "task.running", cpu);
  else if (state == 1) set_slice(tr, t, seq, "runnable", "task.runnable", cpu);
  else end_slice(tr, t);
}

void TraceWriter::update_nr_running(int cpu, sim_ns t, std::uint64_t seq) {
  int n = 0;
  for (const auto& [pid, k] : tasks_)
    if (k.state && k.cpu == cpu) ++n;
  counter(vcpu_track(cpu), "vCPU" + std::to_string(cpu) + " runqueue", "nr_running", n, t, seq);
}

}  // namespace vtick
