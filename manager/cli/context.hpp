// What every subcommand shares: the environment, the store root, output
// switches, and the one place that turns errors into output.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "doctor/facts.hpp"
#include "doctor/frameworks.hpp"
#include "download/download.hpp"
#include "download/runtime.hpp"
#include "pin/shims.hpp"
#include "probe/probe.hpp"
#include "select/lock.hpp"
#include "select/resolve.hpp"
#include "shell/quote.hpp"
#include "store/store.hpp"
#include "util/environment.hpp"
#include "util/result.hpp"

namespace cudnnenv::cli {

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
  SelectionRequest request(const std::string& cudnn = {}, const std::string& cuda = {},
                           const std::string& runtime = {}) const;
  // The selection here (resolve_selection with this context's environment and
  // working folder), its warnings said on stderr.
  Result<Selection> selection(SelectionRequest request) const;
  ProbeFunction probe() const;
  WarningSink warner() const;
  // The line of a batch file in `folder` that sets `variable` to this
  // program's path, in ASCII (shell::batch_path_line, with this machine's facts).
  Result<std::string> program_batch_line(const std::filesystem::path& folder, const std::string& variable) const;
  // The same for a folder `target` (the store's root): never searched on PATH.
  Result<std::string> folder_batch_line(const std::filesystem::path& target, const std::filesystem::path& folder,
                                        const std::string& variable) const;
};

// Registered per file (cmd_*.cpp), each with the one-line description --help shows.
// The shims' paths for this run's store and program (cmd_shim.cpp); a
// launcher pinned to one tree uses them with its own folder.
ShimPaths shim_paths(const Context& context);

// The project file that decides here, when it names a cuDNN by version or
// profile (what lock and sync work from); else an error saying what to write.
Result<ProjectFile> project_here(const Context& context);
// The lock for `project` (cmd_lock.cpp): each platform it targets resolved
// from the official list alone.
// With `node` (lock --facts), the node's platform when the project names
// none, and on it the archive that runs there (doctor/node.hpp).
Result<LockFile> make_lock(const Context& context, const ProjectFile& project, const NodeFacts* node = nullptr);

// How install fetches: the store's downloads folder, the fetch helper beside
// this program, and the mirror `mirror`, else CUDNNENV_MIRROR, else
// [download] mirror in config.toml; notes on stderr unless `quiet`.
DownloadOptions base_download_options(const Context& context, const std::string& mirror, bool quiet);
// Whether the manifest `release` found is the one `locked` names, and names
// each locked archive with the lock's SHA-256; else an error (exit 1) whose
// fix is writing the lock again.
Result<void> check_locked_runtime(const LockedRuntime& locked, const CudaRelease& release);
// "linux-x86_64", "linux-sbsa" or "windows-x86_64" (k_lock_platforms) as a Platform.
Platform platform_named(const std::string& name);
// The Linux pin's audit module installed beside `program` (cudnnenv).
std::filesystem::path audit_module_beside(const std::filesystem::path& program);
// The check before a start (cmd_exec.cpp): `verify` (none, load, conv; empty:
// CUDNNENV_VERIFY, else the project file's [verify] on_launch, else load) of
// `tree` as the program would load it with `environment`, on GPU `device`.
// `tree` gets its full record when a check reads its files. `slurm_task`:
// the hints name srun's --cudnn-verify rather than exec's --verify.
Result<void> check_before_start(const std::string& verify, int device, const Context& context,
                                const Selection& selection, const util::Environment& environment, TreeRecord& tree,
                                bool slurm_task = false);

// What doctor knows here (doctor/facts.hpp), for `program` (--for) and the
// selection (`cudnn`: --cudnn, empty: the selection here).
Facts gather_facts(const Context& context, const std::string& program, const std::string& cudnn, bool load_copies);
// What the frameworks of `facts` need of cuDNN: from their files, and with
// `probe` from each framework in a child of the Python that runs, under the
// selection's launch environment, `timeout_seconds` each (cmd_frameworks.cpp).
std::vector<CudnnNeed> framework_needs(const Context& context, const Facts& facts, bool probe, double timeout_seconds);
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
