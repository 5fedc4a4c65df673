// cudnnenv export modulefile|conda: the store's trees for the tools clusters
// and data scientists already use (Lmod / Environment Modules, conda envs).
#include <filesystem>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "select/activation.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

struct ModulefileArguments {
  std::string spec;
  bool all = false;
  std::string format = "lua";
  std::string output = ".";
};

Result<int> run_modulefile(const ModulefileArguments& arguments, const Context& context) {
  if (arguments.all == !arguments.spec.empty()) {
    return make_error("give one tree (a spec) or --all", "cudnnenv export modulefile 8.1 -o DIR, or --all -o DIR",
                      ExitCode::usage);
  }
  const auto format = arguments.format == "tcl" ? shell::ModuleFormat::tcl : shell::ModuleFormat::lua;
  const auto trees = context.store().list().trees;
  std::vector<TreeRecord> chosen;
  if (arguments.all) {
    chosen = trees;
    if (chosen.empty()) {
      return make_error("the store '" + util::to_utf8(context.store().root()) + "' has no tree",
                        "install one first: cudnnenv install 8.1 --cuda 11.2", ExitCode::not_found);
    }
  } else {
    CUDNNENV_TRY_ASSIGN(selection, context.selection(context.request(arguments.spec)));
    chosen.push_back(selection->tree);
  }
  const fs::path folder = util::path_from_utf8(arguments.output) / "cudnn";
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) {
    return make_error("cannot create '" + util::to_utf8(folder) + "': " + ec.message(),
                      "give a writable folder with -o (a folder on the cluster's MODULEPATH)");
  }
  for (const auto& tree : chosen) {
    CUDNNENV_TRY_ASSIGN(text, modulefile_for(tree, format, context.environment));
    const std::string version = module_version(tree, trees);
    const fs::path file = folder / util::path_from_utf8(version + (format == shell::ModuleFormat::lua ? ".lua" : ""));
    CUDNNENV_TRY(util::write_file_atomic(file, *text));
    print("wrote " + util::to_utf8(file) + " (module load cudnn/" + version + ": '" + tree.name + "')\n");
  }
  return 0;
}

}  // namespace

void register_export(CLI::App& app, Context& context) {
  CLI::App* command =
      app.add_subcommand("export", "the store's trees as Lmod / Environment Modules modulefiles and conda env hooks");
  command->require_subcommand(1);

  auto modulefile = std::make_shared<ModulefileArguments>();
  CLI::App* sub = command->add_subcommand(
      "modulefile", "write DIR/cudnn/<version>.lua (or Tcl) for a tree or every tree: module load cudnn/<version>");
  sub->add_option("spec", modulefile->spec, "the tree (a version, a name or a profile)");
  sub->add_flag("--all", modulefile->all, "every tree in the store");
  sub->add_option("--format", modulefile->format, "lua (Lmod, the default) or tcl (Environment Modules, and Lmod)")
      ->check(CLI::IsMember({"lua", "tcl"}));
  sub->add_option("-o,--output", modulefile->output, "the folder on MODULEPATH to write into (default: here)");
  sub->footer(
      "Examples:\n"
      "  cudnnenv export modulefile --all -o /opt/modulefiles         an admin, for every tree of a shared store\n"
      "  cudnnenv export modulefile 8.9 --format tcl -o ~/modulefiles\n"
      "  module use /opt/modulefiles && module load cudnn/8.9.7.29");
  sub->callback([modulefile, &context] {
    context.action = [modulefile, &context] { return run_modulefile(*modulefile, context); };
  });
}

}  // namespace cudnnenv::cli
