// Shims: launchers in <root>/.cudnnenv/shims/ that start a program pinned to
// the tree selected where it runs (the shim program: shim/). On Linux NAME is
// a link to cudnnenv-shim; on Windows NAME.exe is a hard link (else a copy)
// of cudnnenv-shim.exe. Beside each, NAME.shim says where cudnnenv and the
// store are and, optionally, the program to start (scoop's format: key = value).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "pin/launch.hpp"
#include "store/component.hpp"
#include "store/tree.hpp"
#include "util/result.hpp"

namespace cudnnenv {

struct ShimSpec {
  std::string name;                             // "python"
  std::optional<std::filesystem::path> target;  // --target; else the first NAME on PATH outside the shims
  std::string args;                             // inserted before the user's arguments
  std::string cudnn;   // a tree or profile every start is pinned to (a launcher: needs `target`); empty: the selection
  BesideNames beside;  // with `cudnn`: the trees named with it (exec --runtime, --nccl); none: each row's rule
};

struct ShimPaths {
  std::filesystem::path shims_dir;     // <state>/shims
  std::filesystem::path root;          // the store root, as the shim passes it back to cudnnenv
  std::filesystem::path state;         // this user's state folder (Store::state().folder)
  std::filesystem::path program;       // cudnnenv
  std::filesystem::path launcher;      // cudnnenv-shim(.exe)
  std::filesystem::path audit_module;  // Linux: libcudnnenv-audit.so; empty on Windows
};

class Store;

// The shims' paths for `store` and this program (its helpers beside the
// installed cudnnenv); a launcher pinned to one tree uses them with its own
// folder.
ShimPaths shim_paths(const Store& store);

struct ShimInfo {
  std::string name;
  std::filesystem::path file;  // the launcher in the shims folder
  std::string target;          // the sidecar's path, or empty: NAME on PATH
  std::string args;
  bool broken = false;  // sidecar missing or unreadable, or the launcher gone
  std::string problem;
};

// Records that a shim's start, in the situation shim::launch_key describes
// for the store `root` (as the shim names it), is `plan`: the tree's files
// (and the runtime's folder) as they are now, the program (Windows), and the
// changes of the launch environment (LaunchPlan::changes), which the shims'
// fast path makes (shim/launch_key.hpp). A cache: failing to write it, or a
// value a line cannot hold, costs the next start the slow path.
void record_launch_decision(const std::string& root, const std::string& state, const TreeRecord& tree,
                            const LaunchPlan& plan);

// Creates or replaces shim `spec.name`. Refuses a name with a path in it,
// a target that does not exist, and a target that is a shim (a loop).
Result<ShimInfo> add_shim(const ShimSpec& spec, const ShimPaths& paths);

// Removes the launcher and its sidecar; exit code 3 when there is no such shim.
Result<void> remove_shim(const std::string& name, const ShimPaths& paths);

std::vector<ShimInfo> list_shims(const ShimPaths& paths);

// When `program` is a launcher (a shim whose sidecar pins it to one tree:
// export launcher, export vscode), what it pins and the program it starts;
// nullopt for anything else.
struct LauncherPin {
  std::string tree;  // the tree: its folder under launchers/ names it (else the spec)
  std::string target;
  std::string spec;    // what `exec --cudnn` gets: the tree, or a profile that chose it
  BesideNames beside;  // what `exec --runtime`, `--nccl` get
};
std::optional<LauncherPin> launcher_pin(const std::filesystem::path& program);

// The sidecar's text (also what tests compare against).
std::string sidecar_text(const ShimSpec& spec, const ShimPaths& paths,
                         const std::optional<std::filesystem::path>& target);

}  // namespace cudnnenv
