// The space `vtick explain` searches: every declared parameter marked [EST] or [VERIFY]
// over its documented range, the hypothesis switches, the background-load levels and the
// balancing paths, narrowed or extended by the target file. A point of the space is a
// vector u in [0, 1]^n; each factor maps its coordinate to a value per scenario (a cost's
// range differs per CPU model).
#pragma once
#include <string>
#include <vector>

#include "core/param.hpp"

namespace vtick {

struct ExplainTarget;
struct Scenario;

// A mechanism of domain/hypotheses.md and the measurement on a real system that would
// confirm or refute it.
struct Mechanism {
  std::string id;       // "M4", "H6/H10", ...
  std::string name;
  std::string measure;  // what to ask the reporter to measure
};

struct Factor {
  std::string key;
  std::string source;     // why this range: the declaration's source or the target's
  std::string mechanism;  // Mechanism::id
  bool choice = false;    // choices (switches, presets) rather than a numeric range
  std::vector<std::string> choices;
  bool fixed_range = false;  // lo..hi for every scenario (a target's or a load level's range)
  double lo = 0, hi = 0;
  PKind kind = PKind::Float;  // Int, Float or Duration for a numeric factor
};

struct Space {
  std::vector<Factor> factors;
};

const std::vector<Mechanism>& mechanisms();
const Mechanism& mechanism_of(const std::string& id);

// The space for these scenarios (the target's runs, loaded): declared [EST]/[VERIFY]
// ranges that apply to at least one of them, the switches and load levels, then the
// target's [space] exclude/only/add.
Space build_space(const ExplainTarget& t, const std::vector<Scenario>& scenarios);

// The value (as --set text) of factor f at coordinate u on scenario sc; "" when the key
// does not apply there (an x86-only KVM parameter on arm64, a workload's key on another).
// u outside [0, 1] is clamped.
std::string factor_value(const Factor& f, double u, const Scenario& sc);
// "300 .. 6000 ns (log)" on sc, "{menu|teo}" for choices, "" when it does not apply
std::string factor_range_text(const Factor& f, const Scenario& sc);

}  // namespace vtick
