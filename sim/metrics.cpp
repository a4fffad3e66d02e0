#include "sim/metrics.hpp"

#include <map>

namespace vtick {

double Metrics::get(const std::string& name, double dflt) const {
  for (const auto& m : m_)
    if (m.name == name) return m.value;
  return dflt;
}

bool Metrics::has(const std::string& name) const {
  for (const auto& m : m_)
    if (m.name == name) return true;
  return false;
}

Metrics Metrics::since(const Metrics& earlier) const {
  std::map<std::string, double> before;  // metrics born after the warm-up start from 0
  for (const auto& m : earlier.m_) before[m.name] = m.value;
  Metrics out;
  for (const Metric& a : m_) {
    auto it = before.find(a.name);
    double base = a.counter && it != before.end() ? it->second : 0;
    out.m_.push_back({a.name, a.value - base, a.counter});
  }
  return out;
}

}  // namespace vtick
