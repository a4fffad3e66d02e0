#include "sim/designs.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace vtick {

namespace {

// Deterministic on every library: the raw 64-bit engine, our own conversions.
struct Rng {
  std::mt19937_64 e;
  explicit Rng(std::uint64_t s) : e(s) {}
  double uniform() { return static_cast<double>(e() >> 11) * 0x1.0p-53; }
  int below(int n) { return static_cast<int>(e() % static_cast<std::uint64_t>(n)); }
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[static_cast<std::size_t>(below(static_cast<int>(i)))]);
  }
};

}  // namespace

double morris_delta(int levels) { return static_cast<double>(levels) / (2.0 * (levels - 1)); }

std::vector<MorrisTrajectory> morris_design(const std::vector<int>& group, int r, int levels, std::uint64_t seed) {
  Rng rng(seed);
  const std::size_t k = group.size();
  int groups = 0;
  for (int g : group) groups = std::max(groups, g + 1);
  const double delta = morris_delta(levels);
  std::vector<MorrisTrajectory> out;
  for (int t = 0; t < r; ++t) {
    MorrisTrajectory tr;
    // a base point whose every coordinate can move by +-delta and stay on the grid
    std::vector<double> x(k);
    std::vector<int> dir(k);
    for (std::size_t f = 0; f < k; ++f) {
      int lvl = rng.below(levels / 2);  // 0 .. p/2-1: x + delta stays <= 1
      dir[f] = rng.below(2) ? 1 : -1;
      x[f] = static_cast<double>(lvl) / (levels - 1);
      if (dir[f] < 0) x[f] += delta;  // start high, move down
    }
    std::vector<int> order(static_cast<std::size_t>(groups));
    for (int g = 0; g < groups; ++g) order[static_cast<std::size_t>(g)] = g;
    rng.shuffle(order);
    tr.points.push_back(x);
    for (int g : order) {
      std::vector<int> s(k, 0);
      for (std::size_t f = 0; f < k; ++f)
        if (group[f] == g) {
          x[f] += dir[f] * delta;
          s[f] = dir[f];
        }
      tr.points.push_back(x);
      tr.moved.push_back(g);
      tr.sign.push_back(s);
    }
    out.push_back(std::move(tr));
  }
  return out;
}

std::vector<MorrisEffect> morris_effects(const std::vector<MorrisTrajectory>& design, const std::vector<std::vector<double>>& y,
                                         int groups, int levels) {
  const double delta = morris_delta(levels);
  std::vector<std::vector<double>> ee(static_cast<std::size_t>(groups));
  for (std::size_t t = 0; t < design.size(); ++t)
    for (std::size_t j = 0; j < design[t].moved.size(); ++j) {
      double a = y[t][j], b = y[t][j + 1];
      if (!std::isfinite(a) || !std::isfinite(b)) continue;
      int sgn = 1;
      for (int s : design[t].sign[j])
        if (s != 0) {
          sgn = s;
          break;
        }
      ee[static_cast<std::size_t>(design[t].moved[j])].push_back(sgn * (b - a) / delta);
    }
  std::vector<MorrisEffect> out(static_cast<std::size_t>(groups));
  for (std::size_t g = 0; g < ee.size(); ++g) {
    MorrisEffect& m = out[g];
    m.n = static_cast<int>(ee[g].size());
    if (m.n == 0) {
      m.mu = m.mu_star = m.sigma = std::nan("");
      continue;
    }
    for (double e : ee[g]) {
      m.mu += e;
      m.mu_star += std::fabs(e);
    }
    m.mu /= m.n;
    m.mu_star /= m.n;
    double ss = 0;
    for (double e : ee[g]) ss += (e - m.mu) * (e - m.mu);
    m.sigma = m.n > 1 ? std::sqrt(ss / (m.n - 1)) : 0;
  }
  return out;
}

std::vector<std::vector<double>> latin_hypercube(int n, int k, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<std::vector<double>> pts(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(k)));
  for (int f = 0; f < k; ++f) {
    std::vector<int> perm(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) perm[static_cast<std::size_t>(i)] = i;
    rng.shuffle(perm);
    for (int i = 0; i < n; ++i)
      pts[static_cast<std::size_t>(i)][static_cast<std::size_t>(f)] = (perm[static_cast<std::size_t>(i)] + rng.uniform()) / n;
  }
  return pts;
}

}  // namespace vtick
