// The one place text becomes a number (issue 16): the whole text, decimal, in range, no
// exception. Every parser of vtick (scenario values, cpulists, durations, task programs,
// kernel command lines, shapes, sweep ranges, profiles, CSV cells) goes through these.
#pragma once
#include <string>

namespace vtick {

// An optional '-' and decimal digits only, as a whole, inside [lo, hi]: no "1e3", "x",
// "10abc", " 7", "+7", overflow.
bool parse_int(const std::string& s, long long lo, long long hi, long long& out);
// A finite number written as a whole (strtod's syntax, no leading blank, nothing after).
bool parse_number(const std::string& s, double& out);
// The longest number strtod reads at the start of `s` (finite), and what follows it.
bool parse_number_prefix(const std::string& s, double& out, std::string& rest);

}  // namespace vtick
