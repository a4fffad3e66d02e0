// Reading a results document written by `vtick run --json` (docs/cli.md).
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace vtick {

// A headline value of the run's "summary"; NaN when the run has none (or it is null).
double summary_value(const nlohmann::ordered_json& run, const std::string& key);

}  // namespace vtick
