// Runs a child process with an explicit environment, captures its output
// and kills it after a timeout, so that a crashing or hanging library
// loaded in the child cannot take the caller down. Knows nothing about cuDNN.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/environment.hpp"
#include "util/result.hpp"

namespace cudnnenv::util {

struct ProcessSpec {
  std::filesystem::path program;
  std::vector<std::string> arguments;  // UTF-8, not including the program
  Environment environment;
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};
  std::filesystem::path working_folder;  // empty: this process's
  // When set, stdout goes here piece by piece as it arrives (not into
  // ProcessOutcome::out); returning false kills the child. POSIX only.
  std::function<bool(std::string_view)> on_out;
};

struct ProcessOutcome {
  int exit_code = -1;  // the child's exit code, or -1 when killed
  int signal = 0;      // POSIX: the signal that ended it
  bool timed_out = false;
  bool stopped = false;  // on_out returned false
  std::string out;       // stdout
  std::string err;       // stderr
};

// Fails only when the child cannot be started at all.
Result<ProcessOutcome> run_process(const ProcessSpec& spec);

// A Python this tool starts for an answer of its own (a framework probe, a
// check that a module imports): `PYTHON -c PRELUDE+SCRIPT ARGUMENTS...` that
// imports nothing from a folder another user or a cloned repository can
// write. `-c` puts the working folder first on sys.path, before any import of
// the script, so the child runs in a fresh folder of its own
// (make_private_directory in the temporary folder: 0700, a name no one could
// plant) that is removed after; PYTHONSAFEPATH=1 keeps that entry off
// sys.path on Python 3.11+ (what -P does; -P itself stops an older Python
// with "unknown option"); and the prelude, run before the script's first
// import, removes every '' and '.' entry. `-I` is not used: it also drops
// PYTHONPATH and the user's site-packages (`pip install --user`), so the
// answer would be about another Python than the one that runs.
struct PythonSpec {
  std::filesystem::path python;
  std::string script;                  // after the prelude; `sys` is imported
  std::vector<std::string> arguments;  // sys.argv[1:]
  Environment environment;
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
};

// The first lines of every script run_python starts.
inline constexpr std::string_view k_python_prelude =
    "import sys\nsys.path[:] = [entry for entry in sys.path if entry not in ('', '.')]\n";

// Fails when the private folder cannot be made or the child cannot start.
Result<ProcessOutcome> run_python(const PythonSpec& spec);

// One argument quoted by the rules CommandLineToArgvW and the MSVC runtime
// use to split a command line (backslashes before quotes doubled).
std::string quote_windows_argument(std::string_view argument);

}  // namespace cudnnenv::util
