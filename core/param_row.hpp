// A documented, sweepable model parameter: value, allowed range, unit and provenance.
#pragma once
#include <string>

namespace vtick {

struct ParamRow {
  std::string key;
  double value;
  double lo, hi;       // the range a user may set or sweep
  std::string unit;    // "ns", "factor", "count", ...
  std::string source;  // a citation, or "[EST] ..." for an estimate
};

}  // namespace vtick
