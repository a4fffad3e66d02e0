// Guest workloads built from task programs: what the guest runs, as kernel-visible
// behaviour (CPU bursts, sleeps, futex waits and wakes, mutexes, yields, block I/O). Each
// kind is one file under guest/workloads/ that registers itself in workload_kinds_table()
// (guest/workloads.cpp), as S4U's register_actor or ns-3's applications do.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/param.hpp"
#include "core/time.hpp"
#include "guest/task.hpp"

namespace vtick {

class GuestKernel;
class Workload;

// One documented parameter of a workload kind ([workload] key).
struct WorkloadParam {
  std::string key;
  char type;      // 'i' integer, 'f' number, 'd' duration (ns)
  double dflt;    // for "one per vCPU" keys 0 means: the vCPU count
  double lo, hi;
  std::string help;
};

enum class WorkloadKindId { Idle, Periodic, Pingpong, NohzFullTest, SysbenchThreads, Oltp, Hackbench, Script };
VTICK_ENUM_NAMES(WorkloadKindId, "idle", "periodic", "pingpong", "nohz_full_test", "sysbench_threads", "oltp", "hackbench",
                 "script");

struct WorkloadKind {
  WorkloadKindId id;
  std::string description;
  std::string ops_name;  // what one op is: "transactions", "events", ...
  std::vector<WorkloadParam> params;
  std::function<std::unique_ptr<Workload>()> make;
};

const std::vector<WorkloadKind>& workload_kinds_table();  // in WorkloadKindId order
const WorkloadKind& workload_kind(WorkloadKindId id);

// workload.kind = "script": tasks written by the user, rt-app style.
struct ScriptTask {
  std::string name;
  std::uint64_t cpus = ~0ULL;          // affinity
  int count = 1;                       // copies of this task
  std::vector<std::string> program;    // "run 100us", "sleep 1ms", "lock m", "loop 0 10", ...
  std::string where;                   // file:line for errors
};

#define VTICK_WORKLOAD_PARAMS(P)                                                                                     \
  P(WorkloadKindId, kind, ".kind", Enum, "pingpong", kNoMin, kNoMax, "", "guest/workloads.cpp", "workload (vtick list workloads)")
struct WorkloadSpec {
  VTICK_PARAMS(WorkloadSpec, VTICK_WORKLOAD_PARAMS);
  std::map<std::string, double> v;     // every param of the kind, resolved
  std::vector<ScriptTask> script;
  double get(const std::string& key) const { return v.at(key); }
  int geti(const std::string& key) const { return static_cast<int>(v.at(key)); }
  sim_ns getd(const std::string& key) const { return static_cast<sim_ns>(v.at(key)); }
};

// A host-side device a workload's test needs (the 2026 nohz_full series' probe device):
// at chosen times it raises an MSI on a vCPU that completes one guest request. The sim
// layer provides it (virtual hardware, platform/vhw.hpp's side of the boundary).
class TestDevice {
 public:
  virtual ~TestDevice() = default;
  // `body` runs as the device, from the start of the run.
  virtual void start(std::function<void()> body) = 0;
  virtual void sleep_until(sim_ns t) = 0;
  virtual void raise(int cpu, std::uint64_t request) = 0;  // the MSI, completing `request`
  virtual sim_ns run_end() const = 0;                      // the run's simulated end
};

// One workload of one run: it creates its tasks and keeps what it measures in user space.
class Workload {
 public:
  virtual ~Workload() = default;
  // Creates the tasks in `k`; random start phases come from `seed`. Throws
  // std::invalid_argument with a message for a program that does not parse.
  virtual void install(GuestKernel& k, const WorkloadSpec& w, std::uint64_t seed) = 0;
  // Ops completed so far (the headline counter whose rate is the workload metric):
  // by default the passes of its own tasks (add_task()) through their programs.
  virtual std::uint64_t ops(const GuestKernel& k) const;
  // Devices on the host side, started once the VM runs (none by default).
  virtual void start_devices(TestDevice&) {}
  // Its results besides ops: (name under "workload." or "probe.", value, counter?).
  using Report = std::function<void(const std::string& name, double value, bool counter)>;
  virtual void report(const GuestKernel& k, sim_ns now, const Report& out) const;
  // Each measured op's duration in the window (an OLTP transaction's), in order.
  const LogHistogram& op_latency() const { return user_.op_latency; }
  // The warm-up is over: what it measured so far is not part of the window.
  void start_window() { user_.op_latency.clear(); }

 protected:
  // A task of this workload's process: k.add_task() with its user space attached (start
  // false: a parent's Fork phase starts it).
  Task& add_task(GuestKernel& k, std::string comm, std::vector<Phase> program, int cpu, std::uint64_t allowed,
                 bool start = true);
  UserSpace& user() { return user_; }

 private:
  UserSpace user_;
};

std::unique_ptr<Workload> make_workload(const WorkloadSpec& w);

// Checks one script program line; returns an error text or "".
std::string check_script_phase(const std::string& line);

}  // namespace vtick
