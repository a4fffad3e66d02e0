// Host threads that compete with the vCPU threads for the VM's hardware threads: the
// VMM's block I/O thread (iothread / io_uring worker), the vhost-net worker and
// background noise (host kthreads, other tenants' work, monitoring agents).
#pragma once
#include "core/stats.hpp"
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/param.hpp"
#include "core/rng.hpp"
#include "core/sg.hpp"
#include "host/host_sched.hpp"

namespace vtick {

class Kvm;
class KvmVcpu;

// [host.noise]: host threads that wake up at random and take CPU from the vCPUs.
#define VTICK_NOISE_PARAMS(P)                                                                                      \
  P(int, threads, ".threads", Int, 0, 0, 64, "count", "[EST] host kthreads, agents, other tenants; none on a dedicated host",                           \
    "host noise threads competing for the VM's hardware threads")                                                  \
  P(double, hz, ".hz", Float, 100.0, 0, 1e6, "Hz", "[EST]", "wake-ups per second of each noise thread (exponential gaps)") \
  P(sim_ns, work, ".work", Duration, 20000, 1, 1e9, "ns", "[EST]", "CPU work per noise wake-up")                  \
  P(CpuList, cpus, ".cpus", CpuList, "", kNoMin, kNoMax, "", "", "hardware threads (cpulist) noise may use; empty: all the VM's")
struct NoiseParams {
  VTICK_PARAMS(NoiseParams, VTICK_NOISE_PARAMS);
};

// The VMM's block I/O thread (QEMU iothread / io_uring worker), keys host.iothread*.
#define VTICK_IOTHREAD_PARAMS(P)                                                                                   \
  P(bool, enabled, "", Bool, false, kNoMin, kNoMax, "", "",                                                        \
    "a VMM I/O thread submits and completes block requests (false: the device completes them by itself)")         \
  P(CpuList, cpus, "_cpus", CpuList, "", kNoMin, kNoMax, "", "", "hardware threads (cpulist) the I/O thread may use; empty: all the VM's") \
  P(sim_ns, submit_ns, "_submit", Duration, 5000, 500, 50000, "ns", "[EST] pick up a virtqueue request and io_submit it", \
    "I/O thread work to pick up and submit one request")                                                           \
  P(sim_ns, complete_ns, "_complete", Duration, 3000, 500, 50000, "ns", "[EST] reap the completion and signal the irqfd", \
    "I/O thread work to complete one request and raise its interrupt")
struct IoThreadParams {
  VTICK_PARAMS(IoThreadParams, VTICK_IOTHREAD_PARAMS);
};

// The vhost-net worker thread (drivers/vhost/net.c), keys host.vhost*.
#define VTICK_VHOST_PARAMS(P)                                                                                      \
  P(bool, enabled, "", Bool, false, kNoMin, kNoMax, "", "",                                                        \
    "a vhost-net worker thread handles virtio-net TX and RX (false: the device alone)")                           \
  P(CpuList, cpus, "_cpus", CpuList, "", kNoMin, kNoMax, "", "", "hardware threads (cpulist) the vhost worker may use; empty: all the VM's") \
  P(sim_ns, submit_ns, "_submit", Duration, 3000, 500, 50000, "ns", "[EST] handle_tx: one descriptor to the socket", \
    "vhost worker work to transmit one request")                                                                   \
  P(sim_ns, complete_ns, "_complete", Duration, 3000, 500, 50000, "ns", "[EST] handle_rx: one reply into the ring", \
    "vhost worker work to receive one reply and signal the guest")
struct VhostParams {
  VTICK_PARAMS(VhostParams, VTICK_VHOST_PARAMS);
};

#define VTICK_HOST_THREAD_STATS(C)                                                                                   \
  C(std::uint64_t, wakeups, "wakeups", "count", Counter, "try_to_wake_up() of the thread")                         \
  C(std::uint64_t, preemptions, "preemptions", "count", Counter, "the thread preempted while running")             \
  C(sim_ns, run_ns, "run_ns", "ns", Counter, "time it ran (se.sum_exec_runtime)")                                  \
  C(sim_ns, run_delay_ns, "run_delay_ns", "ns", Counter, "time it waited runnable (schedstat run_delay)")
struct HostThreadStats {
  VTICK_STATS(VTICK_HOST_THREAD_STATS)
};

// A host thread's actor body: run `work` ns on its CPU, giving the CPU up when the host
// scheduler says so and coming back for the rest.
class HostWorker {
 public:
  HostWorker(std::string name, HostScheduler& s, std::uint64_t cpus, int home);
  // Wakes the thread, runs `work` on its CPU, then sleeps; `then` (if given) runs at the
  // end of the work and returns the timer it sleeps until, armed before schedule() as a
  // nanosleep or hrtimer would be, so the CPU's idle governor sees it.
  void run_on_cpu(sim_ns work, const std::function<sim_ns()>& then = {});
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
  IoThread(Kvm& vm, std::string name, std::uint64_t cpus, sim_ns submit_ns, sim_ns complete_ns, int home, bool net);
  // From a vCPU's virtio notify: the request becomes visible to the thread at `at`.
  void submit(KvmVcpu& from, std::uint64_t request, sim_ns at);
  void start();

 private:
  struct Item { sim_ns ready; bool completion; KvmVcpu* vcpu; std::uint64_t request; };
  void main();
  Kvm& vm_;
  sim_ns submit_ns_, complete_ns_;
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
