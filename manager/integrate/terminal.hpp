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

#include "integrate/change.hpp"
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

// What a terminal opens, its files and how they start cudnnenv.
struct TerminalExport {
  std::string name;          // the folder under <state>/terminals and the fragment's file name
  std::string display_name;  // the profile's name in Windows Terminal and the shortcut's
  std::string what;          // the tree or profile it activates
  TerminalShell shell = TerminalShell::cmd;
  std::filesystem::path folder;     // <state>/terminals/<name>
  std::filesystem::path fragments;  // Windows Terminal's fragments folder of cudnnenv
  std::string program;              // PowerShell's script: cudnnenv's path, and the store's
  std::string root;
  std::string program_line;  // cmd's script: the lines that set _CUDNNENV_EXE and _CUDNNENV_ROOT
  std::string root_line;
  bool shortcut = false;  // a Start-menu shortcut too, opening it in `user_profile`
  std::filesystem::path user_profile;
};

// The terminal's folder, script and fragment (and shortcut), each written
// whole; refuses a folder it did not write. Returns the changes and, in
// `command_line`, what the profile runs.
Result<FileChanges> write_terminal(const TerminalExport& terminal, std::string& command_line);

// Removes the terminal whose folder is `folder` (cudnnenv's: else not found),
// its fragment in `fragments` and the shortcuts that open it.
Result<FileChanges> remove_terminal(const std::filesystem::path& folder, const std::filesystem::path& fragments);

}  // namespace cudnnenv
