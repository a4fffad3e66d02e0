// No tasks: the guest only idles and ticks.
#include "guest/workloads/kinds.hpp"

namespace vtick {

namespace {
class Idle final : public Workload {
 public:
  void install(GuestKernel&, const WorkloadSpec&, std::uint64_t) override {}
  std::uint64_t ops(const GuestKernel&) const override { return 0; }
};
}  // namespace

WorkloadKind idle_kind() { return {WorkloadKindId::Idle, "no tasks: the guest only idles and ticks", "ops", {}, factory<Idle>()}; }

}  // namespace vtick
