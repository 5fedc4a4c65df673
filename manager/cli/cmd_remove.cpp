#include <cstdio>
#include <iostream>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace {

struct RemoveArguments {
  std::string spec;
  bool yes = false;
};

Result<int> run_remove(const RemoveArguments& arguments, const Context& context) {
  Store store = context.store();
  CUDNNENV_TRY_ASSIGN(tree, store.find(arguments.spec));
  const std::string what =
      tree->location ? "forget adopted tree '" + tree->name + "' (its files in " + util::to_utf8(tree->root) + " stay)"
                     : "delete '" + tree->name + "' (" + util::human_size(tree->total_size()) + " in " +
                           util::to_utf8(tree->root) + ")";
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
