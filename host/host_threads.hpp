// Host threads that compete with the vCPU threads for the VM's hardware threads: the
// VMM's block I/O thread (iothread / io_uring worker), the vhost-net worker and
// background noise (host kthreads, other tenants' work, monitoring agents).
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/sg.hpp"
#include "host/host_sched.hpp"

namespace vtick {

class Kvm;
class KvmVcpu;

struct NoiseParams {
  int threads = 0;              // noise threads
  double hz = 0;                // wake-ups per second of each (exponential gaps)
  sim_ns work = 20000;          // CPU work per wake-up
  std::uint64_t cpus = ~0ULL;   // hardware threads they may run on
};

struct IoThreadParams {
  bool enabled = false;         // false: the device completes requests by itself
  std::uint64_t cpus = ~0ULL;
  sim_ns submit_ns = 5000;      // host work to pick up and submit one request [EST]
  sim_ns complete_ns = 3000;    // host work to complete it and raise the irqfd [EST]
};

struct HostThreadStats {
  std::uint64_t wakeups = 0;
  std::uint64_t preemptions = 0;
  sim_ns run_ns = 0;
  sim_ns run_delay_ns = 0;
};

// A host thread's actor body: run `work` ns on its CPU, giving the CPU up when the host
// scheduler says so and coming back for the rest.
class HostWorker {
 public:
  HostWorker(std::string name, HostScheduler& s, std::uint64_t cpus, int home);
  void run_on_cpu(sim_ns work);
  HostThread& thread() { return t_; }
  Doorbell& bell() { return bell_; }
  HostThreadStats stats() const;

 protected:
  HostScheduler& s_;
  Doorbell bell_;
  HostThread t_;
  sim_ns run_ns_ = 0;
};

class IoThread : public HostWorker {
 public:
  // `net`: a vhost-net worker (requests take the network round trip), else the block
  // I/O thread (requests take the device's service time).
  IoThread(Kvm& vm, std::string name, const IoThreadParams& p, int home, bool net);
  // From a vCPU's virtio notify: the request becomes visible to the thread at `at`.
  void submit(KvmVcpu& from, std::uint64_t request, sim_ns at);
  void start();

 private:
  struct Item { sim_ns ready; bool completion; KvmVcpu* vcpu; std::uint64_t request; };
  void main();
  Kvm& vm_;
  IoThreadParams p_;
  bool net_;
  std::deque<Item> items_;
};

class NoiseThread : public HostWorker {
 public:
  NoiseThread(HostScheduler& s, const NoiseParams& p, int index, int home, std::uint64_t seed);
  void start();

 private:
  void main();
  NoiseParams p_;
  Rng rng_;
};

}  // namespace vtick
