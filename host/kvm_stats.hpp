// The vCPU's states and counters (struct kvm_vcpu_stat: include/linux/kvm_host.h, arch
// kvm_host.h; exit reasons as perf kvm stat names them).
#pragma once
#include <cstdint>

#include "core/stats.hpp"
#include "core/time.hpp"
#include "host/kvm_halt.hpp"
#include "host/not_upstream.hpp"

namespace vtick {

// Where a vCPU thread's time goes, as the host sees it.
enum class VcpuState {
  Guest,     // in guest mode
  Exit,      // host kernel: exit handling, entry, block/wake paths
  HaltPoll,  // kvm_vcpu_halt() polling
  Blocked,   // scheduled out in kvm_vcpu_block()
  Runnable,  // woken or preempted, waiting for its hardware thread (run_delay: steal)
  Count
};
const char* vcpu_state_name(VcpuState s);

// Why a vCPU left guest mode (the `kvm_exit` event's argument).
enum class ExitReason { Hlt, TscDeadline, Lvtt, Ipi, TimerExpiry, ExternalInterrupt, Kick, Pause, PollControl, Io, Net };
// The exit reason as `perf kvm stat` / trace_kvm_exit print it on x86 or arm64.
const char* exit_reason_name(ExitReason r, bool x86);

// VM-exit counts by reason (perf kvm stat's reasons). total() is their sum; KVM's own
// stat.exits is counted apart, at the exit itself, and the two must agree (invariants).
#define VTICK_EXIT_STATS(C)                                                                                          \
  C(std::uint64_t, hlt, "exits.hlt", "count", Counter, "HLT / WFI exits")                                          \
  C(std::uint64_t, hlt_fastpath, "exits.hlt_fastpath", "count", Counter,                                           \
    "... of which re-entered at once: an event was pending (handle_fastpath_hlt, x86)")                             \
  C(std::uint64_t, msr_tsc_deadline, "exits.msr_tsc_deadline", "count", Counter, "WRMSR IA32_TSC_DEADLINE exits (x86)") \
  C(std::uint64_t, apic_lvtt, "exits.apic_lvtt", "count", Counter, "x2APIC LVTT write exits (x86)")               \
  C(std::uint64_t, ipi, "exits.ipi", "count", Counter, "x2APIC ICR write / ICC_SGI1R_EL1 trap exits")             \
  C(std::uint64_t, timer_expiry, "exits.timer_expiry", "count", Counter, "guest timer expiring in guest mode: preemption timer (x86) / vtimer IRQ (arm64)") \
  C(std::uint64_t, external_interrupt, "exits.external_interrupt", "count", Counter, "a host interrupt preempting the vCPU thread") \
  C(std::uint64_t, kick, "exits.kick", "count", Counter, "IRQ exit to inject an interrupt (kvm_vcpu_kick): arm64 without direct injection, x86 without APICv / AVIC") \
  C(std::uint64_t, pause, "exits.pause", "count", Counter, "x86 pause-loop exits (PLE)")                           \
  C(std::uint64_t, io, "exits.io", "count", Counter, "virtio-blk notify (ioeventfd MMIO/PIO write)")               \
  C(std::uint64_t, net, "exits.net", "count", Counter, "virtio-net TX kick (ioeventfd, to vhost)")                 \
  C(std::uint64_t, msr_poll_control, "exits.msr_poll_control", "count", Counter, "WRMSR MSR_KVM_POLL_CONTROL (x86, cpuidle-haltpoll)")
struct ExitStats {
  VTICK_STATS(VTICK_EXIT_STATS)
  std::uint64_t total() const {
    return hlt + msr_tsc_deadline + apic_lvtt + ipi + timer_expiry + external_interrupt + kick + pause + io + net +
           msr_poll_control;
  }
};

#define VTICK_VCPU_STATS(C)                                                                                          \
  C(std::uint64_t, vm_exits, "kvm.exits", "count", Counter, "stat.exits: VM exits, counted at the exit itself")             \
  C(std::uint64_t, halt_exits, "kvm.halt_exits", "count", Counter,                                                 \
    "stat.halt_exits (x86); arm64 counts the same WFI exits in stat.wfi_exit_stat (both names there)")             \
  C(std::uint64_t, blocks, "host.blocks", "count", Counter, "kvm_vcpu_block() calls that scheduled out")          \
  C(std::uint64_t, timer_wakeups, "host.timer_wakeups", "count", Counter, "blocked vCPUs woken by the guest's timer (sw hrtimer / bg_timer)") \
  C(std::uint64_t, ipi_wakeups, "host.ipi_wakeups", "count", Counter, "blocked vCPUs woken by an interrupt (an IPI or a device's)") \
  C(std::uint64_t, kick_wakeups, "host.kick_wakeups", "count", Counter, "IPIs whose sender woke the blocked target in its exit (kvm_vcpu_wake_up(), vcpu_kick_wakeup_ns)") \
  C(std::uint64_t, posted_irqs, "host.posted_irqs", "count", Counter, "interrupts posted while in guest mode (no exit)") \
  C(std::uint64_t, irqs_while_preempted, "host.irqs_while_preempted", "count", Counter,                            \
    "IPIs and device interrupts that arrived while the vCPU thread was preempted (SN: no notification)")           \
  C(std::uint64_t, timer_fired, "host.guest_timer_fired", "count", Counter, "guest timer expiries")               \
  C(std::uint64_t, entries, "host.entries", "count", Counter, "VM entries")                                        \
  C(std::uint64_t, l1d_flushes, "host.l1d_flushes", "count", Counter, "vmx_l1d_flush() on entry")                 \
  C(std::uint64_t, verw_clears, "host.verw_clears", "count", Counter, "mds_clear_cpu_buffers() on entry")         \
  C(std::uint64_t, halts_in_guest, "host.halts_in_guest", "count", Counter, "HLT passed through / WFI not trapped") \
  C(std::uint64_t, hv_to_sw_timer, "host.hv_to_sw_timer", "count", Counter, "kvm_lapic_switch_to_sw_timer() on block (x86)") \
  C(std::uint64_t, timer_advance_waits, "host.timer_advance_waits", "count", Counter, "__kvm_wait_lapic_expire() busy-waits") \
  C(sim_ns, timer_advance_wait_ns, "host.timer_advance_wait_ns", "ns", Counter, "time busy-waiting to the guest's deadline") \
  C(std::uint64_t, amplified_wakeups, "host.amplified_wakeups", "count", Counter, "timer wake-ups that paid host.tick_wakeup_cost") \
  C(sim_ns, amplifier_ns, "host.amplifier_ns", "ns", Counter, "host work added by host.tick_wakeup_cost")
struct VcpuStats {
  VTICK_STATS(VTICK_VCPU_STATS)
  ExitStats exits;
  KvmHaltStats halt;
  TimerAwareStats aware;
};

}  // namespace vtick
