#include "platform/topology.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphviz.hpp>
#include <sstream>
#include <stdexcept>

namespace vtick {

namespace {
enum class Kind { Machine, Socket, Core, HwThread };
struct Node {
  std::string name;
  Kind kind;
  int index;  // os index for hardware threads, core/socket number otherwise
};
using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Node>;
using V = boost::graph_traits<G>::vertex_descriptor;
}  // namespace

struct Topology::Graph {
  G g;
  std::vector<V> hw;  // by os index
};

Topology::Topology(int sockets, int cores_per_socket, int threads_per_core)
    : g_(std::make_unique<Graph>()), tpc_(threads_per_core), cores_(sockets * cores_per_socket) {
  if (sockets < 1 || cores_per_socket < 1 || threads_per_core < 1 || threads_per_core > 2)
    throw std::invalid_argument("topology: need >= 1 socket and core, 1 or 2 threads per core");
  G& g = g_->g;
  V m = boost::add_vertex(Node{"machine", Kind::Machine, 0}, g);
  g_->hw.resize(static_cast<size_t>(cores_ * tpc_));
  for (int s = 0; s < sockets; ++s) {
    V sv = boost::add_vertex(Node{"socket" + std::to_string(s), Kind::Socket, s}, g);
    boost::add_edge(m, sv, g);
    for (int c = 0; c < cores_per_socket; ++c) {
      int core = s * cores_per_socket + c;
      V cv = boost::add_vertex(Node{"core" + std::to_string(core), Kind::Core, core}, g);
      boost::add_edge(sv, cv, g);
      for (int t = 0; t < tpc_; ++t) {
        int os = core + t * cores_;
        V tv = boost::add_vertex(Node{"core" + std::to_string(core) + ".t" + std::to_string(t), Kind::HwThread, os}, g);
        boost::add_edge(cv, tv, g);
        g_->hw[static_cast<size_t>(os)] = tv;
      }
    }
  }
}

Topology::~Topology() = default;

int Topology::num_hw_threads() const { return static_cast<int>(g_->hw.size()); }
int Topology::num_cores() const { return cores_; }

static V parent(const G& g, V v) {
  auto [b, e] = boost::in_edges(v, g);
  if (b == e) throw std::logic_error("topology: vertex has no parent");
  return boost::source(*b, g);
}

int Topology::core_of(int t) const { return g_->g[parent(g_->g, g_->hw.at(static_cast<size_t>(t)))].index; }
int Topology::socket_of(int t) const {
  return g_->g[parent(g_->g, parent(g_->g, g_->hw.at(static_cast<size_t>(t))))].index;
}
std::string Topology::name(int t) const { return g_->g[g_->hw.at(static_cast<size_t>(t))].name; }

std::vector<int> Topology::siblings(int t) const {
  const G& g = g_->g;
  V core = parent(g, g_->hw.at(static_cast<size_t>(t)));
  std::vector<int> out;
  for (auto [b, e] = boost::out_edges(core, g); b != e; ++b) {
    int os = g[boost::target(*b, g)].index;
    if (os != t) out.push_back(os);
  }
  return out;
}

int Topology::placement(int vcpu) const {
  int n = num_hw_threads();
  if (vcpu < 0 || vcpu >= n) throw std::out_of_range("topology: vCPU " + std::to_string(vcpu) + " has no hardware thread");
  int core = vcpu / tpc_, thread = vcpu % tpc_;
  return core + thread * cores_;
}

std::string Topology::graphviz() const {
  std::ostringstream os;
  boost::write_graphviz(os, g_->g, boost::make_label_writer(boost::get(&Node::name, g_->g)));
  return os.str();
}

}  // namespace vtick
