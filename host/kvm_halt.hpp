// virt/kvm/kvm_main.c: the halt-polling rules of kvm_vcpu_halt() and the KVM halt stats.
#pragma once
#include <cstdint>

#include "core/time.hpp"
#include "host/kvm_params.hpp"

namespace vtick {

// The generic per-vCPU stats of struct kvm_vcpu_stat_generic that halting touches.
struct KvmHaltStats {
  std::uint64_t halt_successful_poll = 0;
  std::uint64_t halt_attempted_poll = 0;
  std::uint64_t halt_poll_invalid = 0;   // only s390 reports invalid wake-ups; stays 0 here
  std::uint64_t halt_wakeup = 0;
  sim_ns halt_poll_success_ns = 0;
  sim_ns halt_poll_fail_ns = 0;
  sim_ns halt_wait_ns = 0;
  std::uint64_t halt_poll_grow = 0;      // model counters: grow/shrink events
  std::uint64_t halt_poll_shrink = 0;
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
