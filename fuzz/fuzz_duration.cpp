// Fuzz target: durations (core/time.cpp). What parses prints back to text that parses to
// the same value.
#include <cstdlib>

#include "core/time.hpp"
#include "fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  vtick::sim_ns v = 0, back = 0;
  if (!vtick::parse_duration(vtick::fuzz::as_text(data, size), v)) return 0;
  if (!vtick::parse_duration(vtick::format_duration(v), back) || back != v) std::abort();
  return 0;
}
