#include "host/kvm.hpp"

#include "core/sg.hpp"

namespace vtick {

KvmVcpu& Kvm::create_vcpu(int id, int hw_thread) {
  vcpus_.push_back(std::make_unique<KvmVcpu>(*this, id, *machine_.threads.at(static_cast<size_t>(hw_thread))));
  return *vcpus_.back();
}

void Kvm::io_submit(KvmVcpu& from, std::uint64_t request, sim_ns at) {
  if (io_) io_->submit(from, request, at);
  else from.inject_device_irq(request, at + io_latency());  // the device completes it alone
}

sim_ns Kvm::io_latency() {
  if (params_.io_latency_dist == "exponential") return io_rng_.exponential(params_.io_latency);
  if (params_.io_latency_dist == "lognormal" && params_.io_latency > 0)
    return io_rng_.lognormal(params_.io_latency, params_.io_latency_sigma);
  return params_.io_latency;
}

static int first_cpu(std::uint64_t mask, int n) {
  for (int i = 0; i < n; ++i)
    if ((mask >> i) & 1) return i;
  return 0;
}

void Kvm::create_host_threads(std::uint64_t seed) {
  int n = sched_.nr_cpus();
  std::uint64_t all = n >= 64 ? ~0ULL : (1ULL << n) - 1;
  if (params_.iothread.enabled) {
    IoThreadParams p = params_.iothread;
    p.cpus &= all;
    io_ = std::make_unique<IoThread>(*this, p, first_cpu(p.cpus, n));
  }
  for (int i = 0; i < params_.noise.threads; ++i) {
    NoiseParams p = params_.noise;
    p.cpus &= all;
    int home = (first_cpu(p.cpus, n) + i) % n;
    while (!((p.cpus >> home) & 1)) home = (home + 1) % n;
    noise_.push_back(std::make_unique<NoiseThread>(sched_, p, i, home, seed));
  }
}

void Kvm::start_host_threads() {
  if (io_) io_->start();
  for (auto& t : noise_) t->start();
}

}  // namespace vtick
