// Sample statistics for results over seeds: mean, standard deviation, 95% confidence interval.
#pragma once
#include <vector>

namespace vtick {

// Undefined values are NaN: mean with no sample, stddev and ci95 with fewer than two.
struct SampleStats {
  int n = 0;             // defined (finite) samples
  double mean = 0;
  double stddev = 0;     // sample standard deviation (n - 1)
  double ci95 = 0;       // half-width of the 95% CI of the mean (Student t)
};

// Over the finite values of xs (NaN, an undefined sample, is left out).
SampleStats sample_stats(const std::vector<double>& xs);
double student_t95(int dof);  // the 0.975 quantile of Student's t (two-sided 95%); NaN for dof < 1
double percentile(std::vector<double> xs, double p);  // nearest-rank, p in [0, 100]; 0 for no sample

// Whether a change from `base` to `value` is worth a percentage: base is not zero, both
// are on the same side of zero, and value is at most 10x base (a change of at most
// +900%). Past that a percentage measures how small the baseline is, not the change, and
// tables show the absolute difference instead (docs/cli.md).
bool relative_change_meaningful(double base, double value);

}  // namespace vtick
