#include "cli/context.hpp"
#include "cli/output.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace {

struct AdoptArguments {
  std::string directory;
  std::string name;
  bool json = false;
};

Result<int> run_adopt(const AdoptArguments& arguments, const Context& context) {
  AdoptOptions options;
  if (!arguments.name.empty()) {
    options.name = arguments.name;
  }
  options.probe = context.probe();
  options.warn = context.warner();
  CUDNNENV_TRY_ASSIGN(record, context.store().adopt(util::path_from_utf8(arguments.directory), options));
  if (arguments.json) {
    print_json(tree_to_json(*record));
    return 0;
  }
  print("adopted '" + record->name + "': cuDNN " + record->version.str() +
        (record->cuda ? ", CUDA " + record->cuda->str() : std::string()) + ", files stay in " +
        util::to_utf8(record->root) + "\n");
  print("  library: " + util::to_utf8(record->library_path()) + "\n");
  return 0;
}

}  // namespace

void register_adopt(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<AdoptArguments>();
  CLI::App* command = app.add_subcommand(
      "adopt", "register a cuDNN tree that stays where it is (CUDA toolkit folder, site-packages, system folder)");
  command->add_option("directory", arguments->directory, "the folder holding the cuDNN libraries")->required();
  command->add_option("--name", arguments->name,
                      "the name to list it under (default: version and CUDA, as install names trees)");
  command->add_flag("--json", arguments->json, "print the result as JSON");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_adopt(*arguments, context); }; });
}

}  // namespace cudnnenv::cli
