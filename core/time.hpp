// Model time: int64_t nanoseconds. SimGrid's double seconds appear only at the boundary.
#pragma once
#include <cstdint>
#include <limits>
#include <string>

namespace vtick {

using sim_ns = std::int64_t;

inline constexpr sim_ns NSEC_PER_USEC = 1000;
inline constexpr sim_ns NSEC_PER_MSEC = 1000 * 1000;
inline constexpr sim_ns NSEC_PER_SEC = 1000 * 1000 * 1000;
inline constexpr sim_ns KTIME_MAX = std::numeric_limits<sim_ns>::max();

// SimGrid clock <-> model time. Rounding to the nearest ns keeps deadlines exact:
// a wait set up for t ns returns at a clock that rounds back to t.
inline double to_seconds(sim_ns t) { return static_cast<double>(t) * 1e-9; }
sim_ns from_seconds(double s);

// "10s", "250ms", "100us", "1500ns", "2.5ms": a duration with a mandatory unit.
// Returns false (and leaves out alone) when the text is not a duration.
bool parse_duration(const std::string& text, sim_ns& out);
std::string format_duration(sim_ns t);

}  // namespace vtick
