// One command-line argument quoted by the rules CommandLineToArgvW and the
// MSVC runtime split a command line with (backslashes before a quote
// doubled), for narrow (UTF-8) or wide strings. Header-only and free of the
// rest of util/: the shim (shim/, no part of the core) includes it too, so
// the rule exists once.
#pragma once

#include <string>
#include <string_view>

namespace cudnnenv::util {

template <typename Char>
std::basic_string<Char> quote_windows_argument_as(std::basic_string_view<Char> argument) {
  constexpr Char special[] = {Char(' '), Char('\t'), Char('\n'), Char('\v'), Char('"'), Char(0)};
  if (!argument.empty() && argument.find_first_of(special) == std::basic_string_view<Char>::npos) {
    return std::basic_string<Char>(argument);
  }
  std::basic_string<Char> quoted(1, Char('"'));
  std::size_t backslashes = 0;
  for (const Char c : argument) {
    if (c == Char('\\')) {
      ++backslashes;
      continue;
    }
    quoted.append(c == Char('"') ? backslashes * 2 + 1 : backslashes, Char('\\'));
    backslashes = 0;
    quoted += c;
  }
  quoted.append(backslashes * 2, Char('\\'));
  quoted += Char('"');
  return quoted;
}

}  // namespace cudnnenv::util
