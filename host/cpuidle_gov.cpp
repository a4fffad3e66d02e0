// drivers/cpuidle/governor.c: picking a governor and running its enable_device() for a CPU's state table.
#include "host/cpuidle_gov.hpp"

namespace vtick::cpuidle {  // the host's cpuidle framework (the guest has its own: guest/cpuidle.hpp)

std::unique_ptr<CpuidleGovernor> CpuidleGovernor::create(GovernorKind k, const std::vector<CpuidleState>& states) {
  switch (k) {
    case GovernorKind::Menu:
      return std::make_unique<MenuGovernor>(states);
    case GovernorKind::Teo:
      return std::make_unique<TeoGovernor>(states);
    case GovernorKind::Ladder:
      return std::make_unique<LadderGovernor>(states);
  }
  return nullptr;
}

}  // namespace vtick::cpuidle
