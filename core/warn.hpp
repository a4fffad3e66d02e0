// The kernel's WARN_ON() / WARN_ON_ONCE() for states the model can break: where the kernel
// warns, the model fails the run (exit 1) naming the check and its place instead of going
// on from a state that cannot be. Like WARN_ON(), the macro is an expression with the
// condition's value:  if (VTICK_WARN(!inidle_, "cpu ", id)) return;
#pragma once
#include <sstream>
#include <string>

namespace vtick {

void warn_failed(const char* file, int line, const char* cond, const std::string& text);  // core/sg.cpp

template <class... A>
std::string warn_text(const A&... a) {
  std::ostringstream o;
  (o << ... << a);
  return o.str();
}

}  // namespace vtick

#define VTICK_WARN(cond, ...)                                                                           \
  (__builtin_expect(!!(cond), 0) ? (::vtick::warn_failed(__FILE__, __LINE__, #cond, ::vtick::warn_text(__VA_ARGS__)), true) \
                                 : false)
