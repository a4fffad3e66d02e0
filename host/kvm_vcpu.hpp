// A vCPU thread of KVM: virt/kvm/kvm_main.c + arch/x86/kvm/x86.c vcpu_run() (+ arm64 handle_exit.c).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <simgrid/forward.h>

#include "core/sg.hpp"
#include "core/stats.hpp"
#include "core/state_clock.hpp"
#include "host/kvm_halt.hpp"
#include "host/host_sched.hpp"
#include "host/kvm_params.hpp"
#include "host/timer_aware.hpp"
#include "platform/hw_thread.hpp"
#include "platform/vhw.hpp"

namespace vtick {

class Kvm;

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
  C(std::uint64_t, kick, "exits.kick", "count", Counter, "arm64: IRQ exit to inject an interrupt (kvm_vcpu_kick)") \
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
  C(std::uint64_t, ipi_wakeups, "host.ipi_wakeups", "count", Counter, "blocked vCPUs woken by an interrupt (posted-interrupt wake-up vector)") \
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

class KvmVcpu final : public VirtualCpu {
 public:
  KvmVcpu(Kvm& vm, int id, HwThread& hw);
  ~KvmVcpu() override;

  void set_guest(GuestIrqSink* idt, std::function<void()> guest_main);
  void start();  // spawns the vCPU thread actor

  // VirtualCpu: the guest's side of the virtual hardware.
  int cpu_id() const override { return id_; }
  sim_ns clock() const override;
  sim_ns steal_clock() const override { return steal_ns_; }
  sim_ns run(sim_ns work) override;
  void local_irq_disable() override { if_ = false; }
  void local_irq_enable() override;
  bool irqs_disabled() const override { return !if_; }
  void safe_halt() override;
  void poll_wait(sim_ns until) override;
  void cpu_off() override;
  void power_on();  // INIT-SIPI / PSCI CPU_ON from the host side
  void timer_write_deadline(sim_ns deadline) override;
  void timer_write_control(bool enabled) override;
  void send_ipi(int dest_cpu, IrqVector v) override;
  void write_poll_control(bool host_poll_allowed) override;
  void io_submit(std::uint64_t request) override;
  void net_xmit(std::uint64_t request) override;
  std::vector<std::uint64_t> io_completions() override;
  void notify_poller() override { bell_.ring(); }

  // Host side: an interrupt for this vCPU that reaches its hardware thread at `at`
  // (__apic_accept_irq with posted-interrupt notification / kvm_vcpu_kick).
  void kvm_apic_accept_irq(IrqVector v, sim_ns at);
  // A host device completes `token` and raises its MSI on this vCPU at `at`.
  void inject_device_irq(std::uint64_t token, sim_ns at);

  int id() const { return id_; }
  const HostThread& host_thread() const { return thread_; }
  HwThread& hw_thread() { return cur_hw(); }
  HwThread& cur_hw() { return thread_.cpu ? thread_.cpu->hw : hw_; }  // where it runs or last ran
  const VcpuStats& stats() const { return st_; }
  sim_ns halt_poll_ns() const { return halt_poll_ns_; }
  sim_ns timer_advance_ns() const { return timer_advance_ns_; }
  std::uint64_t ple_window() const { return ple_window_; }
  std::array<sim_ns, static_cast<size_t>(VcpuState::Count)> time_in_state(sim_ns now) const { return time_.totals(now); }
  // The poll time of a kvm_vcpu_halt() still going on at `now` (its stats are updated at
  // its end, as kvm_main.c does): 0 outside a halt.
  sim_ns poll_open_ns(sim_ns now) const;

 private:
  struct Inflight { IrqVector v; sim_ns at; std::uint64_t io = 0; };

  void thread_main();
  void set_state(VcpuState s);
  void host_work(sim_ns ns);              // host kernel work on this hardware thread
  bool process_events(bool in_guest);     // timer expiry, arrived notifications
  sim_ns next_event_time(bool guest_mode = false) const;  // guest timer or next notification arrival
  sim_ns guest_timer_in(sim_ns now) const {  // time to the guest's armed timer (KTIME_MAX: none)
    return timer_enabled_ && timer_deadline_ ? timer_deadline_ - now : KTIME_MAX;
  }
  void halt_in_guest();                   // HLT passthrough / WFI not trapped
  bool wfi_traps();                       // arm64: HCR_EL2.TWI for this vCPU load
  bool pending_irq() const { return irr_ != 0; }
  bool kvm_vcpu_check_block() const { return pending_irq(); }
  void deliver();                         // inject pending interrupts into the guest
  sim_ns kvm_vcpu_halt();                 // host/kvm_halt.cpp; returns host work owed before entry
  bool kvm_vcpu_block(sim_ns& pending);
  void wait_for_wake(sim_ns until);
  sim_ns tick_wakeup_amplifier();
  void exit_to_host(sim_ns handling_ns, std::uint64_t& counter);
  void enter_guest(sim_ns handling = 0);
  sim_ns entry_mitigation();
  void preempt_exit();
  void trace_exit(ExitReason r);

  Kvm& vm_;
  int id_;
  HwThread& hw_;                     // its first hardware thread (KVM_RUN)
  Doorbell bell_;
  GuestIrqSink* idt_ = nullptr;
  std::function<void()> guest_main_;

  // vCPU architectural state the host keeps
  bool if_ = false;                  // guest RFLAGS.IF / PSTATE.I (true = enabled)
  std::uint32_t irr_ = 0;            // pending vectors (LAPIC IRR / vGIC pending)
  sim_ns timer_deadline_ = 0;        // TSC deadline / CNTV_CVAL; 0 = disarmed
  bool timer_enabled_ = false;       // LVTT unmasked / CNTV_CTL.ENABLE
  bool poll_control_ = true;         // MSR_KVM_POLL_CONTROL bit 0 (initial 1)
  bool powered_off_ = false;
  std::vector<Inflight> inflight_;   // notifications on their way to this thread
  std::vector<std::uint64_t> used_ring_;  // completed I/O requests the guest has not read

  sim_ns halt_poll_ns_ = 0;          // vcpu->halt_poll_ns
  sim_ns halt_start_ = -1;           // the kvm_vcpu_halt() in progress: its start (-1: none)
  sim_ns halt_poll_end_ = -1;        // ... and the end of its poll (-1: still polling)
  HostThread thread_;                // this vCPU thread in the host scheduler
  sim_ns timer_advance_ns_ = 0;      // lapic timer_advance_ns (x86, adaptive)
  sim_ns expired_tscdeadline_ = 0;   // a sw timer that fired early, by the advance
  std::uint64_t ple_window_ = 0;     // current pause-loop window (cycles)
  bool scheduled_out_ = false;       // since the last entry (l1tf_flush_l1d)
  sim_ns steal_ns_ = 0;              // run_delay reported through the steal clock
  StateClock<VcpuState> time_;
  VcpuStats st_;
};

}  // namespace vtick
