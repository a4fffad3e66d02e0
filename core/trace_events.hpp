// Every model event, declared once, in the spirit of the kernel's TRACE_EVENT(): an id,
// the kernel's (or KVM's) name, and named, typed fields. Each event gets
//   - EventId::Id                     the enum value sinks switch on,
//   - struct ev::name { fields }       its payload (ModelEvent::name holds it),
//   - trace::name(t, cpu, fields...)   its emit function, in core/trace.hpp (a misspelt event
//                                      does not compile),
//   - a row of event_name() and for_each_field() (generic sinks: vtick run --events).
// An event with no kernel tracepoint of its own is named after the kernel function or
// KVM state it reports. `cpu` is the guest CPU (vCPU) for guest and KVM events and
// -1 - h for hardware thread h's events.
#pragma once
#include <cstdint>

#include "core/time.hpp"

namespace vtick {

// Enums the events carry, declared where they live (opaque declarations: each must stay
// an `enum class` with the same underlying type, or this does not compile).
enum class GuestCpuState;             // guest/kernel.hpp
enum class VcpuState;                 // host/kvm_vcpu.hpp
enum class ExitReason;                // host/kvm_vcpu.hpp
enum class HwActivity;                // platform/hw_thread.hpp
enum class HostCState;                // platform/arch.hpp
enum class IrqVector : std::uint8_t;  // platform/vhw.hpp

// include/linux/tick.h TICK_DEP_MASK_*: what keeps a nohz_full CPU's tick (tick_stop's
// `dependency`).
enum class TickDep : int {
  None = 0,
  PosixTimer = 1 << 0,
  PerfEvents = 1 << 1,
  Sched = 1 << 2,
  ClockUnstable = 1 << 3,
  Rcu = 1 << 4,
  RcuExp = 1 << 5,
};

// trace_cpu_idle(PWR_EVENT_EXIT, cpu): include/trace/events/power.h, (u32)-1.
inline constexpr std::uint32_t PWR_EVENT_EXIT = 0xffffffffu;

// Each event: VTICK_EV_<name>(F) lists its fields, F(type, field, "unit, meaning");
// VTICK_MODEL_EVENTS(X) lists the events, X(Id, name, "what it reports").
#define VTICK_EV_guest_cpu_state(F) \
  F(GuestCpuState, state, "the new state")
#define VTICK_EV_irq(F) \
  F(IrqVector, vector, "the vector taken")
#define VTICK_EV_device_irq(F)
#define VTICK_EV_cpu_idle(F) \
  F(std::uint32_t, state, "idle state index: 1 HLT/WFI, 0 polling, PWR_EVENT_EXIT on exit")
#define VTICK_EV_halt(F) \
  F(bool, tick_stopped, "the tick is stopped while halted")
#define VTICK_EV_halt_end(F)
#define VTICK_EV_poll_enter(F)
#define VTICK_EV_poll_exit(F)
#define VTICK_EV_idle_enter(F)
#define VTICK_EV_idle_exit(F)
#define VTICK_EV_cpu_offline(F)
#define VTICK_EV_cpu_online(F)
#define VTICK_EV_sched_switch(F) \
  F(int, prev_pid, "pid switched out, 0: idle") \
  F(int, next_pid, "pid switched in, 0: idle") \
  F(const char*, prev_state, "prev's state as sched_switch prints it: R, R+, S, D")
#define VTICK_EV_sched_waking(F) \
  F(int, pid, "the task being woken") \
  F(int, target_cpu, "task_cpu(p) when try_to_wake_up() starts: the CPU it last ran on")
#define VTICK_EV_sched_wakeup(F) \
  F(int, pid, "the woken task") \
  F(int, target_cpu, "the CPU it is queued on")
#define VTICK_EV_sched_migrate_task(F) \
  F(int, pid, "the task moved") \
  F(int, orig_cpu, "from") \
  F(int, dest_cpu, "to") \
  F(const char*, cause, "the path: wakeup, newidle, periodic, nohz, active, other (not in the kernel's record)")
#define VTICK_EV_nohz_kick(F) \
  F(int, ilb_cpu, "the idle CPU kicked") \
  F(unsigned, flags, "NOHZ_BALANCE_KICK 1 | NOHZ_STATS_KICK 2 | NOHZ_NEXT_KICK 4")
#define VTICK_EV_pack_start(F) \
  F(int, idle_cpu, "an idle vCPU beside the packed one") \
  F(const char*, cause, "wakeup, block, newidle, periodic, nohz, active, other")
#define VTICK_EV_pack_end(F) \
  F(const char*, cause, "wakeup, block, newidle, periodic, nohz, active, other") \
  F(sim_ns, length, "ns the packed phase lasted")
#define VTICK_EV_tick(F) \
  F(bool, in_idle, "the CPU is in its idle loop") \
  F(sim_ns, expires, "ns, the sched_timer's expiry that fired")
#define VTICK_EV_nohz_stop(F) \
  F(sim_ns, expires, "ns, when the stopped tick must fire; -1: never")
#define VTICK_EV_tick_stop(F) \
  F(bool, success, "the tick was stopped") \
  F(TickDep, dependency, "what keeps it running (None on success)")
#define VTICK_EV_tick_retain(F)
#define VTICK_EV_tick_restart(F)
#define VTICK_EV_hrtimer_start(F) \
  F(const void*, hrtimer, "the timer's identity (never dereferenced)") \
  F(const char*, function, "its callback's name") \
  F(sim_ns, expires, "ns, hard expiry") \
  F(sim_ns, softexpires, "ns, soft expiry")
#define VTICK_EV_hrtimer_expire_entry(F) \
  F(const void*, hrtimer, "the timer's identity (never dereferenced)") \
  F(const char*, function, "its callback's name") \
  F(sim_ns, now, "ns, the base's time the callback runs at") \
  F(sim_ns, expires, "ns, the timer's hard expiry")
#define VTICK_EV_clockevent_write(F) \
  F(const char*, reg, "TSC_DEADLINE, LVTT, CNTV_CVAL_EL0, CNTV_CTL_EL0") \
  F(std::int64_t, value, "the value written: a deadline in ns, or the enable bit")
#define VTICK_EV_write_msr(F) \
  F(std::int64_t, msr, "the MSR: 0x6e0 IA32_TSC_DEADLINE, 0x830 the x2APIC ICR, 0x832 its LVTT") \
  F(std::int64_t, value, "the value written: the deadline in ns, the ICR's destination << 32 | vector, the LVTT's mask bit")
#define VTICK_EV_ipi_send_cpu(F) \
  F(int, dest_cpu, "the target vCPU") \
  F(IrqVector, vector, "the IPI's vector") \
  F(const char*, callsite, "the sending kernel function (resched_curr, ttwu_queue_wakelist, generic_exec_single, irq_work_queue_on)")
#define VTICK_EV_kvm_vcpu_state(F) \
  F(VcpuState, state, "the new state") \
  F(int, hw, "the hardware thread it is on")
#define VTICK_EV_kvm_exit(F) \
  F(ExitReason, reason, "why the vCPU left guest mode")
#define VTICK_EV_kvm_apic_accept_irq(F) \
  F(IrqVector, vector, "the vector") \
  F(sim_ns, arrived, "ns, when its notification arrived")
#define VTICK_EV_apic_timer_expired(F) \
  F(sim_ns, fire_at, "ns, when it was due") \
  F(bool, in_guest, "the vCPU was in guest mode")
#define VTICK_EV_kvm_timer_update_irq(F) \
  F(sim_ns, fire_at, "ns, when it was due") \
  F(bool, in_guest, "the vCPU was in guest mode")
#define VTICK_EV_kvm_vcpu_block(F)
#define VTICK_EV_kvm_vcpu_halt(F) \
  F(sim_ns, halt_poll_ns, "ns, the vCPU's poll window") \
  F(bool, poll_allowed, "!kvm_arch_no_poll()")
#define VTICK_EV_halt_poll_end(F) \
  F(sim_ns, poll_ns, "ns polled") \
  F(bool, success, "an event arrived while polling")
#define VTICK_EV_kvm_vcpu_wakeup(F) \
  F(sim_ns, ns, "ns from kvm_vcpu_halt() to the wake-up") \
  F(bool, waited, "the thread scheduled out (else a poll ended it)")
#define VTICK_EV_kvm_halt_poll_ns(F) \
  F(sim_ns, new_ns, "ns, the new window") \
  F(sim_ns, old_ns, "ns, the old window")
#define VTICK_EV_hw_activity(F) \
  F(HwActivity, activity, "the new activity") \
  F(HostCState, cstate, "the C-state asked for, when idle")
#define VTICK_EV_host_idle(F) \
  F(HostCState, cstate, "the C-state chosen")
#define VTICK_EV_host_idle_exit(F) \
  F(HostCState, cstate, "the C-state the hardware thread left (the deepest its idle time reached)")
#define VTICK_EV_host_nr_running(F) \
  F(int, nr_running, "threads runnable or running")
#define VTICK_EV_host_switch_vcpu(F) \
  F(sim_ns, vruntime, "ns, its vruntime")
#define VTICK_EV_host_switch_thread(F) \
  F(sim_ns, vruntime, "ns, its vruntime")
#define VTICK_EV_host_enqueue_vcpu(F) \
  F(bool, curr_is_vcpu, "the running thread is a vCPU thread")
#define VTICK_EV_host_enqueue_thread(F) \
  F(bool, curr_is_vcpu, "the running thread is a vCPU thread")
#define VTICK_EV_host_wait(F) \
  F(bool, is_vcpu, "it is a vCPU thread") \
  F(int, state, "its HostThread::State")

#define VTICK_MODEL_EVENTS(X) \
  X(GuestCpuState, guest_cpu_state, "the guest CPU's accounting state changes (GuestCpu::enter_state)") \
  X(Irq, irq, "interrupt entry on the guest CPU (irq_enter_rcu)") \
  X(DeviceIrq, device_irq, "the virtio device interrupt's handler runs") \
  X(CpuIdle, cpu_idle, "power:cpu_idle (trace_cpu_idle)") \
  X(Halt, halt, "default_idle_call() halts the CPU (HLT/WFI)") \
  X(HaltEnd, halt_end, "the halt returned (an interrupt woke the CPU)") \
  X(PollEnter, poll_enter, "cpu_idle_poll() starts spinning (idle=poll)") \
  X(PollExit, poll_exit, "cpu_idle_poll() stops spinning") \
  X(IdleEnter, idle_enter, "do_idle(): an idle episode starts") \
  X(IdleExit, idle_exit, "do_idle(): the idle episode ends") \
  X(CpuOffline, cpu_offline, "takedown_cpu(): the CPU plays dead") \
  X(CpuOnline, cpu_online, "start_secondary(): the CPU is back") \
  X(SchedSwitch, sched_switch, "sched:sched_switch") \
  X(SchedWaking, sched_waking, "sched:sched_waking (try_to_wake_up(), before the CPU is chosen), cpu: the waker's") \
  X(SchedWakeup, sched_wakeup, "sched:sched_wakeup (ttwu_do_wakeup), cpu: the waker's") \
  X(SchedMigrateTask, sched_migrate_task, "sched:sched_migrate_task") \
  X(NohzKick, nohz_kick, "kick_ilb(): a busy CPU kicks an idle one to balance (cpu: the kicker)") \
  X(PackStart, pack_start, "a packed phase starts: a vCPU (cpu) has >= 2 runnable tasks while another is idle") \
  X(PackEnd, pack_end, "the packed phase ends (cpu: the vCPU it started on)") \
  X(Tick, tick, "tick_nohz_handler() runs (the sched_timer's callback)") \
  X(NohzStop, nohz_stop, "tick-sched decides to stop the tick: every stopping tick_nohz_idle_stop_tick(), and a nohz_full CPU's tick_nohz_full_stop_tick() that stops it") \
  X(TickStop, tick_stop, "timer:tick_stop, where the kernel traces it: success=1 when the tick becomes stopped (tick_nohz_stop_tick), success=0 with the dependency that keeps it (check_tick_dependency)") \
  X(TickRetain, tick_retain, "tick-sched keeps the tick running at an idle decision") \
  X(TickRestart, tick_restart, "tick_nohz_restart_sched_tick(): a stopped tick runs again") \
  X(HrtimerStart, hrtimer_start, "timer:hrtimer_start") \
  X(HrtimerExpireEntry, hrtimer_expire_entry, "timer:hrtimer_expire_entry") \
  X(ClockeventWrite, clockevent_write, "the clockevent driver writes a timer register") \
  X(WriteMsr, write_msr, "msr:write_msr, x86: traced once the WRMSR returns (do_trace_write_msr()), its exit included; the TSC deadline and the x2APIC ICR and LVTT writes") \
  X(IpiSendCpu, ipi_send_cpu, "ipi:ipi_send_cpu, cpu: the sender") \
  X(KvmVcpuState, kvm_vcpu_state, "the vCPU thread's state changes (KvmVcpu::set_state)") \
  X(KvmExit, kvm_exit, "kvm:kvm_exit") \
  X(KvmApicAcceptIrq, kvm_apic_accept_irq, "an interrupt becomes pending in the vCPU (__apic_accept_irq)") \
  X(ApicTimerExpired, apic_timer_expired, "x86: the guest's LAPIC timer expires (apic_timer_expired)") \
  X(KvmTimerUpdateIrq, kvm_timer_update_irq, "arm64: the guest's vtimer fires (kvm_timer_update_irq)") \
  X(KvmVcpuBlock, kvm_vcpu_block, "kvm_vcpu_block() starts") \
  X(KvmVcpuHalt, kvm_vcpu_halt, "kvm_vcpu_halt() starts") \
  X(HaltPollEnd, halt_poll_end, "kvm_vcpu_halt()'s poll loop ends") \
  X(KvmVcpuWakeup, kvm_vcpu_wakeup, "kvm:kvm_vcpu_wakeup") \
  X(KvmHaltPollNs, kvm_halt_poll_ns, "kvm:kvm_halt_poll_ns (grow_halt_poll_ns / shrink_halt_poll_ns)") \
  X(HwActivity, hw_activity, "what the hardware thread does changes (HwThread)") \
  X(HostIdle, host_idle, "the host CPU goes idle (the idle governor's choice)") \
  X(HostIdleExit, host_idle_exit, "the idle host CPU wakes up, from the C-state it reached") \
  X(HostNrRunning, host_nr_running, "the host run queue's length") \
  X(HostSwitchVcpu, host_switch_vcpu, "the host scheduler switches a vCPU thread in") \
  X(HostSwitchThread, host_switch_thread, "the host scheduler switches another thread in") \
  X(HostEnqueueVcpu, host_enqueue_vcpu, "a woken vCPU thread queues behind the running one") \
  X(HostEnqueueThread, host_enqueue_thread, "another woken thread queues behind the running one") \
  X(HostWait, host_wait, "a woken thread waits to run (run_delay starts)")


enum class EventId : std::uint8_t {
#define VTICK_EV_ENUM(Id, name, doc) Id,
  VTICK_MODEL_EVENTS(VTICK_EV_ENUM)
#undef VTICK_EV_ENUM
      Count
};
inline constexpr int kNumEvents = static_cast<int>(EventId::Count);

// The payloads: struct ev::kvm_exit { ExitReason reason; }, ...
namespace ev {
#define VTICK_EV_MEMBER(type, field, doc) type field;
#define VTICK_EV_STRUCT(Id, name, doc) \
  struct name {                        \
    VTICK_EV_##name(VTICK_EV_MEMBER)   \
  };
VTICK_MODEL_EVENTS(VTICK_EV_STRUCT)
#undef VTICK_EV_STRUCT
#undef VTICK_EV_MEMBER
}  // namespace ev

// One thing that happened on one (v)CPU; `id` says which payload member is set.
struct ModelEvent {
  sim_ns t;
  int cpu;
  EventId id;
  union {
#define VTICK_EV_UNION(Id, name, doc) ev::name name;
    VTICK_MODEL_EVENTS(VTICK_EV_UNION)
#undef VTICK_EV_UNION
  };
};

#define VTICK_EV_MAKE(Id, name, doc)                                     \
  inline ModelEvent model_event(sim_ns t, int cpu, const ev::name& f) { \
    ModelEvent e;                                                        \
    e.t = t;                                                             \
    e.cpu = cpu;                                                         \
    e.id = EventId::Id;                                                  \
    e.name = f;                                                          \
    return e;                                                            \
  }
VTICK_MODEL_EVENTS(VTICK_EV_MAKE)
#undef VTICK_EV_MAKE

inline const char* event_name(EventId id) {
  static constexpr const char* kNames[] = {
#define VTICK_EV_NAME(Id, name, doc) #name,
      VTICK_MODEL_EVENTS(VTICK_EV_NAME)
#undef VTICK_EV_NAME
  };
  return id < EventId::Count ? kNames[static_cast<int>(id)] : "?";
}

inline const char* event_description(EventId id) {
  static constexpr const char* kDocs[] = {
#define VTICK_EV_DOC(Id, name, doc) doc,
      VTICK_MODEL_EVENTS(VTICK_EV_DOC)
#undef VTICK_EV_DOC
  };
  return id < EventId::Count ? kDocs[static_cast<int>(id)] : "?";
}

// Calls v(field_name, value) for each field of `e`, in declaration order.
template <class Visitor>
void for_each_field(const ModelEvent& e, Visitor&& v) {
  switch (e.id) {
#define VTICK_EV_VISIT_F(type, field, doc) v(#field, p.field);
#define VTICK_EV_VISIT(Id, name, doc)      \
  case EventId::Id: {                      \
    [[maybe_unused]] const auto& p = e.name; \
    VTICK_EV_##name(VTICK_EV_VISIT_F)      \
    break;                                 \
  }
    VTICK_MODEL_EVENTS(VTICK_EV_VISIT)
#undef VTICK_EV_VISIT
#undef VTICK_EV_VISIT_F
    default:
      break;
  }
}

inline const char* tick_dep_name(TickDep d) {
  switch (d) {
    case TickDep::None: return "NONE";
    case TickDep::PosixTimer: return "POSIX_TIMER";
    case TickDep::PerfEvents: return "PERF_EVENTS";
    case TickDep::Sched: return "SCHED";
    case TickDep::ClockUnstable: return "CLOCK_UNSTABLE";
    case TickDep::Rcu: return "RCU";
    case TickDep::RcuExp: return "RCU_EXP";
  }
  return "?";
}

}  // namespace vtick
