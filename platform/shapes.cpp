#include "core/parse_num.hpp"
#include "platform/shapes.hpp"

#include <cstdlib>
#include <numeric>

namespace vtick {

static std::vector<int> range(int lo, int hi) {
  std::vector<int> v(hi - lo + 1);
  std::iota(v.begin(), v.end(), lo);
  return v;
}

const std::vector<ShapeFamily>& shape_families() {
  static const std::vector<ShapeFamily> f = {
      {"VM.Standard2.", "skylake-sp", 2, {1, 2, 4, 8, 16, 24},
       "x86_64 Intel Skylake-SP (X7), N cores x 2 hyperthreads = 2N vCPUs"},
      {"VM.Standard.A1.Flex.", "altra", 1, range(1, 80),
       "arm64 Ampere Altra, N cores, no SMT = N vCPUs"},
      {"VM.Standard.E4.Flex.", "milan", 2, range(1, 64),
       "x86_64 AMD EPYC Milan, N cores x 2 threads = 2N vCPUs"},
  };
  return f;
}

bool lookup_shape(const std::string& name, Shape& out) {
  for (const auto& fam : shape_families()) {
    if (name.compare(0, fam.prefix.size(), fam.prefix) != 0) continue;
    std::string rest = name.substr(fam.prefix.size());
    long long nn = 0;
    if (rest.empty() || rest[0] == '-' || !parse_int(rest, 0, 100000, nn)) return false;
    int n = static_cast<int>(nn);
    bool ok = false;
    for (int s : fam.sizes) ok |= (s == n);
    if (!ok) return false;
    out = Shape{name, fam.arch, n, fam.threads_per_core};
    return true;
  }
  return false;
}

std::string shape_allowed_text() {
  std::string s = "generic";
  for (const auto& fam : shape_families()) {
    s += ", " + fam.prefix + "N (N in ";
    if (fam.sizes.size() > 8) s += std::to_string(fam.sizes.front()) + ".." + std::to_string(fam.sizes.back());
    else
      for (size_t i = 0; i < fam.sizes.size(); ++i) s += (i ? "," : "") + std::to_string(fam.sizes[i]);
    s += ")";
  }
  return s;
}

}  // namespace vtick
