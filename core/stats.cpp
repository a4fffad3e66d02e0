#include "core/stats.hpp"

namespace vtick {

std::string stat_name(const std::string& pattern, const std::string& name) {
  std::string s = pattern;
  auto at = s.find("{}");
  if (at != std::string::npos) s.replace(at, 2, name);
  return s;
}

std::vector<StatDesc> stat_family(const std::string& pattern, const std::vector<std::string>& names, const std::string& unit,
                                  StatKind kind, const std::string& help) {
  std::vector<StatDesc> v;
  for (const auto& n : names) v.push_back({stat_name(pattern, n), unit, kind, help});
  return v;
}

}  // namespace vtick
