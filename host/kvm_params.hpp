// KVM module parameters (/sys/module/kvm/parameters) and host settings the model reads.
#pragma once
#include <cstdint>
#include <string>

#include "core/time.hpp"
#include "host/host_sched.hpp"
#include "host/host_threads.hpp"
#include "host/timer_aware.hpp"
#include "platform/arch.hpp"

namespace vtick {

struct KvmParams {
  // virt/kvm/kvm_main.c module parameters.
  sim_ns halt_poll_ns = 200000;         // KVM_HALT_POLL_NS_DEFAULT: x86 200000, arm64 500000
  unsigned halt_poll_ns_grow = 2;
  sim_ns halt_poll_ns_grow_start = 10000;
  unsigned halt_poll_ns_shrink = 2;
  sim_ns vm_max_halt_poll_ns = -1;       // KVM_CAP_HALT_POLL per-VM override; -1 = not set
  // arch/x86/kvm
  bool lapic_timer_advance = true;       // kvm.lapic_timer_advance (x86)
  unsigned ple_gap = 128;                // kvm-intel.ple_gap: 0 disables pause-loop exiting
  std::uint64_t ple_window = 4096;       // kvm-intel.ple_window (cycles)
  unsigned ple_window_grow = 2;
  unsigned ple_window_shrink = 0;        // 0: back to ple_window when the thread is scheduled in
  std::uint64_t ple_window_max = 4294967295ULL;
  bool hlt_passthrough = false;          // KVM_X86_DISABLE_EXITS_HLT
  // arch/arm64/kvm
  std::string wfi_trap_policy = "default";  // kvm-arm.wfi_trap_policy: default | trap | notrap
  bool direct_injection = false;         // GICv4.1 vSGIs / GICv4 vLPIs injected without the host
};

struct HostParams {
  KvmParams kvm;
  HostSchedParams sched;
  std::string pinning = "dedicated";       // dedicated: vCPU k on its own hardware thread; shared: any of the VM's
  NoiseParams noise;
  IoThreadParams iothread;
  IoThreadParams vhost{false, ~0ULL, 3000, 3000};  // vhost-net worker: TX and RX handling [EST]
  sim_ns net_latency = 50000;              // round trip to the peer outside the VM, mean [EST]
  sim_ns io_latency = 100000;              // block request service time of the host, mean [EST]
  std::string io_latency_dist = "lognormal";  // constant | exponential | lognormal
  double io_latency_sigma = 0.5;           // lognormal: sigma of log(latency) [EST]
  TimerAwareParams timer_aware;
  sim_ns tick_wakeup_cost = 0;             // the amplifier: extra host work per timer wake-up of a halted vCPU
  std::string l1d_flush = "never";         // kvm-intel.vmentry_l1d_flush: never | cond | always
  bool mds_clear = false;                  // MDS buffer clearing (VERW) on every VM entry
};

// The per-architecture default of halt_poll_ns (KVM_HALT_POLL_NS_DEFAULT).
inline sim_ns default_halt_poll_ns(Isa isa) { return isa == Isa::X86_64 ? 200000 : 500000; }

}  // namespace vtick
