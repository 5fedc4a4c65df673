// What activating a selection sets: the tree's library folder first on the
// loader's list, the CUDA toolkit's bin when found, CUDA_PATH, the CUDNN_*
// variables, CUDNNENV_ACTIVE, a profile's and the project's variables; as
// data (shell::Activation), rendered per shell by shell/.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "discover/toolkits.hpp"
#include "formats/version.hpp"
#include "select/resolve.hpp"
#include "shell/activation.hpp"
#include "shell/modulefile.hpp"
#include "store/tree.hpp"
#include "util/environment.hpp"

namespace cudnnenv {

// What activating `tree` with `cuda`'s toolkit and the `extra` variables
// changes; with the trees `beside` it (Selection::beside: a CUDA runtime
// tree), each one's library folder after the tree's on the loader's list,
// in the component table's order, and its active variable (CUDNNENV_CUDA_RUNTIME).
shell::Activation activation_for(const TreeRecord& tree, const std::optional<CudaVersion>& cuda,
                                 const std::vector<std::pair<std::string, std::string>>& extra,
                                 const util::Environment& environment, const std::vector<TreeRecord>& beside = {});

// The variables a selection sets besides the tree's own: the profile's, then
// the trusted project file's [env]. Activation, exec and the shims set them.
std::vector<std::pair<std::string, std::string>> selection_variables(const Selection& selection);

// The CUDA toolkit activation puts on PATH for `selection` (its profile's
// CUDA, else the tree's; find_toolkit), when this machine has one. exec and
// the shims' slow path put it there too, after the trees' folders.
std::optional<std::filesystem::path> selection_toolkit(const Selection& selection,
                                                       const util::Environment& environment);

// The activation of what `selection` chose, with the profile's CUDA and
// variables and the project's [env].
shell::Activation activation_of(const Selection& selection, const util::Environment& environment);

// What a door that activates `selection` records beside it, so that current
// names the door and resolving again (a nested exec) takes the same trees:
// CUDNNENV_ACTIVATED (a profile by its name, else the tree's) and
// CUDNNENV_ACTIVATED_BY. `cudnnenv activate` and Slurm's task prolog add it.
void mark_activated(shell::Activation& activation, const Selection& selection, Door door);

// A modulefile (Lmod Lua or Tcl) that does what activating `tree` (with
// the trees `beside` it: its CUDA runtime tree) does, family "cudnn", with
// whatis and help text. Errors: a value no modulefile can hold.
Result<std::string> modulefile_for(const TreeRecord& tree, shell::ModuleFormat format,
                                   const util::Environment& environment, const std::vector<TreeRecord>& beside = {});

// The module's version, `cudnn/<this>`: the tree's cuDNN version, with its
// CUDA ("8.9.7.29-cuda12") when another of `trees` has the same version.
std::string module_version(const TreeRecord& tree, const std::vector<TreeRecord>& trees);

}  // namespace cudnnenv
