#include "core/parse_num.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace vtick {

bool parse_int(const std::string& s, long long lo, long long hi, long long& out) {
  std::size_t i = s[0] == '-' ? 1 : 0;
  if (s.empty() || i == s.size() || s.size() > 20) return false;
  for (std::size_t k = i; k < s.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(s[k]))) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0' || v < lo || v > hi) return false;
  out = v;
  return true;
}

bool parse_number_prefix(const std::string& s, double& out, std::string& rest) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  const char* begin = s.c_str();
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(v)) return false;
  out = v;
  rest = end;
  return true;
}

bool parse_number(const std::string& s, double& out) {
  std::string rest;
  return parse_number_prefix(s, out, rest) && rest.empty();
}

}  // namespace vtick
