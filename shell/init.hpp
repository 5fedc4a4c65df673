// `cudnnenv init SHELL`: the integration a shell's profile evaluates (the
// scripts are the files shell/init.*, embedded at build time).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "shell/quote.hpp"
#include "util/result.hpp"

namespace cudnnenv::shell {

// The integration for `shell`, with `program` (cudnnenv) and the shims
// folder quoted for it; nothing for a shell without one yet.
std::optional<std::string> init_script(Shell shell, const std::string& program, const std::string& shims);

// Tab completion for `shell` (bash, zsh, fish, PowerShell), asking `program` (quoted
// for the shell) for the candidates; nothing for cmd.
std::optional<std::string> completion_script(Shell shell, const std::string& program);

// The one line to add to the shell's profile.
std::string init_line(Shell shell);

// cmd reads a batch file in the console's code page (437, 850, 936, 65001,
// whatever it is when the file runs), so the batch files cudnnenv writes hold
// only ASCII, and a path with other letters is found when the file runs.
// What is known about such a path when the file is written:
struct BatchPathFacts {
  std::filesystem::path target;  // absolute
  std::filesystem::path folder;  // the batch file's own folder: %~dp0 when it runs
  // Variables every cmd of this user has (USERPROFILE, LOCALAPPDATA...), with their values now.
  std::vector<std::pair<std::string, std::string>> variables;
  bool on_path = false;                   // PATH, searched for target's file name, finds target first
  std::optional<std::string> short_path;  // its 8.3 name, when the volume makes them
};

// The line (or two) that sets `variable` to `facts.target` in a batch file, in
// ASCII: the path itself when it is ASCII; else a variable's value and the
// rest of the path; else the path from the batch file's folder (%~dp0); else
// a search of PATH at run time (the program's folder on PATH); else its short
// name. When none is ASCII: an error naming the path, with what to do.
Result<std::string> batch_path_line(const BatchPathFacts& facts, const std::string& variable);

// For cmd, two batch files (CRLF, ASCII): init.bat, run at each cmd start,
// which defines the `cudnnenv` doskey macro and puts the shims (beside it)
// on PATH; and cudnnenv.bat, what the macro runs. `program_line` sets
// _CUDNNENV_EXE (batch_path_line).
struct CmdIntegration {
  std::string init_bat;
  std::string cudnnenv_bat;
};
CmdIntegration cmd_integration(const std::string& program_line);

// A profile's activate.bat or deactivate.bat (`verb`: "activate" or
// "deactivate"), ASCII: the store and the profile's name are this file's
// folders (<root>\.cudnnenv\profiles\<name>), found when it runs.
std::string profile_batch(const std::string& program_line, const std::string& verb);

// The activate.bat `cudnnenv export terminal` writes into
// <state>\terminals\<name>\, which a terminal opens cmd with (`cmd /k`):
// ASCII, it activates the tree or profile named by the one folder under its
// own tree\ folder (a name in any letters, read as the file system has it),
// in the store `root_line` sets as _CUDNNENV_ROOT (batch_path_line's line).
// `about` is its first comment line.
std::string terminal_batch(const std::string& about, const std::string& program_line, const std::string& root_line);

// The first line of every hook `cudnnenv export conda` writes (what --remove looks for).
inline constexpr const char* k_conda_marker =
    "written by 'cudnnenv export conda'; 'cudnnenv export conda --remove' deletes it";

// A conda env's activate.d / deactivate.d batch file: like profile_batch, with
// the store `root` and the tree's `spec` written in (both ASCII, neither holding
// '"', '%' or '!': the caller checks).
std::string conda_batch(const std::string& program_line, const std::string& root, const std::string& spec,
                        const std::string& verb);

// The hooks `cudnnenv export conda` writes into PREFIX/etc/conda: the
// relative path and text of each, for sh (bash, zsh), fish, PowerShell, and
// cmd when `batch_program_line` is given (Windows). Each activates `spec`
// from the store `root` by name, so it survives the store's upgrades.
struct HookFile {
  std::string path;  // "activate.d/cudnnenv-activate.sh"
  std::string text;
};
std::vector<HookFile> conda_hooks(const std::string& program, const std::string& root, const std::string& spec,
                                  const std::optional<std::string>& batch_program_line);

// A script for `shell` (bash, zsh, fish, powershell) that runs `program
// --root ROOT ARGUMENTS --shell SHELL` and applies what it prints: a profile's
// or a conda env's activate/deactivate in a shell with no integration.
// `arguments` are quoted for the shell by the caller.
std::string apply_command(Shell shell, const std::string& program, const std::string& root,
                          const std::string& arguments);

// CRLF line ends, as cmd wants them.
std::string crlf(const std::string& text);

// AutoRun (HKCU\Software\Microsoft\Command Processor) is one command line
// for every cmd start, a list joined by " & ": `part` added once at the end,
// and removed with exactly the separator it came with.
std::string autorun_with(const std::string& autorun, const std::string& part);
std::string autorun_without(const std::string& autorun, const std::string& part);

}  // namespace cudnnenv::shell
