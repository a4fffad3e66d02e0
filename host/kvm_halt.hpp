// virt/kvm/kvm_main.c: the halt-polling rules of kvm_vcpu_halt() and the KVM halt stats.
#pragma once
#include "core/stats.hpp"
#include <cstdint>

#include "core/time.hpp"
#include "host/kvm_params.hpp"

namespace vtick {

// The generic per-vCPU stats of struct kvm_vcpu_stat_generic that halting touches.
// (KVM_GENERIC_VCPU_STATS() in include/linux/kvm_host.h, the names of debugfs/binary stats)
#define VTICK_KVM_HALT_STATS(C)                                                                                      \
  C(std::uint64_t, halt_attempted_poll, "kvm.halt_attempted_poll", "count", Counter, "halts that polled")          \
  C(std::uint64_t, halt_successful_poll, "kvm.halt_successful_poll", "count", Counter, "polls that ended the halt (never scheduled out)") \
  C(std::uint64_t, halt_poll_invalid, "kvm.halt_poll_invalid", "count", Counter, "invalid wake-ups while polling (s390 only: 0)") \
  C(std::uint64_t, halt_wakeup, "kvm.halt_wakeup", "count", Counter, "wake-ups of a blocked vCPU (kvm_vcpu_block)") \
  C(sim_ns, halt_poll_success_ns, "kvm.halt_poll_success_ns", "ns", Counter, "time in successful polls")          \
  C(sim_ns, halt_poll_fail_ns, "kvm.halt_poll_fail_ns", "ns", Counter, "time in polls that then blocked")          \
  C(sim_ns, halt_wait_ns, "kvm.halt_wait_ns", "ns", Counter, "time blocked (scheduled out) in kvm_vcpu_block()")   \
  C(std::uint64_t, halt_poll_grow, "kvm.halt_poll_grow", "count", Counter, "grow_halt_poll_ns() that changed the window (trace_kvm_halt_poll_ns grow)") \
  C(std::uint64_t, halt_poll_shrink, "kvm.halt_poll_shrink", "count", Counter, "shrink_halt_poll_ns() that changed the window")
struct KvmHaltStats {
  VTICK_STATS(VTICK_KVM_HALT_STATS)
};

// kvm_vcpu_max_halt_poll_ns(): the per-VM override if set, else the module parameter.
sim_ns kvm_vcpu_max_halt_poll_ns(const KvmParams& p);

// grow_halt_poll_ns() / shrink_halt_poll_ns() on a vCPU's current halt_poll_ns.
sim_ns grow_halt_poll_ns(const KvmParams& p, sim_ns cur);
sim_ns shrink_halt_poll_ns(const KvmParams& p, sim_ns cur);

// The end of kvm_vcpu_halt(): the new halt_poll_ns after a halt of `halt_ns` (poll +
// block), given whether polling was allowed (!kvm_arch_no_poll()).
sim_ns adjust_halt_poll_ns(const KvmParams& p, sim_ns cur, sim_ns halt_ns, bool poll_allowed, KvmHaltStats& st);

// update_halt_poll_stats(): a poll of `poll_ns` that ended the halt (success) or not.
void update_halt_poll_stats(KvmHaltStats& st, sim_ns poll_ns, bool success);

}  // namespace vtick
