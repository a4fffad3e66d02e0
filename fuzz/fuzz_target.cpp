// Fuzz target: a target file of vtick explain (sim/explain_target.cpp) and the space it
// makes (sim/explain_space.cpp).
#include <vector>

#include "fuzz/fuzz_input.hpp"
#include "sim/explain_space.hpp"
#include "sim/explain_target.hpp"
#include "sim/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string path = vtick::fuzz::as_file(data, size, ".target.toml");
  try {
    vtick::ExplainTarget t = vtick::load_target(path);
    std::vector<vtick::Scenario> sc;
    for (const auto& r : t.runs) sc.push_back(vtick::load_scenario(r.scenario, r.sets));
    vtick::Space s = vtick::build_space(t, sc);
    for (const auto& f : s.factors)
      for (const auto& x : sc) vtick::factor_value(f, 0.5, x);
  } catch (const vtick::InputError&) {
  }
  return 0;
}
