// Not kernel code: the TOML reading of sim/toml_text.hpp.
#include "sim/toml_text.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "sim/scenario.hpp"

namespace vtick {

std::string toml_at(const std::string& file, const toml::node& n) {
  return file + ":" + std::to_string(n.source().begin.line) + ":" + std::to_string(n.source().begin.column);
}

bool toml_scalar_text(const toml::node& n, std::string& out) {
  if (auto s = n.as_string()) out = s->get();
  else if (auto i = n.as_integer()) out = std::to_string(i->get());
  else if (auto f = n.as_floating_point()) {
    if (!std::isfinite(f->get())) return false;
    std::ostringstream o;
    o.precision(17);
    o << f->get();
    out = o.str();
  } else if (auto b = n.as_boolean()) out = b->get() ? "true" : "false";
  else return false;
  return true;
}

bool is_scenario_key(const std::string& k) {
  for (const auto& [key, what] : scenario_keys())
    if (key == k) return true;
  return false;
}

bool toml_ascii_outside_strings(const std::string& t, int& line, int& col, const char** why) {
  if (why) *why = "a non-ASCII character outside a string or comment";
  // a backslash in a basic string, then (spaces, tabs, line ends and) a non-ASCII byte:
  // no valid escape starts so, and toml++ would classify it as whitespace
  auto bad_escape = [&](std::size_t i, bool multiline) {
    std::size_t j = i + 1;
    if (multiline)
      while (j < t.size() && (t[j] == ' ' || t[j] == '\t' || t[j] == '\r' || t[j] == '\n')) ++j;
    if (j < t.size() && static_cast<unsigned char>(t[j]) >= 0x80) {
      if (why) *why = "a non-ASCII character after a backslash in a string (not an escape)";
      return true;
    }
    return false;
  };
  enum { Plain, Comment, Basic, Literal, MlBasic, MlLiteral } st = Plain;
  line = 1;
  col = 0;
  std::size_t skip = 0;  // bytes of a delimiter or an escaped character still to pass
  for (std::size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (c == '\n') {
      ++line;
      col = 0;
    } else {
      ++col;
    }
    if (skip > 0) {
      --skip;
      continue;
    }
    auto starts = [&](const char* s) { return t.compare(i, 3, s) == 0; };
    bool escape = c == '\\' && i + 1 < t.size() && t[i + 1] != '\n';
    switch (st) {
      case Plain:
        if (static_cast<unsigned char>(c) >= 0x80) return false;
        if (c == '#') st = Comment;
        else if (starts("\"\"\"")) st = MlBasic, skip = 2;
        else if (starts("\'\'\'")) st = MlLiteral, skip = 2;
        else if (c == '"') st = Basic;
        else if (c == '\'') st = Literal;
        break;
      case Comment:
        if (c == '\n') st = Plain;
        break;
      case Basic:  // (an unterminated one ends at the line: toml++ reports it)
        if (c == '\\' && bad_escape(i, false)) return false;
        if (escape) skip = 1;
        else if (c == '"' || c == '\n') st = Plain;
        break;
      case Literal:
        if (c == '\'' || c == '\n') st = Plain;
        break;
      case MlBasic:
        if (c == '\\' && bad_escape(i, true)) return false;
        if (escape) skip = 1;
        else if (starts("\"\"\"")) st = Plain, skip = 2;
        break;
      case MlLiteral:
        if (starts("\'\'\'")) st = Plain, skip = 2;
        break;
    }
  }
  return true;
}

toml::table parse_toml_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path + ": cannot be opened");
  std::ostringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  int line = 0, col = 0;
  const char* why = nullptr;
  if (!toml_ascii_outside_strings(text, line, col, &why))
    throw InputError(path + ":" + std::to_string(line) + ":" + std::to_string(col) + ": TOML syntax error: " + why);
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    std::string m(e.description());
    if (!b.line) throw InputError(path + ": " + m);
    throw InputError(path + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) + ": TOML syntax error: " + m);
  }
}

}  // namespace vtick
