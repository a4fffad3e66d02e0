// Fuzz target: a sweep file (sim/sweep.cpp) with its grid.
#include "fuzz/fuzz_input.hpp"
#include "sim/scenario.hpp"
#include "sim/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string path = vtick::fuzz::as_file(data, size, ".sweep.toml");
  try {
    vtick::SweepSpec s = vtick::load_sweep(path);
    vtick::sweep_grid(s);
  } catch (const vtick::InputError&) {
  }
  return 0;
}
