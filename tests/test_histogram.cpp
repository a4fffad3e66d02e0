// core/log_histogram.hpp: the bounded latency record. Percentiles agree with the exact
// nearest rank to the histogram's resolution, min and max are exact, memory does not grow
// with the number of samples, and a run's JSON carries the histogram its percentiles use.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "core/log_histogram.hpp"
#include "helpers.hpp"
#include "sim/stats.hpp"

using namespace vtick;

TEST_CASE("log histogram buckets: exact below 256 ns, then under 0.8 % wide, contiguous") {
  for (std::int64_t v = 0; v < 256; ++v) CHECK(LogHistogram::lowest_of(LogHistogram::index_of(v)) == v);
  std::mt19937_64 g(7);
  for (int i = 0; i < 100000; ++i) {
    auto v = static_cast<std::int64_t>(g() >> (g() % 40 + 4));
    std::size_t b = LogHistogram::index_of(v);
    std::int64_t lo = LogHistogram::lowest_of(b), next = LogHistogram::lowest_of(b + 1);
    INFO(v << " in bucket " << b << " [" << lo << ", " << next << ")");
    CHECK(lo <= v);
    CHECK(v < next);
    CHECK(static_cast<double>(next - lo) <= std::max(1.0, static_cast<double>(lo) / 128.0));
  }
}

TEST_CASE("log histogram percentiles match the exact nearest rank within their bucket") {
  std::mt19937_64 g(11);
  std::lognormal_distribution<double> d(std::log(20000.0), 1.5);  // wake-up-like: µs to ms
  LogHistogram h;
  std::vector<double> xs;
  for (int i = 0; i < 50000; ++i) {
    auto v = static_cast<std::int64_t>(d(g));
    h.record(v);
    xs.push_back(static_cast<double>(v));
  }
  CHECK(h.count() == xs.size());
  for (double p : {0.0, 10.0, 50.0, 90.0, 99.0, 99.9, 100.0}) {
    double exact = percentile(xs, p);
    auto got = static_cast<double>(h.value_at_percentile(p));
    INFO("p" << p << ": exact " << exact << ", histogram " << got);
    CHECK(got <= exact);
    CHECK(exact - got <= std::max(1.0, exact / 128.0));  // within the bucket of the exact rank
  }
  CHECK(h.max() == static_cast<std::int64_t>(*std::max_element(xs.begin(), xs.end())));
  CHECK(h.value_at_percentile(100) == h.max());
  CHECK(h.min() == static_cast<std::int64_t>(*std::min_element(xs.begin(), xs.end())));
  h.clear();
  CHECK(h.empty());
  CHECK(h.value_at_percentile(50) == 0);
}

TEST_CASE("log histogram memory is set by the largest value, not by the number of samples") {
  LogHistogram h;
  for (int i = 0; i < 1000; ++i) h.record(i * 1000);
  std::size_t few = h.buckets().size();
  for (int r = 0; r < 1000; ++r)
    for (int i = 0; i < 1000; ++i) h.record(i * 1000);
  CHECK(h.buckets().size() == few);
  CHECK(h.count() == 1001000u);
}

TEST_CASE("a run's JSON carries the latency histograms its percentiles are read from") {
  std::string out = test::temp_path("hist.json");
  auto r = test::run_cli("run " + std::string(VTICK_SOURCE_DIR) + "/scenarios/default.toml --duration 200ms --quiet --json " + out);
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(test::read_file(out));
  const auto& w = j["histograms"]["wake_latency"];
  REQUIRE(w["count"].get<std::uint64_t>() > 100);
  std::uint64_t n = 0, rank = 0;
  std::int64_t p50 = -1;
  for (const auto& b : w["buckets"]) n += b[1].get<std::uint64_t>();
  CHECK(n == w["count"].get<std::uint64_t>());
  for (const auto& b : w["buckets"]) {
    rank += b[1].get<std::uint64_t>();
    if (p50 < 0 && 2 * rank >= n) p50 = b[0].get<std::int64_t>();
  }
  CHECK(j["summary"]["wake_latency_p50_us"].get<double>() == Approx(static_cast<double>(p50) / 1e3));
  std::remove(out.c_str());
}
