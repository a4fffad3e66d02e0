// Every counter of a run, read from the stats structs' declarations (core/stats.hpp), and
// the catalog of them all for `vtick list metrics` and docs/model.md.
#pragma once
#include <string>
#include <vector>

#include "core/stats.hpp"
#include "core/time.hpp"
#include "sim/metrics.hpp"

namespace vtick {

struct Machine;
class Kvm;
class GuestKernel;
class Workload;

// Reads every counter and gauge at `t` into `m`.
void read_metrics(Metrics& m, sim_ns t, Machine& machine, Kvm& vm, GuestKernel& k, const Workload& w);

// One metric of the results, its name a pattern: vcpu<N>. (a vCPU), pcpu<T>. (a
// hardware thread), task.<pid>.<comm>., host.<thread>. (iothread, vhost, noise<I>),
// probe.timer<I>.
struct MetricDoc {
  std::string name;
  std::string unit;
  StatKind kind;
  std::string help;
};
const std::vector<MetricDoc>& metric_catalog();
// The catalog pattern a concrete metric name belongs to ("vcpu1.kvm.halt_exits" ->
// "vcpu<N>.kvm.halt_exits"); "" when none.
std::string metric_pattern(const std::string& name);

}  // namespace vtick
