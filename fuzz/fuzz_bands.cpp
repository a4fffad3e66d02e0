// Fuzz target: a bands file of vtick trace-compare (study/trace_compare.cpp load_bands()).
#include "fuzz/fuzz_input.hpp"
#include "sim/scenario.hpp"
#include "study/trace_compare.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string path = vtick::fuzz::as_file(data, size, ".bands.toml");
  try {
    std::vector<vtick::Band> b = vtick::load_bands(path);
    std::vector<vtick::CompareRow> rows = {{"halts", "rate", 1.0, 2.0}, {"pre_hlt_window", "p50", 0.0, 0.0}};
    vtick::check_bands(rows, b);
  } catch (const vtick::InputError&) {
  }
  return 0;
}
