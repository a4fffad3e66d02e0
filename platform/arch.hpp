// Per-architecture cost table: what a hardware thread pays for each host/guest transition.
#pragma once
#include <string>
#include <vector>

#include "core/param.hpp"
#include "core/time.hpp"

namespace vtick {

enum class Isa { X86_64, Arm64 };
VTICK_ENUM_NAMES(Isa, "x86_64", "arm64");
inline const char* isa_name(Isa isa) { return enum_name(isa); }

// Host idle states a hardware thread can reach (intel_idle names; PSCI states map onto them).
enum class HostCState { C1 = 0, C1E, C6, Count };
VTICK_ENUM_NAMES(HostCState, "C1", "C1E", "C6");
inline constexpr int kNumCStates = static_cast<int>(HostCState::Count);
inline const char* cstate_name(HostCState s) { return enum_name(s); }

// Every cost is host CPU time on the hardware thread that pays it, at nominal speed (SMT
// contention stretches it). "Handling" costs exclude the world switch, which is
// vmexit_ns for every exit. One row per cost: the Skylake-SP value, range and source, then
// Milan's and Altra's (domain/kernel-kvm.md section 3).
#define SKX_IPI "Wanpeng Li, 'KVM: X86: Ultra fast single target IPI fastpath' (Apr 2020): 3,293 cycles on SKX"
#define SKX_TSC "Wanpeng Li, 'KVM: VMX: Tscdeadline timer emulation fastpath' (Apr 2020): tscdeadline_immed 2,431 cycles on SKX"
#define HALT_POLL_RST "Documentation/virt/kvm/halt-polling.rst: a trip through the scheduler is 'a few micro-seconds'"
#define EXIT_RANGE "range: an always-exiting CPUID costs 1.0 us in this project's AMD EPYC guest (docs/validation.md), ~3.5 us on another AMD host, 5-6 us on mitigated Intel hosts (issue 12)"
#define ARM_HALTPOLL "Ankur Arora, '[PATCH v8 00/11] Enable haltpoll on arm64' (lore 20240925232425.2763385-1-ankur.a.arora@oracle.com) and the notrap follow-up 877c9zhk68.fsf@oracle.com: perf bench sched pipe 13.48 us/op trapping WFI, 12.6 notrap, 6.84-7.6 guest haltpoll"
#define NESTED_RANGE "range: a nested host (a KVM guest run by a VMM inside a cloud VM) pays each of its exits twice; this project's Firecracker guest (docs/real-guest/trace-2026-12-06b) measures a CPUID exit at 6.5 us and a cross-vCPU futex wake-up at 28 us one way (vtick-probe pingpong 56.7 us)"
#define INTEL_HT "Intel, 'How to Determine the Effectiveness of Hyper-Threading' (2011): up to 30% gain with both threads busy"
#define VTICK_ARCH_COSTS(P)                                                                                                   \
  P(sim_ns, vmexit_ns, ".vmexit_ns", Float,                                                                                   \
    Def(600).on("milan", 550, 300, 6000, "LKML Dec 2020 (SVM vmsave/vmload thread): VMRUN->#VMEXIT 1,340-1,380 cycles on EPYC = 0.53 us at 2.55 GHz") \
        .on("altra", 500, 200, 6000, "[EST] arm64 VHE exit + entry"),                                                       \
    300, 15000, "ns", "[EST] modern Intel null exit 1,000-1,500 cycles (kernel-kvm.md s3); SplitX: ~2,000 cycles on Nehalem; " EXIT_RANGE "; " NESTED_RANGE, \
    "VM exit + entry world switch of a null exit")                                                                            \
  P(sim_ns, hlt_exit_ns, ".hlt_exit_ns", Float,                                                                               \
    Def(300).on("milan", 300, 100, 5000, "[EST] as skylake-sp")                                                               \
        .on("altra", 500, 100, 5000, "[EST] kvm_handle_wfx -> kvm_vcpu_wfi: vgic VMCR sync, vgic_v4_put"),                 \
    100, 5000, "ns", "[EST] kvm_emulate_halt + has_events check, cf. fastpath HLT", "HLT/WFI exit handling up to the halt decision") \
  P(sim_ns, timer_write_ns, ".timer_write_ns", Float,                                                                         \
    Def(400).on("milan", 400, 100, 5000, "[EST] as skylake-sp (fastpath is vendor-neutral x86.c code)")                     \
        .on("altra", 0, 0, 5000, "not used: CNTV_CVAL is written without a trap (direct vtimer, arch_timer.c)"),            \
    100, 5000, "ns", "[EST] " SKX_TSC " = 1.2 us for write exit + injection, minus vmexit_ns",                                \
    "timer-deadline write exit handling (x86 WRMSR IA32_TSC_DEADLINE fastpath)")                                              \
  P(sim_ns, timer_ctl_ns, ".timer_ctl_ns", Float,                                                                             \
    Def(800).on("milan", 800, 200, 5000, "[EST] as skylake-sp").on("altra", 0, 0, 5000, "not used: CNTV_CTL is written without a trap"), \
    200, 5000, "ns", "[EST] LVTT write takes the full (non-fastpath) APIC write path",                                        \
    "clockevent state switch exit handling (x86 x2APIC LVTT write)")                                                          \
  P(sim_ns, ipi_send_ns, ".ipi_send_ns", Float,                                                                               \
    Def(1000).on("milan", 1000, 400, 8000, "[EST] as skylake-sp; AVIC state of the host unknown")                             \
        .on("altra", 800, 300, 8000, "[EST] ICC_SGI1R_EL1 trap -> vgic_v3_dispatch_sgi"),                                     \
    400, 8000, "ns", "[EST] " SKX_IPI " = 1.65 us at 2.0 GHz, minus vmexit_ns; range: a PV send-IPI costs ~7 us on mitigated parts (issue 12)",                                               \
    "sender's IPI write exit handling (x86 x2APIC ICR fastpath, arm64 ICC_SGI1R_EL1 trap)")                                   \
  P(sim_ns, ipi_deliver_ns, ".ipi_deliver_ns", Float,                                                                         \
    Def(500).on("milan", 500, 100, 5000, "[EST] as skylake-sp").on("altra", 500, 100, 5000, "[EST] kvm_vcpu_kick to a running target"), \
    100, 5000, "ns", "[EST] posted-interrupt notification IPI between hardware threads",                                      \
    "IPI notification latency to the target hardware thread")                                                                 \
  P(sim_ns, timer_expiry_ns, ".timer_expiry_ns", Float,                                                                       \
    Def(300).on("milan", 300, 100, 5000, "[EST] hrtimer-backed on SVM (no preemption timer); cost as an interrupt exit")     \
        .on("altra", 400, 100, 5000, "[EST] host PPI -> IRQ exit -> kvm_arch_timer_handler"),                                 \
    100, 5000, "ns", "[EST] preemption-timer exit fastpath (kvm_lapic_expired_hv_timer)",                                     \
    "guest timer expiring in guest mode: exit handling (x86 preemption timer, arm64 vtimer PPI)")                             \
  P(sim_ns, vcpu_block_ns, ".vcpu_block_ns", Float,                                                                           \
    Def(1500).on("milan", 1500, 500, 10000, "[EST] " HALT_POLL_RST)                                                            \
        .on("altra", 1500, 500, 10000, "[EST] includes kvm_timer_blocking() bg_timer start; " HALT_POLL_RST),                  \
    500, 10000, "ns", "[EST] half of the scheduler round trip; " HALT_POLL_RST,                                              \
    "kvm_vcpu_block(): blocking hooks, sw timer start, schedule() out")                                                       \
  P(sim_ns, vcpu_wakeup_ns, ".vcpu_wakeup_ns", Float,                                                                         \
    Def(1500).on("milan", 1500, 500, 10000, "[EST] " HALT_POLL_RST).on("altra", 1500, 500, 10000, "[EST] " HALT_POLL_RST),      \
    500, 30000, "ns", "[EST] half of the scheduler round trip; " HALT_POLL_RST "; " NESTED_RANGE,                            \
    "vCPU thread wake-up: handler, schedule() in, vcpu_load")                                                \
  P(sim_ns, vcpu_kick_wakeup_ns, ".vcpu_kick_wakeup_ns", Float,                                                               \
    Def(500).on("milan", 500, 200, 10000, "[EST] as skylake-sp").on("altra", 500, 200, 10000, "[EST] as skylake-sp"),          \
    200, 10000, "ns", "[EST] a remote try_to_wake_up(): select_task_rq, enqueue, the host's wake-up IPI; " HALT_POLL_RST "; range: an ICR write exit to a halted vCPU takes 8.8-12.9 us p50 in this project's Intel guest (docs/validation.md, trace-compare's wrmsr.icr)", \
    "kvm_vcpu_wake_up() of a blocked vCPU thread (rcuwait_wake_up, the host's try_to_wake_up), run by the waker: the IPI sender inside its exit (vmx kvm_vcpu_trigger_posted_interrupt() off guest mode, kvm_vcpu_kick()), the host timer's callback on the vCPU's CPU") \
  P(sim_ns, halt_resume_ns, ".halt_resume_ns", Float,                                                                         \
    Def(400).on("milan", 400, 100, 10000, "[EST] SVM has no preemption timer to switch back to: kvm_vcpu_halt()'s tail and the injection on entry; range: a nested AMD host (docs/real-guest/trace-2026-12-06c) takes 5.7-6.7 us p50 from an ICR write to the IRQ entry on a vCPU whose halt is polled")                                                              \
        .on("altra", 1500, 300, 5000, ARM_HALTPOLL ": a trapped-WFI wake costs ~3.3 us more than a polling guest's, ~1.3 of it the sender's SGI trap; the rest is kvm_vcpu_wfi()'s kvm_vgic_load() and kvm_vgic_flush_hwstate() before entry"), \
    100, 10000, "ns", "[EST] vcpu_block() tail: kvm_lapic_switch_to_hv_timer() (hrtimer_cancel, preemption timer) and the injection on entry; " NESTED_RANGE, \
    "a halt's return to guest mode once woken (polled or blocked): the arch's halt tail and injection")             \
  P(double, wake_sigma, ".wake_sigma", Float,                                                                                 \
    Def(0).on("milan", 0, 0, 1, "[EST] as skylake-sp").on("altra", 0, 0, 1, "[EST] as skylake-sp"),                         \
    0, 1, "log sigma",                                                                                                        \
    "[EST] 0: every wake-up the same; range: a nested AMD host's ICR-write-to-IRQ-entry on a polled halt has p10/p50/p90 3.5-5.1/5.7-6.7/8.9-10.3 us (docs/real-guest/trace-2026-12-06c), a sigma of about 0.35", \
    "spread of a woken vCPU's way back into guest mode (halt_resume_ns, vcpu_wakeup_ns): each drawn lognormal with its declared mean and this sigma of its log") \
  P(sim_ns, kick_ns, ".kick_ns", Float,                                                                                       \
    Def(300).on("milan", 300, 100, 10000, "[EST] as skylake-sp; range: a nested host's kick is an IPI its own host delivers: the AMD guest of docs/real-guest/trace-2026-12-06c takes a CALL_FUNCTION_SINGLE 3.6 us later when its target runs than when it is halted") \
        .on("altra", 200, 100, 3000, "[EST] the kick IPI's host handler (IPI_RESCHEDULE, scheduler_ipi) has nothing to do; kvm_arch_vcpu_ioctl_run() injects on the way back in"), \
    100, 10000, "ns", "[EST] x86 only without APICv / AVIC (host.kvm.apicv false): with it interrupts are posted to a running vCPU without an exit",                      \
    "IRQ exit of a kick (kvm_vcpu_kick() to a vCPU in guest mode): exit handling")                                            \
  P(sim_ns, guest_timer_write_ns, ".guest_timer_write_ns", Float,                                                             \
    Def(0).on("milan", 0, 0, 200, "not used: the write exits (timer_write_ns)")                                               \
        .on("altra", 50, 20, 200, "[EST] tens of ns for a system-register write (kernel-kvm.md s3)"),                         \
    0, 200, "ns", "not used: the write exits (timer_write_ns)", "guest-side cost of a timer write that does not exit")       \
  P(sim_ns, host_irq_ns, ".host_irq_ns", Float,                                                                               \
    Def(1000).on("milan", 1000, 300, 6000, "[EST] as skylake-sp").on("altra", 1000, 300, 6000, "[EST] host interrupt handling on a VHE host"), \
    300, 6000, "ns", "[EST] host timer/IPI handler run on the vCPU's hardware thread",                                        \
    "host interrupt taken in guest mode: external-interrupt exit handling")                                                   \
  P(sim_ns, l1d_flush_ns, ".l1d_flush_ns", Float,                                                                             \
    Def(2000).on("milan", 2000, 500, 5000, "[EST] not needed on Zen 3 (not L1TF-affected); cost if forced")                  \
        .on("altra", 2000, 500, 5000, "[EST] no L1TF on Neoverse N1; cost if forced"),                                        \
    500, 5000, "ns", "[EST] MSR_IA32_FLUSH_CMD writes back and invalidates the 32 KB L1D; Skylake-SP is L1TF-affected",       \
    "L1D flush on VM entry (L1TF: vmentry_l1d_flush)")                                                                        \
  P(sim_ns, mds_clear_ns, ".mds_clear_ns", Float,                                                                             \
    Def(300).on("milan", 300, 100, 1000, "[EST] not needed on Zen 3 (not MDS-affected); cost if forced")                     \
        .on("altra", 300, 100, 1000, "[EST] no MDS on Neoverse N1; cost if forced"),                                          \
    100, 1000, "ns", "[EST] VERW with MD_CLEAR microcode, a few hundred cycles; Skylake-SP is MDS-affected",                  \
    "VERW CPU buffer clearing on VM entry (MDS)")                                                                             \
  P(double, smt_factor_busy, ".smt_factor_busy", Float,                                                                       \
    Def(0.65).on("milan", 0.65, 0.5, 0.8, "[EST] as skylake-sp").on("altra", 1.0, 1.0, 1.0, "Neoverse N1 has no SMT"),        \
    0.5, 0.8, "factor", "[EST] per-thread 0.55-0.7 of solo from " INTEL_HT,                                                   \
    "own speed while the SMT sibling runs guest or host code")                                                                \
  P(double, smt_factor_spin, ".smt_factor_spin", Float,                                                                       \
    Def(0.85).on("milan", 0.85, 0.7, 0.95, "[EST] as skylake-sp").on("altra", 1.0, 1.0, 1.0, "Neoverse N1 has no SMT"),       \
    0.7, 0.95, "factor",                                                                                                      \
    "[EST] PAUSE loop (~140 cycles per PAUSE on SKX, Intel Optimization Manual) leaves most issue slots to the sibling",      \
    "own speed while the SMT sibling spins in a poll loop")                                                                   \
  P(sim_ns, c1_exit_ns, ".c1_exit_ns", Float,                                                                                 \
    Def(2000).on("milan", 1000, 500, 5000, "[EST] ACPI C1 (MWAIT/HLT) on Zen 3")                                                \
        .on("altra", 200, 50, 1000, "[EST] WFI clock-gates the Neoverse N1 core and resumes in well under the 1 us that Altra's _LPI table declares as a bound (edk2-platforms JadePkg CPU.asi)"), \
    500, 5000, "ns", "[VERIFY] intel_idle skx_cstates: C1 exit 2 us (icx/spr 1 us)", "host C1 exit latency")                               \
  P(sim_ns, c1e_exit_ns, ".c1e_exit_ns", Float,                                                                               \
    Def(10000).on("milan", 1000, 500, 5000, "[EST] Zen 3 has no separate C1E: same as C1")                                   \
        .on("altra", 200, 50, 1000, "[EST] no separate state: same as WFI"),                                                \
    1000, 20000, "ns", "[VERIFY] intel_idle skx_cstates: C1E exit 10 us (icx 4, spr 2)", "host C1E exit latency")                           \
  P(sim_ns, c6_exit_ns, ".c6_exit_ns", Float,                                                                                 \
    Def(133000).on("milan", 100000, 20000, 400000, "[EST] ACPI C2 (CC6) on Zen 3")                                            \
        .on("altra", 100000, 20000, 400000, "[EST] PSCI core power-down"),                                                    \
    50000, 300000, "ns", "[VERIFY] intel_idle skx_cstates: C6 exit 133 us (icx 170, spr 290)", "host C6 exit latency")                          \
  P(sim_ns, c1_residency_ns, ".c1_residency_ns", Float,                                                                       \
    Def(2000).on("milan", 2000, 1000, 10000, "[EST]").on("altra", 1000, 500, 10000, "[EST]"),                                 \
    500, 10000, "ns", "[VERIFY] intel_idle skx_cstates: C1 target residency 2 us (icx/spr 1 us)", "host C1 target residency")              \
  P(sim_ns, c1e_residency_ns, ".c1e_residency_ns", Float,                                                                     \
    Def(20000).on("milan", 2000, 1000, 10000, "[EST]").on("altra", 1000, 500, 10000, "[EST]"),                                \
    2000, 50000, "ns", "[VERIFY] intel_idle skx_cstates: C1E target residency 20 us (icx/spr 4 us)", "host C1E target residency")          \
  P(sim_ns, c6_residency_ns, ".c6_residency_ns", Float,                                                                       \
    Def(600000).on("milan", 400000, 100000, 1000000, "[EST]").on("altra", 300000, 100000, 1000000, "[EST]"),                  \
    200000, 1000000, "ns", "[VERIFY] intel_idle skx_cstates: C6 target residency 600 us (icx 600, spr 800)", "host C6 target residency")

struct ArchCosts {
  // The host CPU model (what the shape is, not parameters: arch.cpp's list of models).
  std::string name;               // "skylake-sp", "milan", "altra"
  Isa isa = Isa::X86_64;
  double ghz = 0;
  bool smt = false;               // two hardware threads per core
  bool timer_write_exits = true;  // x86 TSC-deadline MSR is intercepted; arm64 CNTV_CVAL is not

  VTICK_PARAMS(ArchCosts, VTICK_ARCH_COSTS);  // ArchCosts(): the built-in platform's (Skylake-SP)
  struct Model;
  explicit ArchCosts(const Model& m);
  PCtx ctx() const { return {isa_name(isa), name}; }

  sim_ns cstate_exit_ns(HostCState s) const;
  sim_ns cstate_residency_ns(HostCState s) const;
  void zero_cstate_exits() { c1_exit_ns = c1e_exit_ns = c6_exit_ns = 0; }
};

// The host CPU models with cost tables: their identity and their costs' defaults.
const ArchCosts& arch_costs(const std::string& name);  // throws std::out_of_range
std::vector<std::string> arch_names();

}  // namespace vtick
