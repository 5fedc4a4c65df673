// The one way cudnnenv parses TOML (project files, config.toml, profiles,
// tree records): errors as `file:line:col: message` with the caller's hint,
// never an exception.
//
// toml++ sees only ASCII. Debian's toml++ 3.3 reaches __builtin_unreachable
// in its whitespace table for some characters outside ASCII (U+00A1-U+0499,
// U+2C5E-U+3057, U+FB26-U+FEFE) wherever it looks for whitespace, also while
// scanning ahead inside an invalid value (tomlplusplus issues #190 and #295,
// fixed upstream after 3.3; found here by tests/fuzz/fuzz_toml). So before
// parsing, every such character becomes what TOML reads as the same value:
// inside strings a \uXXXX escape (a literal string becomes the equal basic
// string), in comments a '?'. Outside strings and comments a character
// outside ASCII is invalid TOML anyway, and refused here, as is text that is
// not UTF-8. Also refused, being invalid TOML that toml++ 3.3 mishandles: a
// raw control character, and a table header whose '[' is not followed by a
// key (`[&`: an assumption toml++ makes, tomlplusplus #294). Lines stay where
// they were; a column after such a character can be off by its escape's length.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "util/result.hpp"

namespace cudnnenv {

Result<toml::table> parse_toml(std::string_view text, const std::filesystem::path& file, const std::string& hint);

// Whether `token` is a bare TOML value in a form toml++ 3.3 scans safely (a
// malformed number or date breaks its assumptions: `2026-12-01Tz0`, found by
// fuzz_toml). Exactly the regular expression
//   true|false|[+-]?(inf|nan)|[+-]?(0|[1-9](_?[0-9])*)(\.[0-9](_?[0-9])*)?([eE][+-]?[0-9](_?[0-9])*)?|
//   0x[0-9A-Fa-f](_?[0-9A-Fa-f])*|0o[0-7](_?[0-7])*|0b[01](_?[01])*|
//   [0-9]{4}-[0-9]{2}-[0-9]{2}([Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})?)?|
//   [0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?
// matched by hand: compiling it with std::regex cost every start that reads
// a tree record 8.8 million instructions, 70% of a prompt hook's (the unit
// test checks the two agree).
bool is_toml_scalar(std::string_view token);

// "file:line:col" of `source`, for messages about a parsed node.
std::string toml_place(const std::filesystem::path& file, const toml::source_region& source);

}  // namespace cudnnenv
