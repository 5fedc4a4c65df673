#include "select/targets.hpp"

#include <system_error>

#include "store/component.hpp"
#include "store/spec.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

Result<std::vector<TreeRecord>> trees_named(const Store& store, const std::string& target, bool all,
                                            const std::function<Result<Selection>()>& here,
                                            std::vector<std::string>& warnings) {
  if (all) {
    const Listing listing = store.list();
    auto trees = listing.trees;
    trees.insert(trees.end(), listing.beside.begin(), listing.beside.end());
    if (trees.empty()) {
      return make_error("the store is empty", install_suggestion(), ExitCode::not_found);
    }
    return trees;
  }
  if (target.empty()) {
    // The selection here: its tree, and the trees selected beside it (the CUDA runtime's, NCCL's).
    CUDNNENV_TRY_ASSIGN(selection, here());
    std::vector<TreeRecord> trees;
    for (const TreeRecord* each : selection->trees()) {
      auto full = store.full_record(*each);
      trees.push_back(full ? *full : *each);
    }
    return trees;
  }
  // A tree of a row beside cuDNN (a runtime, NCCL): its name (whatever it is), or cuda-<release>, nccl-<release>;
  // Store::find is the one lookup by name.
  if (auto beside = store.find(target); beside && beside->kind != TreeKind::cudnn) {
    auto full = store.full_record(*beside);
    return std::vector<TreeRecord>{full ? *full : *beside};
  }
  // A path is a folder to verify (it must exist); a bare word is a spec, a tree's or a
  // profile's name first, and a folder of that name only when nothing in the store is one.
  const bool looks_like_path = target.find('/') != std::string::npos || target.find('\\') != std::string::npos ||
                               target == "." || target == "..";
  std::error_code ec;
  if (looks_like_path && !fs::exists(util::path_from_utf8(target), ec)) {
    return make_error("the folder '" + target + "' does not exist", "give a tree's folder, or a spec such as 9.1",
                      ExitCode::not_found);
  }
  if (!looks_like_path) {
    if (auto choice = choose_tree(store, target, std::nullopt, RecordPart::everything)) {
      return std::vector<TreeRecord>{choice->tree};
    }
  }
  if (fs::is_directory(util::path_from_utf8(target), ec)) {
    CUDNNENV_TRY_ASSIGN(tree, tree_from_folder(fs::canonical(util::path_from_utf8(target), ec)));
    return std::vector<TreeRecord>{*tree};
  }
  CUDNNENV_TRY_ASSIGN(choice, choose_tree(store, target, std::nullopt, RecordPart::everything));
  warnings.insert(warnings.end(), choice->warnings.begin(), choice->warnings.end());
  return std::vector<TreeRecord>{choice->tree};
}

}  // namespace

Result<std::vector<VerifyTarget>> verify_targets(const Store& store, const std::string& target, bool all,
                                                 const std::function<Result<Selection>()>& here,
                                                 std::vector<std::string>& warnings) {
  // The selection here, asked once: with no target, its tree is checked (or
  // its error said); with --all too, the selected tree keeps its runtime.
  std::optional<Result<Selection>> here_result;
  if (target.empty()) here_result = here();
  CUDNNENV_TRY_ASSIGN(trees, trees_named(
                                 store, target, all, [&] { return *here_result; }, warnings));
  std::optional<Selection> selected;
  if (here_result && *here_result) selected = **here_result;
  const auto runtimes = store.list(RecordPart::identity).runtimes();
  std::vector<VerifyTarget> result;
  for (auto& tree : *trees) {
    std::optional<TreeRecord> runtime;
    bool in_store = false;  // not a folder given by path
    if (tree.kind == TreeKind::cudnn) {
      const auto found = store.find(tree.name);
      in_store = found && util::same_file(found->root, tree.root);
    }
    if (in_store && selected && selected->tree.name == tree.name) {
      if (selected->runtime()) runtime = *selected->runtime();
    } else if (in_store) {
      runtime = paired_tree(TreeKind::cuda, tree, runtimes);
    }
    result.push_back({std::move(tree), std::move(runtime)});
  }
  return result;
}

}  // namespace cudnnenv
