#include "sim/metrics.hpp"

#include <stdexcept>

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
  if (earlier.m_.size() != m_.size()) throw std::logic_error("metrics: snapshots differ in shape");
  Metrics out;
  for (std::size_t i = 0; i < m_.size(); ++i) {
    const Metric& a = m_[i];
    out.m_.push_back({a.name, a.counter ? a.value - earlier.m_[i].value : a.value, a.counter});
  }
  return out;
}

}  // namespace vtick
