// Which tree is selected here, and what decided it. First found wins: the
// command line (--cudnn), CUDNNENV_VERSION (the shell's selection), the
// nearest .cudnnenv.toml from the working folder up, the global default in
// <root>/.cudnnenv/config.toml. This runs before every shim launch: it
// spawns nothing and reads one small file per folder level at most.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "profile.hpp"
#include "project.hpp"
#include "result.hpp"
#include "store.hpp"
#include "tree.hpp"
#include "util/environment.hpp"

namespace cudnnenv {

enum class Origin { command_line, environment, project_file, global_default };

struct Selection {
  TreeRecord tree;
  Origin origin = Origin::command_line;
  std::string decided_by;  // "--cudnn", "CUDNNENV_VERSION", or the deciding file's path
  std::string spec;        // the spec (or path) as written there
  std::optional<ProjectFile> project;  // the project file, when it decided
  std::optional<Profile> profile;      // the profile the project file named, if it did
  // Set when the nearest project file has [env] but is not trusted: its
  // variables were dropped (project->env is empty), and this says why and
  // what to do. Activation shows it as a warning; the selection stands.
  std::optional<Error> withheld_env;
};

struct SelectionRequest {
  std::optional<std::string> cudnn;  // --cudnn
  std::optional<std::string> cuda;   // --cuda
  util::Environment environment;
  std::filesystem::path working_directory;
};

// Fails with exit code 3 when nothing is selected or the selection matches
// no tree; a malformed or untrusted project file is an error, never skipped.
Result<Selection> resolve_selection(const Store& store, const SelectionRequest& request);

// "set by --cudnn", "set by /p/.cudnnenv.toml", "set by CUDNNENV_VERSION", ...
std::string describe_origin(const Selection& selection);

// A tree that lives in `folder` without being registered (a trusted `path = ...`).
Result<TreeRecord> tree_from_folder(const std::filesystem::path& folder);

}  // namespace cudnnenv
