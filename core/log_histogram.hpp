// An HDR-style log-linear histogram of non-negative integer values (ns): exact below
// 2^(kSubBits+1) = 256 ns, then 2^kSubBits buckets per power of two (relative width < 0.8 %,
// HDR Histogram's two significant digits), so
// percentiles of any number of samples take bounded memory.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace vtick {

class LogHistogram {
 public:
  static constexpr int kSubBits = 7;

  void record(std::int64_t v);
  void clear();
  std::uint64_t count() const { return n_; }
  bool empty() const { return n_ == 0; }
  std::int64_t min() const { return n_ ? min_ : 0; }
  std::int64_t max() const { return n_ ? max_ : 0; }
  // Nearest rank (as percentile() in sim/stats.hpp), p in [0, 100]: the lowest value of the
  // bucket that holds that rank, within [min, max]; 0 for no sample.
  std::int64_t value_at_percentile(double p) const;
  // The non-empty buckets in order: (lowest value, count).
  std::vector<std::pair<std::int64_t, std::uint64_t>> buckets() const;
  // Bucket arithmetic (exposed for the tests).
  static std::size_t index_of(std::int64_t v);
  static std::int64_t lowest_of(std::size_t index);

 private:
  std::vector<std::uint64_t> counts_;  // by index, grown to the largest value seen
  std::uint64_t n_ = 0;
  std::int64_t min_ = 0, max_ = 0;
};

}  // namespace vtick
