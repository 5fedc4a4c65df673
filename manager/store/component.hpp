// The components a selection pins, as one table: cuDNN and the CUDA runtime.
// A row says which trees are the component's (TreeKind), which library names
// are its, how a message names its folder, the variable that names that
// folder to the pin (the audit module on Linux, the launch on Windows) and
// the one that names its active tree. A selection's trees (pinned_trees)
// come in the table's order, the order of the loader's list: cuDNN's folder
// first, the runtime's right after. activation_for and plan_launch render
// every row alike; how a selection picks each tree is select/resolve's
// (resolve_runtime for the runtime). ARCHITECTURE.md, "A new component",
// lists the files a third one (NCCL) touches.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/platform.hpp"
#include "store/tree.hpp"

namespace cudnnenv {

struct ComponentRow {
  TreeKind kind;
  std::string_view noun;             // "cuDNN", "CUDA runtime"
  std::string_view folder_words;     // "the tree's library folder": how a message names it
  std::string_view pin_variable;     // the folder its library names are sent to (shim/components.inc)
  std::string_view active_variable;  // the active tree's name, for shells and programs
  bool (*library_name)(std::string_view file_name, Os os);  // whether a file of that name is one of its libraries
};

// In the loader list's order.
std::span<const ComponentRow> components();
const ComponentRow& component(TreeKind kind);

// A selection's trees in the table's order: `cudnn`, then those beside it
// (the CUDA runtime's, when one is selected).
std::vector<const TreeRecord*> pinned_trees(const TreeRecord& cudnn, const std::vector<TreeRecord>& beside);

}  // namespace cudnnenv
