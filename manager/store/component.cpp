#include "store/component.hpp"

#include <algorithm>

#include "components.inc"
#include "store/layout.hpp"
#include "store/runtime.hpp"

namespace cudnnenv {

namespace {

// Each kind's library names (a row's library_name): is_<kind>_library.
bool is_cudnn_library(std::string_view file_name, Os os) {
  return is_cudnn_library_name(std::string(file_name), os);
}
bool is_cuda_library(std::string_view file_name, Os os) {
  return is_runtime_library_name(file_name, os);
}

}  // namespace

std::span<const ComponentRow> components() {
#define CUDNNENV_ROW(kind, noun, folder_words, pin_variable, active_variable, every_name) \
  {TreeKind::kind, noun, folder_words, pin_variable, active_variable, &is_##kind##_library},
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

std::vector<const TreeRecord*> pinned_trees(const TreeRecord& cudnn, const std::vector<TreeRecord>& beside) {
  std::vector<const TreeRecord*> trees{&cudnn};
  for (const auto& tree : beside) trees.push_back(&tree);
  const auto rank = [](const TreeRecord* tree) { return &component(tree->kind) - components().data(); };
  std::stable_sort(trees.begin(), trees.end(),
                   [&](const TreeRecord* a, const TreeRecord* b) { return rank(a) < rank(b); });
  return trees;
}

}  // namespace cudnnenv
