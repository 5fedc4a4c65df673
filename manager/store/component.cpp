#include "store/component.hpp"

#include "components.inc"
#include "store/layout.hpp"
#include "store/runtime.hpp"

namespace cudnnenv {

std::span<const ComponentRow> components() {
  static const ComponentRow rows[] = {
      {TreeKind::cudnn, "cuDNN", "the tree's library folder", CUDNNENV_PIN_VARIABLE_CUDNN, "CUDNNENV_ACTIVE",
       [](std::string_view file_name, Os os) { return is_cudnn_library_name(std::string(file_name), os); }},
      {TreeKind::cuda, "CUDA runtime", "the runtime's library folder", CUDNNENV_PIN_VARIABLE_RUNTIME,
       "CUDNNENV_CUDA_RUNTIME",
       [](std::string_view file_name, Os os) { return is_runtime_library_name(file_name, os); }},
  };
  return rows;
}

const ComponentRow& component(TreeKind kind) {
  for (const auto& row : components()) {
    if (row.kind == kind) return row;
  }
  return components().front();  // unreachable: every TreeKind has a row (test_component)
}

std::vector<const TreeRecord*> pinned_trees(const TreeRecord& cudnn, const TreeRecord* runtime) {
  std::vector<const TreeRecord*> trees{&cudnn};
  if (runtime) trees.push_back(runtime);
  return trees;
}

}  // namespace cudnnenv
