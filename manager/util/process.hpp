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

// One argument quoted by the rules CommandLineToArgvW and the MSVC runtime
// use to split a command line (backslashes before quotes doubled).
std::string quote_windows_argument(std::string_view argument);

}  // namespace cudnnenv::util
