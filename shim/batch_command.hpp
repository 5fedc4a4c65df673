// Command lines for batch files (.bat, .cmd) on Windows, shared by
// `cudnnenv exec` and cudnnenv-shim.exe (header only: the shim links no
// C++ library beyond the standard one).
//
// CreateProcessW starts a batch file through cmd.exe, which parses the
// command line again by its own rules, not the C runtime's: `&`, `|`, `<`,
// `>` and `^` outside double quotes, and `%NAME%` (and `!NAME!` with
// delayed expansion) everywhere, even inside quotes. An argument quoted for
// the C runtime (`"\"&calc"`) therefore runs code in a batch file (the
// "BatBadBut" class, CVE-2024-24576 in Rust's std). Here each argument goes
// inside one pair of double quotes, where cmd takes `&|<>^()` literally,
// and an argument cmd cannot receive intact that way (a `"`, `%`, `!`, or a
// line break) is refused rather than altered. The whole line is run as
// `cmd.exe /d /s /c "<line>"`: /s strips exactly the outer pair, /d skips
// AutoRun commands.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnenv::shim {

// Whether Windows runs `path` through cmd.exe: a .bat or .cmd name, any case,
// after the trailing dots and spaces Windows drops from a file name ("x.bat."
// and "x.bat " open x.bat: Rust's CVE-2024-43402).
template <typename Char>
bool is_batch_file(std::basic_string_view<Char> path) {
  while (!path.empty() && (path.back() == Char('.') || path.back() == Char(' '))) {
    path.remove_suffix(1);
  }
  if (path.size() < 4 || path[path.size() - 4] != Char('.')) {
    return false;
  }
  Char ext[3];
  for (std::size_t i = 0; i < 3; ++i) {
    const Char c = path[path.size() - 3 + i];
    ext[i] = c >= Char('A') && c <= Char('Z') ? Char(c - Char('A') + Char('a')) : c;
  }
  return (ext[0] == Char('b') && ext[1] == Char('a') && ext[2] == Char('t')) ||
         (ext[0] == Char('c') && ext[1] == Char('m') && ext[2] == Char('d'));
}

// Why `argument` cannot reach a batch file intact, or nullptr when it can.
template <typename Char>
const char* batch_argument_problem(std::basic_string_view<Char> argument) {
  for (const Char c : argument) {
    switch (c) {
      case Char('"'):
        return "a double quote, which ends cmd's quoting";
      case Char('%'):
        return "a '%', which cmd expands as a variable even inside quotes";
      case Char('!'):
        return "a '!', which cmd expands with delayed expansion on";
      case Char('\r'):
      case Char('\n'):
        return "a line break, which ends cmd's command";
      case Char('\0'):
        return "a NUL character";
      default:
        break;
    }
  }
  return nullptr;
}

// `argument` (which has no problem above) as one word for cmd.
template <typename Char>
std::basic_string<Char> quote_batch_argument(std::basic_string_view<Char> argument) {
  std::basic_string<Char> quoted(1, Char('"'));
  quoted.append(argument);
  quoted += Char('"');
  return quoted;
}

// The command line after `cmd.exe` that runs `program` (a batch file) with
// `arguments`, each of which has no problem above.
template <typename Char>
std::basic_string<Char> batch_command_line(std::basic_string_view<Char> program,
                                           const std::vector<std::basic_string<Char>>& arguments) {
  const Char prefix[] = {'c', 'm', 'd', '.', 'e', 'x', 'e', ' ', '/', 'd', ' ', '/', 's', ' ', '/', 'c', ' ', '"', 0};
  std::basic_string<Char> line(prefix);
  line += quote_batch_argument(program);
  for (const auto& argument : arguments) {
    line += Char(' ');
    line += quote_batch_argument(std::basic_string_view<Char>(argument));
  }
  line += Char('"');
  return line;
}

// Splits a command line's arguments (after the program name) by the rules
// the Microsoft C runtime uses: whitespace separates outside quotes; 2n
// backslashes before a quote give n and toggle quoting, 2n+1 give n and a
// literal quote; `""` inside quotes is a literal quote.
template <typename Char>
std::vector<std::basic_string<Char>> split_command_line(std::basic_string_view<Char> line) {
  std::vector<std::basic_string<Char>> words;
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && (line[i] == Char(' ') || line[i] == Char('\t'))) ++i;
    if (i >= line.size()) break;
    std::basic_string<Char> word;
    bool quoted = false;
    while (i < line.size() && (quoted || (line[i] != Char(' ') && line[i] != Char('\t')))) {
      std::size_t backslashes = 0;
      while (i < line.size() && line[i] == Char('\\')) {
        ++backslashes;
        ++i;
      }
      if (i < line.size() && line[i] == Char('"')) {
        word.append(backslashes / 2, Char('\\'));
        if (backslashes % 2 == 1) {
          word += Char('"');
          ++i;
        } else if (quoted && i + 1 < line.size() && line[i + 1] == Char('"')) {
          word += Char('"');
          i += 2;
        } else {
          quoted = !quoted;
          ++i;
        }
      } else {
        word.append(backslashes, Char('\\'));
        if (i < line.size() && (quoted || (line[i] != Char(' ') && line[i] != Char('\t')))) {
          word += line[i];
          ++i;
        }
      }
    }
    words.push_back(std::move(word));
  }
  return words;
}

}  // namespace cudnnenv::shim
