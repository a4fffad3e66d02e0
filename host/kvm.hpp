// A KVM virtual machine: its vCPUs and the module parameters they obey.
#pragma once
#include <memory>
#include <vector>

#include "core/rng.hpp"
#include "host/host_sched.hpp"
#include "host/kvm_params.hpp"
#include "host/kvm_vcpu.hpp"
#include "platform/sg_platform.hpp"

namespace vtick {

class Kvm {
 public:
  Kvm(Machine& m, HostParams p, std::uint64_t seed)
      : machine_(m), params_(p), sched_(m, p.sched), not_upstream_(params_), io_rng_(seed, "host/io"), seed_(seed) {}
  HostScheduler& sched() { return sched_; }
  // The VMM's I/O thread and the noise threads, as configured; started with start().
  void create_host_threads();
  // The device's service time of one block request, from host.io_latency[_dist|_sigma].
  sim_ns io_latency();
  // virtio-net TX: the peer's reply arrives after host.net_latency (same distribution).
  void net_xmit(KvmVcpu& from, std::uint64_t request, sim_ns at);
  sim_ns net_latency();
  void start_host_threads();
  IoThread* iothread() { return io_.get(); }
  IoThread* vhost() { return vhost_.get(); }
  const std::vector<std::unique_ptr<NoiseThread>>& noise() const { return noise_; }
  const HostScheduler& sched() const { return sched_; }
  // virtio-blk notify: the request is completed after the host's I/O latency.
  void io_submit(KvmVcpu& from, std::uint64_t request, sim_ns at);
  KvmVcpu& create_vcpu(int id, int hw_thread);
  KvmVcpu& vcpu(int i) { return *vcpus_[static_cast<size_t>(i)]; }
  int nr_vcpus() const { return static_cast<int>(vcpus_.size()); }
  const HostParams& params() const { return params_; }
  std::uint64_t seed() const { return seed_; }
  // The host behaviours upstream KVM does not have (host/not_upstream.hpp): one hook.
  const NotUpstream& not_upstream() const { return not_upstream_; }
  const ArchCosts& costs() const { return machine_.costs; }
  Machine& machine() { return machine_; }

 private:
  Machine& machine_;
  HostParams params_;
  HostScheduler sched_;
  NotUpstream not_upstream_;
  std::vector<std::unique_ptr<KvmVcpu>> vcpus_;
  std::unique_ptr<IoThread> io_;
  std::unique_ptr<IoThread> vhost_;
  Rng io_rng_;
  std::uint64_t seed_;
  std::vector<std::unique_ptr<NoiseThread>> noise_;
};

}  // namespace vtick
