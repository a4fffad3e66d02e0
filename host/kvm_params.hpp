// KVM module parameters (/sys/module/kvm*/parameters) and host settings the model reads.
#pragma once
#include <cstdint>
#include <string>

#include "core/param.hpp"
#include "core/time.hpp"
#include "host/host_sched.hpp"
#include "host/host_threads.hpp"
#include "host/not_upstream.hpp"
#include "platform/arch.hpp"

namespace vtick {

// kvm-arm.wfi_trap_policy (arch/arm64/kvm/arm.c kvm_vcpu_should_clear_twi()).
enum class WfiTrapPolicy { Default, Trap, NoTrap };
VTICK_ENUM_NAMES(WfiTrapPolicy, "default", "trap", "notrap");

#define KVM_MAIN "virt/kvm/kvm_main.c module parameter"
#define VTICK_KVM_PARAMS(P)                                                                                          \
  P(sim_ns, halt_poll_ns, ".halt_poll_ns", Int, Def(200000).on("arm64", 500000), 0, 10e6, "ns",                     \
    "KVM_HALT_POLL_NS_DEFAULT: x86 200000, arm64 500000 (arch/*/include/asm/kvm_host.h)",                            \
    "the longest a halted vCPU polls before blocking (KVM module parameter)")                            \
  P(unsigned, halt_poll_ns_grow, ".halt_poll_ns_grow", Int, 2, 0, 64, "factor", KVM_MAIN,                           \
    "multiplier when a short halt grows the poll window (KVM module parameter)")                         \
  P(sim_ns, halt_poll_ns_grow_start, ".halt_poll_ns_grow_start", Int, 10000, 0, 10e6, "ns", KVM_MAIN,               \
    "first poll window when growing from 0 (KVM module parameter)")                                \
  P(unsigned, halt_poll_ns_shrink, ".halt_poll_ns_shrink", Int, 2, 0, 64, "divisor", KVM_MAIN " (2 since 'KVM: enable halt polling shrink parameter by default'; before: 0, reset)",   \
    "divisor when a long block shrinks the poll window, 0: reset to 0 (KVM module parameter)")       \
  P(sim_ns, max_halt_poll_ns, ".max_halt_poll_ns", Int, -1, -1, 10e6, "ns", "KVM_CAP_HALT_POLL (kvm->max_halt_poll_ns)", \
    "per-VM halt-poll limit set by the VMM (-1: not set, the module parameter applies)")                             \
  P(bool, lapic_timer_advance, ".lapic_timer_advance", Bool, Def(true).only("x86_64"), kNoMin, kNoMax, "",           \
    "arch/x86/kvm/x86.c lapic_timer_advance (default Y); lapic.c: init 1000 ns, max 5000, adjusted by 1/8 of errors within 100 .. 10000 cycles",                                           \
    "x86: start the sw timer early by timer_advance_ns and busy-wait to the deadline")                               \
  P(unsigned, ple_gap, ".ple_gap", Int, Def(128).only("x86_64"), 0, 1024, "cycles", "arch/x86/kvm/vmx/vmx.c KVM_DEFAULT_PLE_GAP", \
    "x86 kvm-intel.ple_gap (0: no pause-loop exiting)")                                                              \
  P(std::uint64_t, ple_window, ".ple_window", Int, Def(4096).only("x86_64").on("milan", 195000), 1, 1e9, "cycles",  \
    "vmx.c KVM_VMX_DEFAULT_PLE_WINDOW 4096; SVM counts PAUSEs (pause_filter_count 3000, ~65 cycles each on Zen 3 [EST])", \
    "x86 kvm-intel.ple_window: spinning this long in PAUSE loops exits")                                             \
  P(unsigned, ple_window_grow, ".ple_window_grow", Int, Def(2).only("x86_64"), 1, 64, "factor", "vmx.c KVM_DEFAULT_PLE_WINDOW_GROW", \
    "x86 kvm-intel.ple_window_grow")                                                                                 \
  P(unsigned, ple_window_shrink, ".ple_window_shrink", Int, Def(0).only("x86_64"), 0, 64, "divisor",                \
    "vmx.c KVM_DEFAULT_PLE_WINDOW_SHRINK", "x86 kvm-intel.ple_window_shrink (0: back to ple_window when scheduled in)") \
  P(std::uint64_t, ple_window_max, ".ple_window_max", Int, Def(4294967295LL).only("x86_64"), 1, 4294967295.0, "cycles", \
    "vmx.c KVM_VMX_DEFAULT_PLE_WINDOW_MAX (UINT_MAX)", "x86 kvm-intel.ple_window_max")                              \
  P(bool, hlt_passthrough, ".hlt_passthrough", Bool, Def(false).only("x86_64"), kNoMin, kNoMax, "",                 \
    "KVM_CAP_X86_DISABLE_EXITS (KVM_X86_DISABLE_EXITS_HLT; QEMU -overcommit cpu-pm=on), off unless the VMM asks",                               \
    "x86: HLT idles the hardware thread in guest mode, no exit")                                                     \
  P(WfiTrapPolicy, wfi_trap_policy, ".wfi_trap_policy", Enum, Def("default").only("arm64"), kNoMin, kNoMax, "",      \
    "arch/arm64/kvm/arm.c early_param kvm-arm.wfi_trap_policy (Colton Lewis, 2024)", "arm64 kvm-arm.wfi_trap_policy")                     \
  P(bool, direct_injection, ".direct_injection", Bool, Def(false).only("arm64"), kNoMin, kNoMax, "",                \
    "GICv4.1 vSGI / GICv4 vLPI; Altra's GIC-600 is GICv3 [VERIFY]",                                               \
    "arm64: interrupts are injected without the host (no kick exits)")                                               \
  P(bool, apicv, ".apicv", Bool, Def(true).only("x86_64"), kNoMin, kNoMax, "",                                       \
    "kvm_intel.enable_apicv (default Y where the CPU has APICv: Skylake-SP); kvm_amd.avic (default N upstream on Zen 3 [VERIFY]; true here until the reproductions are rerun); a nested host's KVM has neither unless its own host exposes them: the AMD guest of docs/real-guest/trace-2026-12-06c takes a CALL_FUNCTION_SINGLE 6.7 us after the send when its target runs, 3.1 us when it is halted", \
    "x86: interrupts are posted to a vCPU in guest mode without an exit (APICv / AVIC); false: kvm_vcpu_kick() IPIs its CPU and the vCPU takes an IRQ exit (host.costs.kick_ns) to have them injected on entry")

struct KvmParams {
  VTICK_PARAMS(KvmParams, VTICK_KVM_PARAMS);
};

// vCPU thread placement by the VMM.
enum class Pinning { Dedicated, Shared };
VTICK_ENUM_NAMES(Pinning, "dedicated", "shared");
// kvm-intel.vmentry_l1d_flush (arch/x86/kvm/vmx/vmx.c vmentry_l1d_param).
enum class L1dFlush { Never, Cond, Always };
VTICK_ENUM_NAMES(L1dFlush, "never", "cond", "always");
// Distribution of a host device's service time.
enum class LatencyDist { Constant, Exponential, Lognormal };
VTICK_ENUM_NAMES(LatencyDist, "constant", "exponential", "lognormal");

#define VTICK_HOST_PARAMS(P)                                                                                         \
  P(Pinning, pinning, ".pinning", Enum, "dedicated", kNoMin, kNoMax, "", "vCPU thread affinity set by the VMM; OCI shapes give each vCPU its own hardware thread [VERIFY]", \
    "vCPU threads: one hardware thread each (dedicated), or any of the VM's (shared)")                               \
  P(sim_ns, net_latency, ".net_latency", Duration, 50000, 0, 1e9, "ns", "[EST] a round trip to a peer in the same region, in-VCN",           \
    "round trip to the network peer (mean; distribution of host.io_latency_dist)")                                   \
  P(sim_ns, io_latency, ".io_latency", Duration, 100000, 0, 100e6, "ns", "[EST] local NVMe 4 KB write with flush",     \
    "block request service time of the host device (mean)")                                                          \
  P(LatencyDist, io_latency_dist, ".io_latency_dist", Enum, "lognormal", kNoMin, kNoMax, "",                   \
    "[EST] flash write latency is right-skewed with a tail of a few times the mean (seeded stream host/io)",                 \
    "distribution of the block request and network service times")                                                   \
  P(double, io_latency_sigma, ".io_latency_sigma", Float, 0.5, 0, 2, "",                                \
    "[EST] sigma 0.5 puts p99 at ~3.2x the median (~2.8x the mean)",                                    \
    "lognormal: standard deviation of log(service time)")                                                            \
  P(sim_ns, tick_wakeup_cost, ".tick_wakeup_cost", Duration, 0, 0, 1e6, "ns", "the amplifier of hypotheses.md: a question (how much would a tick wake-up have to cost?), not a cost",  \
    "amplifier: extra host work per timer wake-up of a halted vCPU")                                                 \
  P(L1dFlush, l1d_flush, ".mitigations.l1d_flush", Enum, Def("never").on("skylake-sp", "cond"), kNoMin, kNoMax, "",  \
    "upstream defaults l1tf=flush: cond on L1TF-affected CPUs (Skylake-SP), never elsewhere",                        \
    "kvm-intel.vmentry_l1d_flush: L1D flush on VM entry")                                                            \
  P(bool, mds_clear, ".mitigations.mds_clear", Bool, Def(false).on("skylake-sp", true), kNoMin, kNoMax, "",          \
    "upstream default mds=full on MDS-affected CPUs (Skylake-SP)", "VERW buffer clearing on every VM entry")

struct HostParams {
  VTICK_PARAMS(HostParams, VTICK_HOST_PARAMS);
  KvmParams kvm;
  HostSchedParams sched;
  NoiseParams noise;
  IoThreadParams iothread;
  VhostParams vhost;
  TimerAwareParams timer_aware;
};

}  // namespace vtick
