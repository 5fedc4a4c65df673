// Windows terminals opened already activated, like "Anaconda Prompt": a
// script in <state>/terminals/<name>/ that activates one tree (or profile),
// the command line that opens cmd or PowerShell running it, and the Windows
// Terminal profile fragment that offers that command line
// (%LOCALAPPDATA%\Microsoft\Windows Terminal\Fragments\cudnnenv\<name>.json).
// The Start-menu shortcut with the same command line is util/shortcut.hpp's.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace cudnnenv {

enum class TerminalShell { cmd, powershell };

// The program a terminal runs, as Windows Terminal takes it (%SystemRoot%
// expanded when it starts): cmd.exe, or Windows PowerShell 5.
std::string terminal_program(TerminalShell shell);

// The arguments after the program that run `script` and keep the shell open:
// cmd `/k ""SCRIPT""` (cmd strips the outer pair and keeps the inner, so a
// path with spaces, '&' or '(' stays one word), PowerShell `-NoExit
// -ExecutionPolicy Bypass -File "SCRIPT"` (what conda's PowerShell prompt
// passes). Fails for a path a command line cannot carry there: a '%' (cmd
// and Windows Terminal expand variables), a '"', a control character, or
// text that is not UTF-8.
Result<std::string> terminal_arguments(TerminalShell shell, std::string_view script);

// The script that `arguments` (as terminal_arguments writes them, for either
// shell) run; nothing for arguments of another form.
std::optional<std::string> script_in_terminal_arguments(std::string_view arguments);

// A Windows Terminal fragment offering one profile: `display_name`, opening
// `command_line` in the user's profile folder. Written by the JSON library.
std::string terminal_fragment_json(const std::string& display_name, const std::string& command_line);

// A Start-menu file name for `display_name`: every letter Windows refuses in
// a file name (\ / : * ? " < > | and control characters) becomes '_'.
std::string shortcut_file_name(const std::string& display_name);

// What the scripts cudnnenv writes for a terminal hold, so that `--remove`
// deletes nothing else.
inline constexpr std::string_view k_terminal_marker = "written by `cudnnenv export terminal`";

}  // namespace cudnnenv
