#include "core/rng.hpp"

#include <cmath>

namespace vtick {

Rng::Rng(std::uint64_t seed, std::string_view stream) {
  std::uint64_t st = seed ^ fnv1a64(stream);
  for (auto& w : s_) w = splitmix64(st);
}

static inline std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

std::uint64_t Rng::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0]; s_[3] ^= s_[1]; s_[1] ^= s_[2]; s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

sim_ns Rng::uniform(sim_ns lo, sim_ns hi) {
  if (hi <= lo) return lo;
  auto span = static_cast<std::uint64_t>(hi - lo) + 1;
  return lo + static_cast<sim_ns>(next() % span);
}

sim_ns Rng::exponential(sim_ns mean) {
  double u = uniform01();
  return static_cast<sim_ns>(std::llround(-std::log1p(-u) * static_cast<double>(mean)));
}

// Box-Muller on two uniforms; mu chosen so that the mean is `mean`.
sim_ns Rng::lognormal(sim_ns mean, double sigma) {
  double u1 = 1.0 - uniform01(), u2 = uniform01();
  double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  double mu = std::log(static_cast<double>(mean)) - sigma * sigma / 2;
  return static_cast<sim_ns>(std::llround(std::exp(mu + sigma * z)));
}

}  // namespace vtick
