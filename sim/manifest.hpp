// The provenance every JSON document vtick writes carries (run, compare, sweep): which
// vtick (version, git revision) on which SimGrid, the command line, the scenario's hash
// and the seeds.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/scenario.hpp"

namespace vtick {

// The process's argv, recorded by main() (empty in tests that run in-process).
void set_command_line(int argc, const char* const* argv);
const std::vector<std::string>& command_line();

const char* vtick_git_revision();  // as built: "abc123def456", "...-dirty" or "unknown"

// The resolved configuration as text, one "key = value" line per key in schema order
// (values as JSON scalars), without run.seed: the same scenario under any seed.
std::string config_text(const Scenario& sc);
// "fnv1a64:" and the 16 hex digits of the 64-bit FNV-1a hash of config_text().
std::string scenario_hash(const Scenario& sc);

// {tool, version, git_revision, simgrid_version, command_line, scenario, scenario_hash, seeds}
nlohmann::ordered_json manifest_json(const Scenario& sc, const std::vector<std::uint64_t>& seeds);

}  // namespace vtick
