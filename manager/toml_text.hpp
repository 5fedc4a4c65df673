// The one way cudnnenv parses TOML (project files, config.toml, profiles,
// tree records): errors as `file:line:col: message` with the caller's hint,
// never an exception.
//
// Before toml++ sees the text, a small scanner refuses what Debian's toml++
// 3.3 cannot parse safely: a character outside ASCII where TOML allows only
// ASCII (outside strings and comments, or opening the line after a
// line-ending backslash in a multi-line string) reaches __builtin_unreachable
// in its whitespace table (tomlplusplus issues #190 and #295, fixed upstream
// after 3.3; found here by tests/fuzz/fuzz_toml). Such text is invalid TOML
// anyway, so valid files lose nothing.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "result.hpp"

namespace cudnnenv {

Result<toml::table> parse_toml(std::string_view text, const std::filesystem::path& file, const std::string& hint);

// "file:line:col" of `source`, for messages about a parsed node.
std::string toml_place(const std::filesystem::path& file, const toml::source_region& source);

}  // namespace cudnnenv
