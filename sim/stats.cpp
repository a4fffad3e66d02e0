#include "sim/stats.hpp"

#include <algorithm>
#include <cmath>

namespace vtick {

double student_t95(int dof) {
  static const double t[] = {0,      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                             2.201,  2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                             2.080,  2.074,  2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof <= 0) return 0;
  if (dof <= 30) return t[dof];
  if (dof <= 60) return 2.000;
  if (dof <= 120) return 1.980;
  return 1.960;
}

SampleStats sample_stats(const std::vector<double>& xs) {
  SampleStats s;
  s.n = static_cast<int>(xs.size());
  if (s.n == 0) return s;
  double sum = 0;
  for (double x : xs) sum += x;
  s.mean = sum / s.n;
  if (s.n > 1) {
    double ss = 0;
    for (double x : xs) ss += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(ss / (s.n - 1));
    s.ci95 = student_t95(s.n - 1) * s.stddev / std::sqrt(static_cast<double>(s.n));
  }
  return s;
}

double percentile(std::vector<double> xs, double p) {
  if (xs.empty()) return 0;
  std::size_t rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(xs.size())));
  if (rank == 0) rank = 1;
  std::nth_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(rank - 1), xs.end());
  return xs[rank - 1];
}

}  // namespace vtick
