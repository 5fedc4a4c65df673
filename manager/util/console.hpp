// Text to a terminal or console, and the console's code page. Knows
// nothing about cuDNN.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace cudnnenv::util {

// Writes UTF-8 `text` to `stream`: on a Windows console as UTF-16
// (WriteConsoleW, leaving the console's code page alone: it is the user's
// shell's too), elsewhere as the bytes given, with no newline translation.
void write_utf8(std::FILE* stream, std::string_view text);

// Whether `stream` is a terminal (POSIX) or a console (Windows).
bool is_terminal(std::FILE* stream);

// Whether `stream` is a terminal that shows colours (ANSI SGR sequences): on
// Windows a console that accepts ENABLE_VIRTUAL_TERMINAL_PROCESSING (Windows
// 10 and later; turned on here), on POSIX a terminal whose TERM is not "dumb".
bool enable_colours(std::FILE* stream);

// `utf8` in the console's code page (what cmd reads batch files in), or
// nothing when a character has no place in it. Plain ASCII passes as is;
// on POSIX, where there is no such console, anything else is nothing.
std::optional<std::string> encode_for_console(std::string_view utf8);

// Windows PowerShell's effective execution policy for this user, by the
// registry (policy settings first, then CurrentUser, then LocalMachine) and
// PSExecutionPolicyPreference: the value and where it comes from
// ("Restricted", "the default"). Nothing on POSIX.
struct ExecutionPolicy {
  std::string value;
  std::string scope;
};
std::optional<ExecutionPolicy> powershell_execution_policy();

// cmd's AutoRun command line for this user (HKCU\Software\Microsoft\Command
// Processor\AutoRun); empty when unset. POSIX: errors.
Result<std::string> read_cmd_autorun();
// Writes it; an empty `value` deletes it.
Result<void> write_cmd_autorun(const std::string& value);

}  // namespace cudnnenv::util
