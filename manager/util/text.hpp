// String and path helpers. Knows nothing about cuDNN.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudnnenv::util {

// Paths travel through the program as std::filesystem::path (wide on
// Windows) and leave it as UTF-8 text.
std::string to_utf8(const std::filesystem::path& path);
std::filesystem::path path_from_utf8(std::string_view text);

// `path` with '/' separators, for records that must read the same on every OS.
std::string generic_utf8(const std::filesystem::path& path);

std::string to_lower(std::string_view text);  // ASCII letters only, as the two below
std::string to_upper(std::string_view text);
// "'a', 'b', 'c' and 2 more": the first `shown` of `items`, quoted.
std::string quote_some(const std::vector<std::string>& items, std::size_t shown);
bool iequals(std::string_view a, std::string_view b);
bool starts_with(std::string_view text, std::string_view prefix);
bool ends_with(std::string_view text, std::string_view suffix);
// A SHA-256 as cudnnenv writes and compares them: 64 lower-case hex digits.
bool is_sha256_hex(std::string_view text);
std::string_view trim(std::string_view text);
std::vector<std::string> split(std::string_view text, char separator);

// `items` joined by `separator`: "a, b, c".
std::string join(const std::vector<std::string>& items, std::string_view separator);

// Lower-case hex of `size` bytes.
std::string to_hex(const unsigned char* data, std::size_t size);

// "1.2 GB", "340 kB", "12 B" (decimal units, as file managers show them).
std::string human_size(std::uint64_t bytes);

// Levenshtein distance, for "did you mean".
std::size_t edit_distance(std::string_view a, std::string_view b);

bool is_valid_utf8(std::string_view text);

// Text a batch file carries bare in every code page: ASCII without control
// characters and none of `"%!^&|<>` (what cmd would expand or split on).
bool plain_for_batch(std::string_view text);

// The code point of the UTF-8 sequence at `at` in `text` and its length in
// bytes; length 0 when the bytes there are not one whole UTF-8 sequence.
std::pair<char32_t, std::size_t> decode_utf8(std::string_view text, std::size_t at);

// `text` safe to show on a terminal: control bytes (ESC, CR, BEL, ...),
// C1 controls, bidirectional overrides and bytes that are not UTF-8 become
// visible escapes (`\x1b`, `\u{202e}`); everything else, backslashes and
// non-ASCII letters included, stays as it is. For names that come from
// archives, folders and files before they reach stderr.
std::string printable(std::string_view text);

// `word` as one word of a command a message suggests, safe to paste into the
// shells of Windows (`windows`: cmd, PowerShell) or POSIX sh: as it is when it
// holds only letters, digits and ._+-/:\=,@; else in double quotes (for sh,
// '"', '\', '$' and '`' escaped inside); printable either way. The overload
// without `windows` is this host's.
std::string command_word(std::string_view word, bool windows);
std::string command_word(std::string_view word);

}  // namespace cudnnenv::util
