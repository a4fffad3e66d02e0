// The workload kinds' registry and what every workload shares (guest/workloads/ has one
// file per kind).
#include "guest/workloads.hpp"

#include <algorithm>
#include <stdexcept>

#include "guest/kernel.hpp"
#include "guest/workloads/kinds.hpp"

namespace vtick {

// Each kind registers here, in WorkloadKindId order.
const std::vector<WorkloadKind>& workload_kinds_table() {
  static const std::vector<WorkloadKind> k = {idle_kind(),        periodic_kind(), pingpong_kind(),  nohz_full_test_kind(),
                                              sysbench_threads_kind(), oltp_kind(),     hackbench_kind(), script_kind()};
  return k;
}

const WorkloadKind& workload_kind(WorkloadKindId id) {
  const WorkloadKind& k = workload_kinds_table().at(static_cast<std::size_t>(id));
  if (k.id != id) throw std::logic_error("workload_kinds_table() is not in WorkloadKindId order");
  return k;
}

VTICK_PARAM_TABLE(WorkloadSpec, VTICK_WORKLOAD_PARAMS)
VTICK_PARAM_CTOR(WorkloadSpec)

std::unique_ptr<Workload> make_workload(const WorkloadSpec& w) { return workload_kind(w.kind).make(); }

Task& Workload::add_task(GuestKernel& k, std::string comm, std::vector<Phase> program, int cpu, std::uint64_t allowed,
                         bool start) {
  Task& t = k.add_task(std::move(comm), std::move(program), cpu, allowed, start);
  t.user = &user_;
  k.cpu(t.cpu).rq_changed();  // one more of the workload's tasks there (packing_update())
  return t;
}

std::uint64_t Workload::ops(const GuestKernel& k) const {
  std::uint64_t ops = 0;
  for (const auto& t : k.tasks())
    if (t->user == &user_) ops += t->ops;  // its own tasks, not the background's
  return ops;
}

// Exits (hackbench's completion).
void Workload::report(const GuestKernel& k, sim_ns, const Report& out) const {
  double exited = 0, last_exit = -1;
  for (const auto& t : k.tasks())
    if (t->state == TaskState::Exited) {
      ++exited;
      last_exit = std::max(last_exit, static_cast<double>(t->exited_at));
    }
  out("workload.exited_tasks", exited, false);
  out("workload.last_exit_ns", last_exit, false);
}

}  // namespace vtick
