#include "sim/stats.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

namespace vtick {

double student_t95(int dof) {
  if (dof <= 0) return std::numeric_limits<double>::quiet_NaN();
  // the 0.975 quantile of Student's t: two-sided 95% (Boost.Math, any dof), computed in
  // double: the default promotion to long double instantiates erfc_inv<long double>, whose
  // static initialiser overflows where long double is 64-bit (valgrind: vtick could not
  // start under callgrind or cachegrind)
  using Pol = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
  return boost::math::quantile(boost::math::students_t_distribution<double, Pol>(dof), 0.975);
}

SampleStats sample_stats(const std::vector<double>& all) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> xs;
  for (double x : all)
    if (std::isfinite(x)) xs.push_back(x);
  SampleStats s;
  s.n = static_cast<int>(xs.size());
  s.mean = s.stddev = s.ci95 = nan;
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

bool relative_change_meaningful(double base, double value) {
  return std::isfinite(base) && std::isfinite(value) && base != 0 && base * value >= 0 &&
         std::fabs(value) <= 10.0 * std::fabs(base);
}

double percentile(std::vector<double> xs, double p) {
  if (xs.empty()) return 0;
  std::size_t rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(xs.size())));
  if (rank == 0) rank = 1;
  std::nth_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(rank - 1), xs.end());
  return xs[rank - 1];
}

}  // namespace vtick
