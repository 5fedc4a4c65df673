// Which tree is selected here, and what decided it. First found wins: the
// command line (--cudnn), CUDNNENV_VERSION (the shell's selection, `use`),
// CUDNNENV_ACTIVATED (`cudnnenv activate` in this shell), the nearest
// .cudnnenv.toml from the working folder up, the global default in
// <root>/.cudnnenv/config.toml. current, which, exec, the shims (through
// exec and the launch key) and the prompt hook all resolve here. This runs before every shim launch: it
// spawns nothing and reads one small file per folder level at most.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "select/lock.hpp"
#include "select/profile.hpp"
#include "select/project.hpp"
#include "store/store.hpp"
#include "store/tree.hpp"
#include "util/environment.hpp"
#include "util/names.hpp"
#include "util/result.hpp"

namespace cudnnenv {

enum class Origin { command_line, environment, activation, project_file, global_default };

// Set by `cudnnenv activate` (and removed by deactivate): the tree it activated.
inline constexpr const char* k_activated_variable = "CUDNNENV_ACTIVATED";
// Set with it: the door that activated, so that current names it (absent:
// `cudnnenv activate` typed or eval'ed by hand).
inline constexpr const char* k_door_variable = "CUDNNENV_ACTIVATED_BY";

// The doors that activate a tree in a shell besides the prompt hook and `use`:
// `cudnnenv activate` (by hand, or `activate --by DOOR` from a generated script).
// Slurm's task prolog and SPANK plugin set it for a job's task the same way.
enum class Door { activate, module, conda, direnv, profile, terminal, slurm };
inline constexpr util::Named<Door> k_doors[] = {
    {Door::activate, "activate"}, {Door::module, "module"},     {Door::conda, "conda"}, {Door::direnv, "direnv"},
    {Door::profile, "profile"},   {Door::terminal, "terminal"}, {Door::slurm, "slurm"}};
static_assert(util::covers_each_once(k_doors, 7));

struct Selection {
  TreeRecord tree;
  Origin origin = Origin::command_line;
  std::string decided_by;      // "--cudnn", "CUDNNENV_VERSION", "CUDNNENV_ACTIVATED", or the deciding file's path
  Door door = Door::activate;  // Origin::activation: which door set CUDNNENV_ACTIVATED (CUDNNENV_ACTIVATED_BY)
  // Origin::environment in a shell with the integration loaded (CUDNNENV_SHELL):
  // CUDNNENV_VERSION is what its `cudnnenv use` sets.
  bool by_use = false;
  std::string spec;                    // the spec (or path) as written there
  std::optional<ProjectFile> project;  // the project file, when it decided
  std::optional<Profile> profile;      // the profile the project file named, if it did
  // The project's cudnnenv.lock, when the tree is the build it locks (select/lock.hpp).
  std::optional<std::filesystem::path> lock;
  // The CUDA runtime that lock names for this platform: the runtime tree beside the cuDNN is the one installed
  // from that manifest (its source SHA-256), unless the command line or the project file names one.
  std::optional<LockedRuntime> locked_runtime;
  // The NCCL and TensorRT trees that lock names for this platform: the tree of
  // such a row the project file names is the one installed from that file.
  std::vector<LockedTree> locked_trees;
  // Set when the nearest project file has [env] but is not trusted: its
  // variables were dropped (project->env is empty), and this says why and
  // what to do. Activation shows it as a warning; the selection stands.
  std::optional<Error> withheld_env;
  // What the deciding project file says but cudnnenv ignores (unknown keys),
  // as `file:line:col` lines; shown as warnings by every command.
  std::vector<std::string> warnings;
  // The trees selected beside `tree`, at most one of each other component,
  // in the component table's order (store/component.hpp), each with what
  // chose it ("--cuda 11.8", "the CUDA major of '9.19.0.56-cuda13'", ...).
  // The CUDA runtime tree, when the store has one that fits: the one named
  // (--runtime, `runtime =` in the deciding project file, a full release
  // given to --cuda; absent: an error), the one the shell's activation put
  // on the list (CUDNNENV_CUDA_RUNTIME, with CUDNNENV_ACTIVATED), the release
  // the selection names (--cuda, `cuda =` in the project file: that release
  // only, a warning when none is installed; a profile's CUDA: that release,
  // else its major), else the newest of the tree's CUDA major. None: the
  // program finds its CUDA libraries as it would without cudnnenv.
  struct Beside {
    TreeRecord tree;
    std::string reason;
  };
  std::vector<Beside> beside;

  // beside's tree of `kind` (`tree` itself for cuDNN), or null.
  const TreeRecord* tree_of(TreeKind kind) const;
  const TreeRecord* runtime() const { return tree_of(TreeKind::cuda); }
  // What chose beside's tree of `kind` (the runtime's); empty without one.
  std::string reason_of(TreeKind kind) const;
  std::string runtime_reason() const { return reason_of(TreeKind::cuda); }
  // `tree`, then beside's: the order of the loader's list (pinned_trees).
  std::vector<const TreeRecord*> trees() const;
  // beside's trees alone.
  std::vector<TreeRecord> beside_trees() const;
};

struct SelectionRequest {
  std::optional<std::string> cudnn;  // --cudnn
  std::optional<std::string> cuda;   // --cuda: a CUDA version, or a full release (13.0.2: also the runtime)
  util::Environment environment;
  std::filesystem::path working_directory;
  std::optional<std::string> runtime;  // --runtime: a runtime tree's name or release
  // --nccl, ...: the tree of a row beside cuDNN other than the runtime, by its name or release.
  std::map<TreeKind, std::string> components;
};

// What a spec names, as every command takes it (#11: one matcher): a version
// spec (8.1, 8.9.7+cuda11.8, `cuda` for --cuda) or a tree's name, the newest
// installed tree that fits; else a profile's name (tf2.5), the newest
// installed tree that runs it, with the profile. Fails with exit code 3 when
// nothing fits, 2 for a malformed spec.
struct Choice {
  TreeRecord tree;
  std::optional<Profile> profile;
  std::vector<std::string> warnings;  // a profile run by a tree other than its tested pair
};
Result<Choice> choose_tree(const Store& store, const std::string& text, const std::optional<std::string>& cuda,
                           RecordPart part = RecordPart::identity);

// "no installed cuDNN runs TensorFlow 2.5 (cuDNN 8.1 or a newer 8.x, CUDA 11.2)": the one spelling.
Error no_tree_for(const Profile& profile);

// Fails with exit code 3 when nothing is selected or the selection matches
// no tree; a malformed or untrusted project file is an error, never skipped.
Result<Selection> resolve_selection(const Store& store, const SelectionRequest& request);

// Whether `error` (of resolve_selection) says that nothing names a cuDNN
// here at all, rather than that what is named is missing or malformed.
bool is_nothing_selected(const Error& error);

// "set by --cudnn", "set by /p/.cudnnenv.toml", "set by CUDNNENV_VERSION",
// "set by the cudnn module ('module load') in this shell", ...
std::string describe_origin(const Selection& selection);

// The config.toml files that apply to this user, the one that wins last: for
// a user of a shared store (a state folder of their own) the store's own
// (<root>/.cudnnenv/config.toml), then theirs; else theirs alone.
std::vector<std::filesystem::path> config_files(const Store& store);
// What those files say together (read_effective_config).
Result<EffectiveConfig> effective_config(const Store& store);

// A tree that lives in `folder` without being registered (a trusted `path = ...`).
Result<TreeRecord> tree_from_folder(const std::filesystem::path& folder);

// What selects `tree` now, each as words for `remove`'s warning: the
// selection of `here` (its working folder) and the global default; for a tree
// beside cuDNN (a CUDA runtime tree) also each profile whose cuDNN is
// installed and that would run with it (`install tf2.5` installs such a pair).
std::vector<std::string> selecting_tree(const Store& store, const TreeRecord& tree, const SelectionRequest& here);

}  // namespace cudnnenv
