// Reading TOML text safely with Debian 12's toml++ 3.3: it reaches __builtin_unreachable
// (undefined behaviour; UBSan and the fuzzer found it) on some non-ASCII characters where
// it expects whitespace (is_non_ascii_horizontal_whitespace: U+00A1..U+0499, U+2F3E..,
// U+FB36..). TOML allows non-ASCII only inside strings and comments, so such a character
// anywhere else is an error anyway: vtick refuses it before toml++ sees it.
#pragma once
#include <string>

#include <toml++/toml.h>

namespace vtick {

// false, with the 1-based line and column (bytes) of the first non-ASCII byte outside a
// string or a comment, or after a backslash in a basic string (possibly past the spaces
// of a line-ending backslash): toml++ 3.3 reaches __builtin_unreachable classifying such
// characters (both found by the fuzzer under UBSan). `why` says which.
bool toml_ascii_outside_strings(const std::string& text, int& line, int& col, const char** why = nullptr);

// The file's table; InputError on a missing file, a stray non-ASCII character, or a TOML
// syntax error, each naming path:line:column.
toml::table parse_toml_file(const std::string& path);

// Helpers of the loaders built on it (sweep files, explain targets):
std::string toml_at(const std::string& file, const toml::node& n);  // "file:line:column"
// A scalar as --set takes it (a finite number, a string or a boolean); false otherwise.
bool toml_scalar_text(const toml::node& n, std::string& out);
bool is_scenario_key(const std::string& key);  // one of scenario_keys()

// Text from elsewhere (a profile's strings) written into TOML that vtick generates: as a
// basic string, quoted, with '"', '\\' and control characters escaped; as comment text, on
// one line (control characters become spaces). Neither can end its string or comment.
std::string toml_basic_string(const std::string& s);
std::string toml_comment_text(const std::string& s);

}  // namespace vtick
