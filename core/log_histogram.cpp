#include "core/log_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace vtick {

std::size_t LogHistogram::index_of(std::int64_t v) {
  auto u = static_cast<std::uint64_t>(std::max<std::int64_t>(v, 0));
  if (u < (std::uint64_t{2} << kSubBits)) return static_cast<std::size_t>(u);
  int k = 63 - __builtin_clzll(u);  // floor(log2 u) > kSubBits
  int b = k - kSubBits;              // the bucket: a width of 2^b
  return (static_cast<std::size_t>(b) << kSubBits) + static_cast<std::size_t>(u >> b);
}

std::int64_t LogHistogram::lowest_of(std::size_t index) {
  if (index < (std::size_t{2} << kSubBits)) return static_cast<std::int64_t>(index);
  std::size_t b = (index >> kSubBits) - 1;
  std::size_t sub = index - (b << kSubBits);
  return static_cast<std::int64_t>(sub << b);
}

void LogHistogram::record(std::int64_t v) {
  v = std::max<std::int64_t>(v, 0);
  std::size_t i = index_of(v);
  if (i >= counts_.size()) counts_.resize(std::max(i + 1, counts_.size() * 2), 0);
  ++counts_[i];
  if (n_ == 0 || v < min_) min_ = v;
  if (n_ == 0 || v > max_) max_ = v;
  ++n_;
}

void LogHistogram::clear() {
  std::fill(counts_.begin(), counts_.end(), 0);
  n_ = 0;
  min_ = max_ = 0;
}

std::int64_t LogHistogram::value_at_percentile(double p) const {
  if (n_ == 0) return 0;
  auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(n_)));
  rank = std::clamp<std::uint64_t>(rank, 1, n_);
  if (rank == n_) return max_;  // the largest sample is kept exactly
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::clamp(lowest_of(i), min_, max_);
  }
  return max_;
}

std::vector<std::pair<std::int64_t, std::uint64_t>> LogHistogram::buckets() const {
  std::vector<std::pair<std::int64_t, std::uint64_t>> v;
  for (std::size_t i = 0; i < counts_.size(); ++i)
    if (counts_[i]) v.emplace_back(lowest_of(i), counts_[i]);
  return v;
}

}  // namespace vtick
