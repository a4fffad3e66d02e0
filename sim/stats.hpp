// Sample statistics for results over seeds: mean, standard deviation, 95% confidence interval.
#pragma once
#include <vector>

namespace vtick {

struct SampleStats {
  int n = 0;
  double mean = 0;
  double stddev = 0;     // sample standard deviation (n - 1)
  double ci95 = 0;       // half-width of the 95% CI of the mean (Student t)
};

SampleStats sample_stats(const std::vector<double>& xs);
double student_t95(int dof);  // two-sided 97.5% quantile
double percentile(std::vector<double> xs, double p);  // nearest-rank, p in [0, 100]

}  // namespace vtick
