// Which trees a command that checks trees takes (`verify`): the rules for a
// target, apart from the command line that gives it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "select/resolve.hpp"
#include "store/store.hpp"
#include "util/result.hpp"

namespace cudnnenv {

// A tree to check, with the CUDA runtime tree it runs with: for a cuDNN tree
// of the store, the selection's when it is the selected tree, else the newest
// runtime of its CUDA major, as a selection of it would choose.
struct VerifyTarget {
  TreeRecord tree;
  std::optional<TreeRecord> runtime;
};

// The trees `target` names: with `all`, every tree and runtime of the store
// (an empty store: an error); an empty target, the selection here (`here`,
// called once, only then; with `all`, for the selected tree's runtime) and
// its runtime; a runtime tree's name; a path, the
// folder (it must exist); a bare word, a spec or a tree's or profile's name,
// and a folder of that name only when nothing in the store is one. What
// choosing said goes to `warnings`.
Result<std::vector<VerifyTarget>> verify_targets(const Store& store, const std::string& target, bool all,
                                                 const std::function<Result<Selection>()>& here,
                                                 std::vector<std::string>& warnings);

}  // namespace cudnnenv
