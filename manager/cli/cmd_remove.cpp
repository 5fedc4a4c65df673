#include <cstdio>
#include <iostream>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "integrate/cdi.hpp"
#include "pin/launch.hpp"
#include "select/resolve.hpp"
#include "store/component.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace {

struct RemoveArguments {
  std::string spec;
  bool yes = false;
};

Result<int> run_remove(const RemoveArguments& arguments, const Context& context) {
  Store& store = context.store();
  CUDNNENV_TRY_ASSIGN(tree, store.find(arguments.spec));
  // An adopted tree's files stay where they are; one adopted from split
  // wheels is a store folder of links to them, which goes.
  const bool adopted = tree->location || tree->source.kind == "adopted";
  // Before any warning or question: a store this user cannot write has nothing to confirm
  // (the user's own trees over a shared store are in the user's).
  if (!tree->personal) CUDNNENV_TRY(store.check_writable((adopted ? "forget '" : "remove '") + tree->name + "'"));
  std::string what = adopted ? "forget adopted tree '" + tree->name + "' (its files in " +
                                   (tree->location ? util::to_utf8(tree->root) : tree->source.path) + " stay)"
                             : "delete '" + tree->name + "' (" + util::human_size(tree->total_size()) + " in " +
                                   util::to_utf8(tree->root) + ")";
  if (const auto selected = selecting_tree(store, *tree, context.request()); !selected.empty()) {
    std::string by;
    for (const auto& each : selected) by += (by.empty() ? "" : "; ") + each;
    const std::string warning = tree->kind != TreeKind::cudnn
                                    ? "'" + tree->name + "' is the " + std::string(component(tree->kind).noun) +
                                          " selected " + by + ": programs started with those then find their " +
                                          std::string(component(tree->kind).short_noun) +
                                          " libraries as they would without cudnnenv, unless another " +
                                          std::string(component(tree->kind).noun) + " tree fits them"
                                    : "'" + tree->name + "' is selected (" + by +
                                          "): that selection will match no tree until 'cudnnenv use' names another";
    if (arguments.yes) {
      log_warning(warning);
    } else {
      what = warning + "\n" + what;
    }
  }
  if (!arguments.yes) {
    print_prompt(what + "? [y/N] ");
    std::string answer;
    if (!std::getline(std::cin, answer)) {
      return make_error("no answer to the confirmation", "pass --yes to remove without asking", ExitCode::usage);
    }
    if (util::to_lower(util::trim(answer)) != "y" && util::to_lower(util::trim(answer)) != "yes") {
      print_diagnostic("nothing removed\n");
      return 1;
    }
  }
  const std::filesystem::path mounted = util::final_path(tree->root);  // as export cdi recorded it
  CUDNNENV_TRY(store.remove(*tree));
  print(std::string(adopted ? "forgot '" : "removed '") + tree->name + "'\n");
  if (host_platform().os == Os::linux) {
    const SelectSpec select = [&](const std::string& spec) { return resolve_selection(store, context.request(spec)); };
    print_cdi_refreshes(refresh_cdi_specs(mounted, tree->name, select, audit_module_beside(util::installed_program())));
  }
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
