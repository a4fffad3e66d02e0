// Fuzz target: a vtick-probe profile (sim/probe_profile.cpp) and the scenario made of it.
#include "fuzz/fuzz_input.hpp"
#include "sim/probe_profile.hpp"
#include "sim/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string path = vtick::fuzz::as_file(data, size, ".json");
  try {
    vtick::Profile p = vtick::load_profile(path);
    vtick::profile_base_toml(p);
  } catch (const vtick::InputError&) {
  }
  return 0;
}
