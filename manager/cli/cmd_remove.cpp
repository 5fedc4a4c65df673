#include <cstdio>
#include <iostream>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "select/project.hpp"
#include "select/resolve.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace {

struct RemoveArguments {
  std::string spec;
  bool yes = false;
};

// What selects `tree` now: the selection here, and the global default.
std::vector<std::string> selecting(const Store& store, const TreeRecord& tree, const Context& context) {
  std::vector<std::string> found;
  auto here = resolve_selection(store, context.request());
  if (here && here->tree.name == tree.name) found.push_back(describe_origin(*here));
  if (here && here->runtime && here->runtime->name == tree.name) {
    // A runtime tree: chosen here with the selected cuDNN tree.
    found.push_back("the CUDA runtime of '" + here->tree.name + "' here, chosen by " + here->runtime_reason);
    return found;
  }
  if (tree.kind == TreeKind::cuda) return found;
  if (here && here->origin == Origin::global_default) return found;
  if (auto config = effective_config(store); config && config->default_spec) {
    if (auto chosen = choose_tree(store, *config->default_spec, std::nullopt);
        chosen && chosen->tree.name == tree.name) {
      found.push_back("the global default in " + util::to_utf8(config->default_file));
    }
  }
  return found;
}

Result<int> run_remove(const RemoveArguments& arguments, const Context& context) {
  Store& store = context.store();
  CUDNNENV_TRY_ASSIGN(tree, store.find(arguments.spec));
  std::string what =
      tree->location ? "forget adopted tree '" + tree->name + "' (its files in " + util::to_utf8(tree->root) + " stay)"
                     : "delete '" + tree->name + "' (" + util::human_size(tree->total_size()) + " in " +
                           util::to_utf8(tree->root) + ")";
  if (const auto selected = selecting(store, *tree, context); !selected.empty()) {
    std::string by;
    for (const auto& each : selected) by += (by.empty() ? "" : "; ") + each;
    const std::string warning =
        "'" + tree->name + "' is selected (" + by + "): " +
        (tree->kind == TreeKind::cuda ? "programs started here then find their CUDA libraries as they would without "
                                        "cudnnenv, unless another runtime of that CUDA is installed"
                                      : "that selection will match no tree until 'cudnnenv use' names another");
    if (arguments.yes) {
      log_warning(warning);
    } else {
      what = warning + "\n" + what;
    }
  }
  if (!arguments.yes) {
    std::fprintf(stderr, "%s? [y/N] ", what.c_str());
    std::fflush(stderr);
    std::string answer;
    if (!std::getline(std::cin, answer)) {
      return make_error("no answer to the confirmation", "pass --yes to remove without asking", ExitCode::usage);
    }
    if (util::to_lower(util::trim(answer)) != "y" && util::to_lower(util::trim(answer)) != "yes") {
      std::fprintf(stderr, "nothing removed\n");
      return 1;
    }
  }
  CUDNNENV_TRY(store.remove(*tree));
  print(std::string(tree->location ? "forgot '" : "removed '") + tree->name + "'\n");
  return 0;
}

}  // namespace

void register_remove(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<RemoveArguments>();
  CLI::App* command = app.add_subcommand("remove", "delete a store tree, or forget an adopted one (its files stay)");
  command->add_option("spec", arguments->spec, "tree name or version (8, 8.1, 8.1.0.77)")->required();
  command->add_flag("-y,--yes", arguments->yes, "do not ask for confirmation");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_remove(*arguments, context); }; });
}

}  // namespace cudnnenv::cli
