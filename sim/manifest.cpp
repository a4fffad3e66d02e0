#include "sim/manifest.hpp"

#include <cstdio>
#include <simgrid/version.h>

#include "core/rng.hpp"
#include "vtick_version.hpp"

namespace vtick {

namespace {
std::vector<std::string>& argv_store() {
  static std::vector<std::string> v;
  return v;
}
}  // namespace

void set_command_line(int argc, const char* const* argv) {
  argv_store().assign(argv, argv + argc);
}

const std::vector<std::string>& command_line() { return argv_store(); }

const char* vtick_git_revision() { return VTICK_GIT_REV; }

std::string config_text(const Scenario& sc) {
  std::string t;
  for (const auto& [k, v] : sc.resolved) {
    if (k == "run.seed") continue;
    t += k + " = ";
    std::visit([&](const auto& x) { t += nlohmann::json(x).dump(); }, v);
    t += "\n";
  }
  return t;
}

std::string scenario_hash(const Scenario& sc) {
  // enough to tell two configurations apart: it guards against mistakes, not forgery
  std::uint64_t h = fnv1a64(config_text(sc));
  char b[32];
  std::snprintf(b, sizeof b, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return b;
}

nlohmann::ordered_json manifest_json(const Scenario& sc, const std::vector<std::uint64_t>& seeds) {
  nlohmann::ordered_json m;
  m["tool"] = "vtick";
  m["version"] = VTICK_VERSION;
  m["git_revision"] = VTICK_GIT_REV;
  m["simgrid_version"] = SIMGRID_VERSION_STRING;
  m["command_line"] = command_line();
  m["scenario"] = sc.source;
  m["scenario_hash"] = scenario_hash(sc);
  m["seeds"] = seeds;
  return m;
}

}  // namespace vtick
