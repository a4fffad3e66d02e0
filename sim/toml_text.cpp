// Not kernel code: the TOML reading of sim/toml_text.hpp.
#include "sim/toml_text.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
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
  // toml++ 3.3's is_non_ascii_horizontal_whitespace() reaches __builtin_unreachable for
  // U+00A1..U+0499 and U+FBF6..U+FEFE (its table leaves those blocks to a switch without
  // them); it asks that of characters in values, keys and strings, not in comments
  auto unsafe_code_point = [&](std::size_t i) {
    unsigned char b0 = static_cast<unsigned char>(t[i]);
    auto cont = [&](std::size_t k) { return k < t.size() ? static_cast<unsigned char>(t[k]) & 0x3F : 0; };
    std::uint32_t cp = 0;
    if ((b0 & 0xE0) == 0xC0) cp = ((b0 & 0x1Fu) << 6) | cont(i + 1);
    else if ((b0 & 0xF0) == 0xE0) cp = ((b0 & 0x0Fu) << 12) | (cont(i + 1) << 6) | cont(i + 2);
    else return false;
    if ((cp >= 0xA1 && cp <= 0x499) || (cp >= 0xFBF6 && cp <= 0xFEFE)) {
      if (why) *why = "a character toml++ 3.3 cannot read safely outside a comment (U+00A1..U+0499, U+FBF6..U+FEFE); in a string write it as an escape, e.g. \\u00e9";
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
    if (st != Comment && st != Plain && static_cast<unsigned char>(c) >= 0xC0 && unsafe_code_point(i)) return false;
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

std::string toml_basic_string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char u[8];
      std::snprintf(u, sizeof u, "\\u%04x", c);
      o += u;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o + "\"";
}

std::string toml_comment_text(const std::string& s) {
  std::string o = s;
  for (char& c : o)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return o;
}

toml::table parse_toml_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path + ": cannot be opened");
  std::ostringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  // a UTF-8 byte order mark: editors write one, and it is no part of the TOML
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
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
