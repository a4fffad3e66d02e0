#include "platform/sg_platform.hpp"

#include <simgrid/s4u.hpp>

namespace vtick {

namespace sg4 = simgrid::s4u;

std::unique_ptr<Machine> build_machine(int cores, int threads_per_core, const ArchCosts& costs) {
  auto m = std::make_unique<Machine>();
  m->costs = costs;
  m->topology = std::make_unique<Topology>(1, cores, threads_per_core);
  const Topology& topo = *m->topology;
  bool smt = threads_per_core > 1;

  auto* zone = sg4::create_star_zone("host-machine");
  std::vector<double> speeds{kNominalFlops};
  if (smt) {
    speeds.push_back(kNominalFlops * costs.smt_factor_busy);   // kSiblingBusy
    speeds.push_back(kNominalFlops * costs.smt_factor_spin);   // kSiblingSpin
  }
  for (int t = 0; t < topo.num_hw_threads(); ++t) {
    auto* h = zone->create_host("pcpu" + std::to_string(t), speeds);
    auto* l = zone->create_link("irq" + std::to_string(t), 1e15)->set_latency(0);
    zone->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, {sg4::LinkInRoute(l)}, true);
    m->threads.push_back(std::make_unique<HwThread>(t, topo.name(t), h, m->costs));
  }
  zone->seal();
  for (int t = 0; t < topo.num_hw_threads(); ++t)
    for (int s : topo.siblings(t)) m->threads[static_cast<size_t>(t)]->set_sibling(m->threads[static_cast<size_t>(s)].get());
  return m;
}

}  // namespace vtick
