// Where a user's state lives, and the one list of what it holds: no code
// outside store/ joins a name under the state folder by hand
// (tests/lint/state_paths.py checks it). The names the shim must agree on
// are in shim/state_layout.hpp.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "formats/platform.hpp"
#include "util/environment.hpp"
#include "util/result.hpp"

namespace cudnnenv {

// The files and folders under one state folder: a user's own, or a store's
// own folder (<root>/.cudnnenv), whose config.toml is a shared store's
// default for every user.
struct StatePaths {
  std::filesystem::path folder;

  std::filesystem::path config() const;  // config.toml: use --global, [download], [profiles]
  std::filesystem::path trust() const;   // trusted/: one entry per trusted project file
  std::filesystem::path shims() const;   // shims/: the shims `shim add` writes
  // launchers/<tree>/<pin>/: a shim pinned to one tree that starts one
  // interpreter (export launcher, export vscode), the folder named by the
  // first 16 hex digits of the SHA-256 of the interpreter's path (then, when
  // the pin is not the tree alone, a line break and `spec`, another and
  // `runtime`): projects of one tree with other interpreters, a profile or a
  // runtime named, get launchers of their own.
  std::filesystem::path launchers(const std::string& tree, const std::filesystem::path& interpreter,
                                  const std::string& spec = {}, const std::string& runtime = {}) const;
  std::filesystem::path launchers() const;      // launchers/: every tree's
  std::filesystem::path downloads() const;      // downloads/: the archives install kept
  std::filesystem::path cache() const;          // cache/: what can be deleted at any time
  std::filesystem::path pin_checks() const;     // cache/pin-checks: passed checks before a start
  std::filesystem::path health_checks() const;  // cache/health-checks: `slurm health`'s passes
  std::filesystem::path health_lock() const;    // locks/slurm-health.lock: one `slurm health` at a time
  // fence/<16 hex digits>/: Windows' fence DLLs, one folder per set of names a tree lacks.
  std::filesystem::path fences() const;
  // cache/report-<pid>.log: what the audit module of one `exec --report` wrote.
  std::filesystem::path report_log(unsigned long process_id) const;
  std::filesystem::path cmd_scripts() const;  // cmd/: init.bat and the cmd integration
  // profiles/<name>/: the scripts `profile generate` writes.
  std::filesystem::path profile_scripts(const std::string& profile) const;
  // terminals/<name>/: what `export terminal` opens a terminal with.
  std::filesystem::path terminal(const std::string& name) const;
};

// Whether this user can write the store at `root` (its .cudnnenv folder, or
// the root to create it in, or no root yet to create), and that folder is
// this user's alone (own_folder_changeable_by_others says nothing): the
// store's staging, trash and locks live there, and whoever else could
// change it could swap what this user removes or installs for a link. A
// store that is not (a shared one, or a co-owned one) keeps this user's
// state in the user's own folder (state_folder_for).
bool user_can_write(const std::filesystem::path& root);

// Why someone other than this user and root could change the store's own
// folder (.cudnnenv, or the root before it is made), in words
// (util::changeable_by_others); nothing when no one can, or there is no
// store yet.
std::optional<std::string> own_folder_changeable_by_others(const std::filesystem::path& root);

// The state folder of a user of the store at `root`: CUDNNENV_STATE_DIR, else
// <root>/.cudnnenv when this user can write it (or can create it), else the
// user's own ($XDG_STATE_HOME/cudnnenv, ~/.local/state/cudnnenv with HOME,
// else the account's home folder; %LOCALAPPDATA%\cudnnenv on Windows): a
// shared store on a cluster. Never a relative folder (HOME unset would make
// it the working folder, whose trust records anyone could plant): an error
// saying what to set.
Result<std::filesystem::path> state_folder_for(const std::filesystem::path& root, const util::Environment& environment,
                                               Os os);

}  // namespace cudnnenv
