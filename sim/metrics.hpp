// A flat, ordered list of named results: counters (additive over time) and gauges.
#pragma once
#include <string>
#include <vector>

namespace vtick {

struct Metric {
  std::string name;   // dotted: "vcpu0.kvm.halt_exits"
  double value;
  bool counter;       // counters are differenced over the warm-up; gauges are not
};

class Metrics {
 public:
  void counter(const std::string& name, double v) { m_.push_back({name, v, true}); }
  void gauge(const std::string& name, double v) { m_.push_back({name, v, false}); }
  const std::vector<Metric>& all() const { return m_; }
  double get(const std::string& name, double dflt = 0) const;
  bool has(const std::string& name) const;
  // this - earlier for counters (matched by name), gauges kept.
  Metrics since(const Metrics& earlier) const;

 private:
  std::vector<Metric> m_;
};

}  // namespace vtick
