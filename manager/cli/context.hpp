// What every subcommand shares: the environment, the store root, output
// switches, and the one place that turns errors into output.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "probe.hpp"
#include "result.hpp"
#include "store.hpp"
#include "util/environment.hpp"

namespace cudnnenv::cli {

struct Context {
  util::Environment environment;
  std::string root_option;  // --root
  bool verbose = false;
  // Set by the chosen subcommand while parsing, run once parsing is done:
  // returns the exit code, or the error to print.
  std::function<Result<int>()> action;

  Store store() const;
  ProbeFunction probe() const;
  WarningSink warner() const;
};

// Registered per file (cmd_*.cpp), each with the one-line description --help shows.
void register_install(CLI::App& app, Context& context);
void register_adopt(CLI::App& app, Context& context);
void register_list(CLI::App& app, Context& context);
void register_remove(CLI::App& app, Context& context);
void register_discover(CLI::App& app, Context& context);
void register_use(CLI::App& app, Context& context);
void register_current(CLI::App& app, Context& context);
void register_which(CLI::App& app, Context& context);
void register_trust(CLI::App& app, Context& context);
void register_untrust(CLI::App& app, Context& context);
void register_verify(CLI::App& app, Context& context);

// Runs the CLI on UTF-8 arguments (argv[0] included); returns the exit code.
int run(std::vector<std::string> arguments);

}  // namespace cudnnenv::cli
