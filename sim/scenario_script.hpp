// [[workload.task]] tables of workload.kind = "script".
#pragma once
#include <string>
#include <vector>
#include <toml++/toml.h>

#include "guest/workloads.hpp"

namespace vtick {

// The tasks of a [[workload.task]] array; throws InputError naming file:line:column.
std::vector<ScriptTask> parse_script_tasks(const toml::node& node, const std::string& file);

}  // namespace vtick
