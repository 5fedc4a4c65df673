// Lmod and Environment Modules: `export modulefile` writes a modulefile per
// tree, cudnn/<version>, that does what activating the tree does
// (select/activation's modulefile_for). With the whole store (--all) the
// folder holds exactly the store's set: a file an earlier --all wrote for a
// tree now gone, or now named otherwise, is removed.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "integrate/change.hpp"
#include "shell/modulefile.hpp"
#include "store/store.hpp"
#include "util/environment.hpp"

namespace cudnnenv {

// A module: a cuDNN tree and the trees it loads with (Selection::beside: its runtime).
struct ModuleTree {
  TreeRecord tree;
  std::vector<TreeRecord> beside;
};

// Every cuDNN tree of the store, each with the newest runtime of its CUDA major.
std::vector<ModuleTree> store_modules(const Listing& listing);

// Writes `modules` into `output`/cudnn/ in `format`, named by module_version
// among `all_trees`. `whole_store`: `modules` is the store's set, and a file
// of this format that cudnnenv wrote for a module not in it goes. Fails
// before writing when two trees would share one module name.
Result<FileChanges> write_modulefiles(const std::filesystem::path& output, shell::ModuleFormat format,
                                      const std::vector<ModuleTree>& modules, const std::vector<TreeRecord>& all_trees,
                                      const util::Environment& environment, bool whole_store);

}  // namespace cudnnenv
