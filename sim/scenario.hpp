// Scenario files: TOML in, every key validated, one fully resolved configuration out.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/time.hpp"
#include "guest/params.hpp"
#include "guest/workloads.hpp"
#include "host/kvm_params.hpp"
#include "platform/arch.hpp"
#include "platform/shapes.hpp"

namespace vtick {

// Bad input (file, key, value): the CLI reports it and exits with status 2.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RunSpec {
  sim_ns duration = NSEC_PER_SEC;
  sim_ns warmup = 0;
  std::uint64_t seed = 1;
  sim_ns fast_work = 2000;
  sim_ns quantum = 100000;
};

using ConfigScalar = std::variant<std::int64_t, double, bool, std::string>;

struct Scenario {
  std::string source;    // file path, or "<built-in>"
  Shape shape;
  ArchCosts costs;       // the shape's table with [host.costs] overrides
  int vcpus = 2;
  HostParams host;
  GuestParams guest;
  WorkloadSpec workload;
  RunSpec run;
  // every key with its effective value, in schema order, for the results manifest
  std::vector<std::pair<std::string, ConfigScalar>> resolved;
};

// Loads `path` (empty: the built-in default scenario) and applies "section.key=value"
// overrides. Throws InputError naming the file, line, key and what is allowed.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets);

// All accepted keys with their type and allowed values (for docs and `vtick list keys`).
std::vector<std::pair<std::string, std::string>> scenario_keys();

const std::vector<std::string>& workload_kinds();

}  // namespace vtick
