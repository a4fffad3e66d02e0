// Host machine topology: machine -> socket -> core -> hardware thread, as a Boost graph.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace vtick {

// Hardware threads are numbered the Linux way: core c owns threads c and c + cores,
// so thread t's sibling is t +/- cores (like cpu0/cpu1 on a 1-core, 2-thread part
// where sysfs lists them as "0-1"; OCI exposes sibling pairs as adjacent vCPUs,
// which the vCPU placement below reproduces).
class Topology {
 public:
  Topology(int sockets, int cores_per_socket, int threads_per_core);
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  int num_hw_threads() const;
  int num_cores() const;
  int threads_per_core() const { return tpc_; }
  int core_of(int hw_thread) const;
  int socket_of(int hw_thread) const;
  std::vector<int> siblings(int hw_thread) const;  // other threads of the same core
  std::string name(int hw_thread) const;            // "core0.t1"
  std::string graphviz() const;

  // Pinned 1:1 placement of vCPU k: vCPUs 2c and 2c+1 are the two threads of core c,
  // as OCI presents hyperthread pairs to the guest.
  int placement(int vcpu) const;

 private:
  struct Graph;
  std::unique_ptr<Graph> g_;
  int tpc_;
  int cores_;
};

}  // namespace vtick
