// The host CPU models of the shapes and their cost tables (domain/kernel-kvm.md section 3).
#include "platform/arch.hpp"

#include <stdexcept>

namespace vtick {

struct ArchCosts::Model {
  const char* name;
  Isa isa;
  double ghz;
  bool smt;
};

namespace {

// The first is the built-in platform's (VM.Standard2.1).
const std::vector<ArchCosts::Model>& models() {
  static const std::vector<ArchCosts::Model> m = {
      {"skylake-sp", Isa::X86_64, 2.0, true},  // VM.Standard2 (X7): Xeon Platinum 8167M, 2.0 GHz base
      {"milan", Isa::X86_64, 2.55, true},      // VM.Standard.E4.Flex: AMD EPYC 7J13, 2.55 GHz base
      {"altra", Isa::Arm64, 3.0, false},       // VM.Standard.A1: Ampere Altra (Neoverse N1), no SMT
  };
  return m;
}

}  // namespace

VTICK_PARAM_TABLE(ArchCosts, VTICK_ARCH_COSTS)

ArchCosts::ArchCosts() : ArchCosts(models().front()) {}

ArchCosts::ArchCosts(const Model& m) : name(m.name), isa(m.isa), ghz(m.ghz), smt(m.smt), timer_write_exits(m.isa == Isa::X86_64) {
  apply_defaults(*this, table(), ctx());
}

sim_ns ArchCosts::cstate_exit_ns(HostCState s) const {
  return s == HostCState::C1 ? c1_exit_ns : s == HostCState::C1E ? c1e_exit_ns : c6_exit_ns;
}

sim_ns ArchCosts::cstate_residency_ns(HostCState s) const {
  return s == HostCState::C1 ? c1_residency_ns : s == HostCState::C1E ? c1e_residency_ns : c6_residency_ns;
}

const ArchCosts& arch_costs(const std::string& name) {
  static const std::vector<ArchCosts> all = [] {
    std::vector<ArchCosts> v;
    for (const auto& m : models()) v.emplace_back(m);
    return v;
  }();
  for (const auto& a : all)
    if (a.name == name) return a;
  throw std::out_of_range("no cost table for " + name);
}

std::vector<std::string> arch_names() {
  std::vector<std::string> v;
  for (const auto& m : models()) v.push_back(m.name);
  return v;
}

}  // namespace vtick
