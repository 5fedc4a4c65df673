// What every subcommand shares: the environment, the store root, output
// switches, and the one place that turns errors into output.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "download/download.hpp"
#include "probe/probe.hpp"
#include "select/lock_build.hpp"
#include "select/resolve.hpp"
#include "shell/quote.hpp"
#include "store/store.hpp"
#include "util/environment.hpp"
#include "util/result.hpp"

namespace cudnnenv::cli {

// An option per row of the component table beside cuDNN but the runtime,
// named by its JSON key (--nccl), whose value goes to `into[kind]`: the
// tree `what` (a verb's words: "to pin beside it") by its name or release.
void add_component_options(CLI::App& command, std::map<TreeKind, std::string>& into, const std::string& what);

struct Context {
  util::Environment environment;
  std::string root_option;  // --root
  int verbosity = 0;        // -v, -vv
  // What follows the options of a command that runs a program (exec): the
  // program and its arguments, kept away from the option parser.
  std::vector<std::string> passthrough;
  // Set by the chosen subcommand while parsing, run once parsing is done:
  // returns the exit code, or the error to print.
  std::function<Result<int>()> action;
  // Set by `cudnnenv __script SHELL COMMAND ...`, the only way the shell
  // integration's `cudnnenv` function runs use, activate, deactivate and hook:
  // stdout then holds a script for SHELL behind its first line,
  // shell::k_script_marker, and nothing else (help and errors go to stderr).
  std::optional<shell::Shell> script_shell;

 private:
  mutable std::optional<Store> m_store;
  mutable std::string m_store_root_option;

 public:
  // The store of --root / CUDNNENV_ROOT / the default, with this user's state
  // folder: CUDNNENV_STATE_DIR, else <root>/.cudnnenv when this user can write
  // it, else the user's own ($XDG_STATE_HOME/cudnnenv, ~/.local/state/cudnnenv;
  // %LOCALAPPDATA%\cudnnenv).
  // Made at the first call and kept for the run (remade if --root changed).
  Store& store() const;
  // A request for the selection here: this context's environment and the
  // working folder, with --cudnn and --cuda when given (empty: not given).
  // `components`: --nccl, ... (add_component_options), empty ones not given.
  SelectionRequest request(const std::string& cudnn = {}, const std::string& cuda = {}, const std::string& runtime = {},
                           const std::map<TreeKind, std::string>& components = {}) const;
  // The selection here (resolve_selection with this context's environment and
  // working folder), its warnings said on stderr.
  Result<Selection> selection(SelectionRequest request) const;
  ProbeFunction probe() const;
  WarningSink warner() const;
  // How a fetch goes: the store's downloads folder, the fetch helper beside
  // this program, and the mirror `mirror`, else CUDNNENV_MIRROR, else
  // [download] mirror in config.toml; notes on stderr unless `quiet`.
  DownloadOptions download_options(const std::string& mirror, bool quiet) const;
  // Where lock and sync build a lock from: the store's config files,
  // CUDNNENV_CUDA_INDEX, download_options (no mirror named, quiet).
  LockSources lock_sources() const;
  // When this user's state folder is not the store's own (CUDNNENV_STATE_DIR,
  // or a store this user cannot write): where `what` went, and why; else empty.
  std::optional<std::string> state_elsewhere_note(const std::string& what) const;
  // The line of a batch file in `folder` that sets `variable` to this
  // program's path, in ASCII (shell::batch_path_line, with this machine's facts).
  Result<std::string> program_batch_line(const std::filesystem::path& folder, const std::string& variable) const;
  // The same for a folder `target` (the store's root): never searched on PATH.
  Result<std::string> folder_batch_line(const std::filesystem::path& target, const std::filesystem::path& folder,
                                        const std::string& variable) const;
};

// Registered per file (cmd_*.cpp), each with the one-line description --help shows.

void register_install(CLI::App& app, Context& context);
void register_mirror(CLI::App& app, Context& context);
void register_sync(CLI::App& app, Context& context);
void register_lock(CLI::App& app, Context& context);
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
void register_exec(CLI::App& app, Context& context);
void register_shim(CLI::App& app, Context& context);
void register_activate(CLI::App& app, Context& context);
void register_init(CLI::App& app, Context& context);
void register_profile(CLI::App& app, Context& context);
void register_completion(CLI::App& app, Context& context);
void register_cache(CLI::App& app, Context& context);
void register_export(CLI::App& app, Context& context);
void register_doctor(CLI::App& app, Context& context);
void register_snapshot(CLI::App& app, Context& context);
void register_selftest(CLI::App& app, Context& context);
void register_slurm(CLI::App& app, Context& context);
void register_frameworks(CLI::App& app, Context& context);

// Every option and subcommand on `app`, bound to `context`; with `only` (a
// subcommand's name), the global options and that subcommand's registration
// alone (a name no registration has: all of them).
void register_all(CLI::App& app, Context& context, std::string_view only = {});

// The subcommand a command line names (after the global options, or after
// `__script SHELL`), or nothing: the one registration run_unguarded needs.
std::string_view named_command(const std::vector<std::string>& arguments);

// Splits `arguments` (argv[0] included) of an `exec` command line into what
// the option parser sees and the program with its arguments: after '--', or
// from the first word that is neither an option nor an option's value (which
// options take a value is read from `app`, as registered). Other command
// lines are returned whole, with nothing passed through.
std::pair<std::vector<std::string>, std::vector<std::string>> split_passthrough(const CLI::App& app,
                                                                                std::vector<std::string> arguments);

// `cudnnenv __complete [--current=WORD] [--] WORDS...` (what the completion
// scripts ask, `arguments` after "__complete"): the candidates for WORD after
// WORDS, one per line, read from `app`'s commands and options and the store.
// Parsed by hand: WORDS are a half-typed command line, not cudnnenv's options.
int complete_command_line(const CLI::App& app, Context& context, const std::vector<std::string>& arguments);
// `cudnnenv __man FOLDER`: writes cudnnenv.1 and cudnnenv-COMMAND.1 there (man.cpp).
int write_man_pages(const CLI::App& app, const std::vector<std::string>& arguments);

// Runs the CLI on UTF-8 arguments (argv[0] included); returns the exit code.
int run(std::vector<std::string> arguments);

}  // namespace cudnnenv::cli
