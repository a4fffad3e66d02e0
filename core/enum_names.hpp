// Names of the model's modes: every mode is an enum, parsed from its name once at load
// time; the names are what scenario files, tables and the JSON show.
//   enum class L1dFlush { Never, Cond, Always };
//   VTICK_ENUM_NAMES(L1dFlush, "never", "cond", "always");   // beside it, in namespace vtick
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace vtick {

template <class E>
struct EnumNames;  // specialised by VTICK_ENUM_NAMES: names in the enumerators' order

template <class E>
const char* enum_name(E e) {
  const auto& n = EnumNames<E>::names();
  auto i = static_cast<std::size_t>(e);
  return i < n.size() ? n[i] : "?";
}

template <class E>
bool parse_enum(const std::string& name, E& out) {
  const auto& n = EnumNames<E>::names();
  for (std::size_t i = 0; i < n.size(); ++i)
    if (name == n[i]) {
      out = static_cast<E>(i);
      return true;
    }
  return false;
}

template <class E>
std::vector<std::string> enum_names_of() {
  const auto& n = EnumNames<E>::names();
  return std::vector<std::string>(n.begin(), n.end());
}

}  // namespace vtick

#define VTICK_ENUM_NAMES(E, ...)                                      \
  template <>                                                         \
  struct EnumNames<E> {                                              \
    static const std::vector<const char*>& names() {                  \
      static const std::vector<const char*> n = {__VA_ARGS__};        \
      return n;                                                       \
    }                                                                 \
  }
