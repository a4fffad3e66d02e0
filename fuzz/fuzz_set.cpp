// Fuzz target: --set overrides (one per input line) on the built-in scenario.
#include <sstream>
#include <vector>

#include "fuzz/fuzz_input.hpp"
#include "sim/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(vtick::fuzz::as_text(data, size));
  std::vector<std::string> sets;
  for (std::string line; std::getline(in, line);) sets.push_back(line);
  try {
    vtick::load_scenario("", sets);
  } catch (const vtick::InputError&) {
  }
  return 0;
}
