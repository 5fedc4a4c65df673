#include "store/component.hpp"

#include <algorithm>

#include "components.inc"
#include "store/layout.hpp"

namespace cudnnenv {

// cuDNN's row: its trees are Store::install's and adopt's.
bool is_cudnn_library(std::string_view file_name, Os os) {
  return is_cudnn_library_name(std::string(file_name), os);
}
const ComponentTrees* trees_of_cudnn() {
  return nullptr;
}

std::span<const ComponentRow> components() {
#define CUDNNENV_ROW(kind, noun, short_noun, json_key, folder_words, pin_variable, active_variable, every_name)     \
  {TreeKind::kind,   noun, short_noun, json_key, folder_words, pin_variable, active_variable, &is_##kind##_library, \
   trees_of_##kind()},
  static const ComponentRow rows[] = {CUDNNENV_COMPONENTS(CUDNNENV_ROW)};
#undef CUDNNENV_ROW
  return rows;
}

const ComponentRow& component(TreeKind kind) {
  for (const auto& row : components()) {
    if (row.kind == kind) return row;
  }
  return components().front();  // unreachable: every TreeKind has a row (test_component)
}

std::ptrdiff_t component_order(TreeKind kind) {
  return &component(kind) - components().data();
}

std::optional<TreeRecord> paired_tree(TreeKind kind, const TreeRecord& cudnn, const std::vector<TreeRecord>& trees) {
  const ComponentTrees* of_kind = component(kind).trees;
  return of_kind ? of_kind->paired_with(cudnn, trees) : std::nullopt;
}

std::vector<const TreeRecord*> pinned_trees(const TreeRecord& cudnn, const std::vector<TreeRecord>& beside) {
  std::vector<const TreeRecord*> trees{&cudnn};
  for (const auto& tree : beside) trees.push_back(&tree);
  std::stable_sort(trees.begin(), trees.end(), [&](const TreeRecord* a, const TreeRecord* b) {
    return component_order(a->kind) < component_order(b->kind);
  });
  return trees;
}

}  // namespace cudnnenv
