#include "core/parse_num.hpp"
#include "core/time.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace vtick {

sim_ns from_seconds(double s) { return static_cast<sim_ns>(std::llround(s * 1e9)); }

bool parse_duration(const std::string& text, sim_ns& out) {
  double v = 0;
  std::string unit;
  if (!parse_number_prefix(text, v, unit)) return false;
  double scale;
  if (unit == "s") scale = 1e9;
  else if (unit == "ms") scale = 1e6;
  else if (unit == "us") scale = 1e3;
  else if (unit == "ns") scale = 1;
  else return false;
  double ns = v * scale;
  if (std::fabs(ns) > 9.2e18) return false;
  out = static_cast<sim_ns>(std::llround(ns));
  return true;
}

std::string format_duration(sim_ns t) {
  char buf[64];
  if (t != 0 && t % NSEC_PER_SEC == 0) std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(t / NSEC_PER_SEC));
  else if (t != 0 && t % NSEC_PER_MSEC == 0) std::snprintf(buf, sizeof buf, "%lldms", static_cast<long long>(t / NSEC_PER_MSEC));
  else if (t != 0 && t % NSEC_PER_USEC == 0) std::snprintf(buf, sizeof buf, "%lldus", static_cast<long long>(t / NSEC_PER_USEC));
  else std::snprintf(buf, sizeof buf, "%lldns", static_cast<long long>(t));
  return buf;
}

}  // namespace vtick
