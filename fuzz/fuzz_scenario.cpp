// Fuzz target: a scenario file through the loader and its validation (sim/scenario.cpp).
// A valid scenario or an InputError; nothing else.
#include "fuzz/fuzz_input.hpp"
#include "sim/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string path = vtick::fuzz::as_file(data, size, ".toml");
  try {
    vtick::load_scenario(path, {});
  } catch (const vtick::InputError&) {
  }
  return 0;
}
