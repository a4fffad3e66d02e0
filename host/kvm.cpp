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

void Kvm::net_xmit(KvmVcpu& from, std::uint64_t request, sim_ns at) {
  if (vhost_) vhost_->submit(from, request, at);
  else from.inject_device_irq(request, at + net_latency());
}

// One draw of host.io_latency_dist around `mean`; block and network share the stream
// and the distribution, each with its own mean.
static sim_ns draw(Rng& rng, const HostParams& p, sim_ns mean) {
  if (p.io_latency_dist == LatencyDist::Exponential) return rng.exponential(mean);
  if (p.io_latency_dist == LatencyDist::Lognormal && mean > 0) return rng.lognormal(mean, p.io_latency_sigma);
  return mean;
}

sim_ns Kvm::io_latency() { return draw(io_rng_, params_, params_.io_latency); }
sim_ns Kvm::net_latency() { return draw(io_rng_, params_, params_.net_latency); }

static int first_cpu(std::uint64_t mask, int n) {
  for (int i = 0; i < n; ++i)
    if ((mask >> i) & 1) return i;
  return 0;
}

void Kvm::create_host_threads() {
  int n = sched_.nr_cpus();
  std::uint64_t all = n >= 64 ? ~0ULL : (1ULL << n) - 1;
  if (const IoThreadParams& p = params_.iothread; p.enabled) {
    std::uint64_t cpus = p.cpus.mask & all;
    io_ = std::make_unique<IoThread>(*this, "iothread", cpus, p.submit_ns, p.complete_ns, first_cpu(cpus, n), false);
  }
  if (const VhostParams& p = params_.vhost; p.enabled) {
    std::uint64_t cpus = p.cpus.mask & all;
    vhost_ = std::make_unique<IoThread>(*this, "vhost", cpus, p.submit_ns, p.complete_ns, first_cpu(cpus, n), true);
  }
  for (int i = 0; i < params_.noise.threads; ++i) {
    NoiseParams p = params_.noise;
    p.cpus.mask &= all;
    int home = (first_cpu(p.cpus.mask, n) + i) % n;
    while (!((p.cpus.mask >> home) & 1)) home = (home + 1) % n;
    noise_.push_back(std::make_unique<NoiseThread>(sched_, p, i, home, seed_));
  }
}

void Kvm::start_host_threads() {
  if (io_) io_->start();
  if (vhost_) vhost_->start();
  for (auto& t : noise_) t->start();
}

}  // namespace vtick
