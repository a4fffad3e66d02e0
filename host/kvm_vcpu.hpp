// A vCPU thread of KVM, declared once and defined along KVM's own files: vcpu_run() and
// the exits (kvm_vcpu.cpp: arch/x86/kvm/x86.c, arch/arm64/kvm/arm.c), halting, blocking
// and waking (kvm_halt.cpp: virt/kvm/kvm_main.c), the HLT/WFI exits (halt_exit.cpp: vmx.c
// handle_halt, x86.c kvm_emulate_halt, arm64 handle_exit.c kvm_handle_wfx), VMX entry
// mitigations and pause-loop exiting (vmx.cpp), the guest's timer (x86_lapic.cpp,
// arm64_timer.cpp).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <simgrid/forward.h>

#include <memory>

#include "core/rng.hpp"
#include "core/sg.hpp"
#include "core/state_clock.hpp"
#include "host/host_sched.hpp"
#include "host/kvm_params.hpp"
#include "host/kvm_stats.hpp"
#include "host/vcpu_timer.hpp"
#include "platform/hw_thread.hpp"
#include "platform/vhw.hpp"

namespace vtick {

class Kvm;

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
  bool vcpu_is_preempted() const override { return preempted_; }
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
  void promise_local(sim_ns until) override { promise_local_until(std::min(until, next_event_time(true))); }
  bool promised_local() const override { return in_local_stretch(); }
  void revoke_local() override { bell_.revoke_promise(); }

  // The waker's side (host/kvm_halt.cpp): an interrupt made pending for this vCPU
  // (__apic_accept_irq / vgic_v3_dispatch_sgi) and the notification that follows it
  // (kvm_vcpu_kick(): posted-interrupt IPI, kick, or the sender's kvm_vcpu_wake_up()) reaching its hardware
  // thread at `at`.
  void kvm_apic_accept_irq(IrqVector v, sim_ns at);
  void kvm_vcpu_kick();
  // A host device completes request `token` and raises its MSI on this vCPU at `at`;
  // without a token, the MSI completes nothing (a spurious or test interrupt).
  void inject_device_irq(std::uint64_t token, sim_ns at);
  void inject_device_irq(sim_ns at);

  int id() const { return id_; }
  const HostThread& host_thread() const { return thread_; }
  HwThread& hw_thread() { return cur_hw(); }
  HwThread& cur_hw() { return thread_.cpu ? thread_.cpu->hw : hw_; }  // where it runs or last ran
  const VcpuStats& stats() const { return st_; }
  sim_ns halt_poll_ns() const { return halt_poll_ns_; }
  sim_ns timer_advance_ns() const { return timer_->timer_advance_ns(); }
  std::uint64_t ple_window() const { return ple_window_; }
  std::array<sim_ns, static_cast<size_t>(VcpuState::Count)> time_in_state(sim_ns now) const { return time_.totals(now); }
  // The poll time of a kvm_vcpu_halt() still going on at `now` (its stats are updated at
  // its end, as kvm_main.c does): 0 outside a halt.
  sim_ns poll_open_ns(sim_ns now) const;

 private:
  struct Inflight { IrqVector v; sim_ns at; bool has_io = false; std::uint64_t io = 0; };

  void thread_main();
  void set_state(VcpuState s);
  void host_work(sim_ns ns);              // host kernel work on this hardware thread
  bool process_events(bool in_guest);     // timer expiry, arrived notifications
  sim_ns next_event_time(bool guest_mode = false) const;  // guest timer or next notification arrival
  sim_ns guest_timer_in(sim_ns now) const {  // time to the guest's armed timer (KTIME_MAX: none)
    return timer_->armed() ? timer_->deadline() - now : KTIME_MAX;
  }
  bool pending_irq() const { return irr_ != 0; }
  void deliver();                         // inject pending interrupts into the guest
  void exit_to_host(sim_ns handling_ns, std::uint64_t& counter);
  void enter_guest(sim_ns handling = 0);
  void preempt_exit();
  void kvm_exit(ExitReason r);            // a VM exit: stat.exits and trace_kvm_exit()
  // host/halt_exit.cpp: the HLT / WFI exits and the halts that stay in guest mode
  void handle_halt();                     // vmx.c / svm.c exit handler
  void kvm_emulate_halt();                // x86.c
  void kvm_handle_wfx();                  // arm64 handle_exit.c
  void kvm_vcpu_wfi();                    // arm64 arm.c
  bool kvm_vcpu_should_clear_twi();       // arm64 arm.c: WFI does not trap
  void halt_in_guest();                   // HLT passthrough / WFI not trapped
  // host/kvm_halt.cpp: virt/kvm/kvm_main.c
  bool kvm_vcpu_check_block() const { return pending_irq(); }
  sim_ns kvm_vcpu_halt();                 // returns host work owed before entry
  bool kvm_vcpu_block(sim_ns& pending);
  void kvm_vcpu_wake_up(bool by_timer);
  void wait_for_wake(sim_ns until);
  // host/vmx.cpp
  sim_ns entry_mitigation();              // vmx_l1d_flush() + VERW
  void handle_pause();                    // pause-loop exit: grow_ple_window()
  void shrink_ple_window();               // vmx_vcpu_sched_in()
  // a woken vCPU's way back into guest mode: `mean`, or a lognormal draw around it
  // (host.costs.wake_sigma); no draw at sigma 0, so those runs keep their numbers
  sim_ns resume_cost(sim_ns mean);

  Kvm& vm_;
  int id_;
  HwThread& hw_;                     // its first hardware thread (KVM_RUN)
  Doorbell bell_;
  Rng wake_rng_;                     // resume_cost()'s stream
  GuestIrqSink* idt_ = nullptr;
  std::function<void()> guest_main_;

  // vCPU architectural state the host keeps
  bool if_ = false;                  // guest RFLAGS.IF / PSTATE.I (true = enabled)
  std::uint32_t irr_ = 0;            // pending vectors (LAPIC IRR / vGIC pending)
  std::unique_ptr<VcpuTimer> timer_; // the guest's timer (LAPIC / arch timer)
  bool poll_control_ = true;         // MSR_KVM_POLL_CONTROL bit 0 (initial 1)
  bool powered_off_ = false;
  std::vector<Inflight> inflight_;   // notifications on their way to this thread
  std::vector<std::uint64_t> used_ring_;  // completed I/O requests the guest has not read

  sim_ns halt_poll_ns_ = 0;          // vcpu->halt_poll_ns
  sim_ns halt_start_ = -1;           // the kvm_vcpu_halt() in progress: its start (-1: none)
  sim_ns halt_poll_end_ = -1;        // ... and the end of its poll (-1: still polling)
  HostThread thread_;                // this vCPU thread in the host scheduler
  std::uint64_t ple_window_ = 0;     // current pause-loop window (cycles)
  bool scheduled_out_ = false;       // since the last entry (l1tf_flush_l1d)
  bool preempted_ = false;  // kvm_steal_time_set_preempted() until the next entry
  sim_ns steal_ns_ = 0;              // run_delay reported through the steal clock
  StateClock<VcpuState> time_;
  VcpuStats st_;
};

}  // namespace vtick
