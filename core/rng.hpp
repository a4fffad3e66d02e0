// Seeded, platform-independent random streams: one per model component.
#pragma once
#include <cstdint>
#include <string_view>

#include "core/time.hpp"

namespace vtick {

// SplitMix64 (Steele et al. 2014): seeds the generator and derives stream seeds.
// FNV-1a, 64 bits (offset basis 14695981039346656037, prime 1099511628211): stable across
// platforms and builds; `h` continues a hash already begun. Not a cryptographic digest.
inline constexpr std::uint64_t kFnv1aBasis = 14695981039346656037ULL;
inline std::uint64_t fnv1a64(std::string_view s, std::uint64_t h = kFnv1aBasis) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// xoshiro256** (Blackman & Vigna). Written out here rather than using <random>
// distributions, whose output differs between standard libraries.
class Rng {
 public:
  // A stream is named by its component ("workload/task3"), so adding a component
  // never shifts the numbers another component draws.
  Rng(std::uint64_t seed, std::string_view stream);
  std::uint64_t next();
  double uniform01();                            // [0, 1)
  sim_ns uniform(sim_ns lo, sim_ns hi);          // [lo, hi]
  sim_ns exponential(sim_ns mean);
  sim_ns lognormal(sim_ns mean, double sigma);   // the given mean; sigma of the log
  // a cost with a spread: `mean` itself at sigma 0 (nothing drawn, so the stream and the
  // runs that do not use the spread keep their numbers), else lognormal(mean, sigma)
  sim_ns spread(sim_ns mean, double sigma) { return sigma <= 0 || mean <= 0 ? mean : lognormal(mean, sigma); }

 private:
  std::uint64_t s_[4];
};

}  // namespace vtick
