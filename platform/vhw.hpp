// The virtual hardware: everything a guest CPU can do that the hypervisor sees, and nothing else.
#pragma once
#include <cstdint>
#include <vector>

#include "core/time.hpp"

namespace vtick {

// Interrupt vectors the model delivers (x86 names; arm64 uses the vtimer PPI and SGIs).
enum class IrqVector : std::uint8_t {
  LocalTimer,    // LAPIC timer (TSC-deadline) / EL1 virtual timer PPI 27
  Reschedule,    // RESCHEDULE_VECTOR / IPI_RESCHEDULE SGI
  CallFunction,  // CALL_FUNCTION_SINGLE_VECTOR / IPI_CALL_FUNC SGI (irq_work, nohz kicks)
  Device,        // virtio-blk / virtio-net MSI-X (device vectors below LOCAL_TIMER) / their LPIs
  Count
};
const char* irq_vector_name(IrqVector v);

// The guest's interrupt descriptor table: the hardware calls it when it delivers.
class GuestIrqSink {
 public:
  virtual ~GuestIrqSink() = default;
  virtual void handle_irq(IrqVector v) = 0;
};

// One virtual CPU as its guest kernel sees it. The guest and the host meet only here,
// exactly where a real guest and KVM meet: instructions that exit or are observable
// by the hypervisor (HLT/WFI, timer-deadline and timer-control writes, IPI writes,
// MSR_KVM_POLL_CONTROL), interrupt delivery, and the clocks (kvm-clock, steal clock).
class VirtualCpu {
 public:
  virtual ~VirtualCpu() = default;
  virtual int cpu_id() const = 0;
  virtual sim_ns clock() const = 0;        // kvm-clock / CNTVCT: no exit
  virtual sim_ns steal_clock() const = 0;  // MSR_KVM_STEAL_TIME / PV_TIME_ST record
  // The steal-time record's `preempted` flag, which other vCPUs read (x86 KVM_VCPU_PREEMPTED):
  // the host scheduled this vCPU's thread out while it was runnable.
  virtual bool vcpu_is_preempted() const = 0;

  // Execute `work` ns of guest instructions (at nominal speed). With interrupts
  // enabled, a pending interrupt is delivered to the GuestIrqSink at the instant it
  // arrives and the call returns the work left, so the guest can reschedule; with
  // interrupts disabled interrupts stay pending. Returns 0 when all work is done.
  virtual sim_ns run(sim_ns work) = 0;
  virtual void local_irq_disable() = 0;
  virtual void local_irq_enable() = 0;     // delivers what is pending
  virtual bool irqs_disabled() const = 0;
  // local_irq_save() / local_irq_restore(): off, and back to what it was
  bool local_irq_save() {
    bool were_on = !irqs_disabled();
    local_irq_disable();
    return were_on;
  }
  void local_irq_restore(bool were_on) {
    if (were_on) local_irq_enable();
  }

  // "sti; hlt" (x86 safe_halt) / "wfi" (arm64): returns once the CPU is running again,
  // after delivering the interrupt that woke it.
  virtual void safe_halt() = 0;

  // A cpu_relax() (PAUSE / YIELD) spin loop in guest mode with interrupts enabled:
  // returns at `until`, after an interrupt was delivered, or on notify_poller().
  virtual void poll_wait(sim_ns until) = 0;

  // The per-CPU timer's registers: x86 lapic-deadline (IA32_TSC_DEADLINE, x2APIC LVTT),
  // arm64 EL1 virtual timer (CNTV_CVAL_EL0, CNTV_CTL_EL0). A deadline of 0 disarms.
  virtual void timer_write_deadline(sim_ns deadline) = 0;
  virtual void timer_write_control(bool enabled) = 0;

  virtual void send_ipi(int dest_cpu, IrqVector v) = 0;  // x2APIC ICR / ICC_SGI1R_EL1
  // CPU hot-unplug: x86 hlt_play_dead (HLT with interrupts off) / arm64 PSCI CPU_OFF.
  // Returns when the hypervisor starts the CPU again (INIT-SIPI / PSCI CPU_ON).
  virtual void cpu_off() = 0;
  // virtio-blk: queue a request and notify the device (an MMIO/PIO write: exits); its
  // completion raises IrqVector::Device on this CPU and appears in io_completions().
  virtual void io_submit(std::uint64_t request) = 0;
  // virtio-net: transmit a request (a TX kick: exits) to a peer outside the VM; its
  // reply raises IrqVector::Device on this CPU and appears in io_completions() too.
  virtual void net_xmit(std::uint64_t request) = 0;
  virtual std::vector<std::uint64_t> io_completions() = 0;  // drain the used rings
  virtual void write_poll_control(bool host_poll_allowed) = 0;  // MSR_KVM_POLL_CONTROL

  // Not an instruction: another CPU wrote a flag this CPU may be polling on (TIF
  // NEED_RESCHED seen by a polling idle loop). Real hardware needs nothing for it;
  // the simulation must wake the actor that spins.
  virtual void notify_poller() = 0;
  // Not an instruction either: the simulation's lookahead (core/sg.hpp local stretches).
  // The guest says it will touch only this CPU's own state until `until` if nothing
  // arrives; the vCPU holds it to that only up to its own next event.
  virtual void promise_local(sim_ns until) = 0;  // no-op when the lookahead is off
  virtual bool promised_local() const = 0;       // a promise holds now
  // Another CPU changed this CPU's scheduler state (its run queue, a flag, a lock it
  // held alone): this CPU's promise ends.
  virtual void revoke_local() = 0;
};

}  // namespace vtick
