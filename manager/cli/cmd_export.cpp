// cudnnenv export modulefile|conda: the store's trees for the tools clusters
// and data scientists already use (Lmod / Environment Modules, conda envs).
#include <filesystem>
#include <set>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "select/activation.hpp"
#include "shell/init.hpp"
#include "store/runtime.hpp"
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
  const auto listing = context.store().list();
  const auto& trees = listing.trees;
  // Each tree with the CUDA runtime tree it is selected with: the spec's
  // selection, or for --all the newest runtime of the tree's CUDA major.
  std::vector<std::pair<TreeRecord, std::optional<TreeRecord>>> chosen;
  if (arguments.all) {
    for (const auto& tree : trees) {
      chosen.emplace_back(tree,
                          tree.cuda ? choose_runtime(listing.runtimes, std::nullopt, tree.cuda->major) : std::nullopt);
    }
    if (chosen.empty()) {
      return make_error("the store '" + util::to_utf8(context.store().root()) + "' has no tree",
                        "install one first: cudnnenv install 8.1 --cuda 11.2", ExitCode::not_found);
    }
  } else {
    CUDNNENV_TRY_ASSIGN(selection, context.selection(context.request(arguments.spec)));
    chosen.emplace_back(selection->tree, selection->runtime);
  }
  const fs::path folder = util::path_from_utf8(arguments.output) / "cudnn";
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) {
    return make_error("cannot create '" + util::to_utf8(folder) + "': " + ec.message(),
                      "give a writable folder with -o (a folder on the cluster's MODULEPATH)");
  }
  std::set<std::string> written;
  for (const auto& [tree, runtime] : chosen) {
    CUDNNENV_TRY_ASSIGN(text, modulefile_for(tree, format, context.environment, runtime ? &*runtime : nullptr));
    const std::string version = module_version(tree, trees);
    if (!written.insert(version).second) {
      return make_error("two trees would both be module cudnn/" + version + ", and one file would replace the other",
                        "rename one (remove it and install it again with --name)");
    }
    const fs::path file = folder / util::path_from_utf8(version + (format == shell::ModuleFormat::lua ? ".lua" : ""));
    CUDNNENV_TRY(util::write_file_atomic(file, *text));
    print("wrote " + util::to_utf8(file) + " (module load cudnn/" + version + ": '" + tree.name + "'" +
          (runtime ? " with '" + runtime->name + "'" : "") + ")\n");
  }
  return 0;
}

struct CondaArguments {
  std::string spec;
  std::string prefix;
  bool remove = false;
};

bool plain_for_batch(const std::string& text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x80 || c == '"' || c == '%' || c == '!' || c == '^' || c == '&' || c == '|' ||
        c == '<' || c == '>') {
      return false;
    }
  }
  return true;
}

Result<int> run_conda(const CondaArguments& arguments, const Context& context) {
  const std::string prefix_text =
      !arguments.prefix.empty() ? arguments.prefix : context.environment.get("CONDA_PREFIX").value_or("");
  if (prefix_text.empty()) {
    return make_error("no conda env named: CONDA_PREFIX is not set", "activate the env first, or give --prefix PATH",
                      ExitCode::usage);
  }
  const fs::path prefix = util::path_from_utf8(prefix_text);
  std::error_code ec;
  if (!fs::is_directory(prefix / "conda-meta", ec)) {
    return make_error("'" + prefix_text + "' is not a conda env (it has no conda-meta folder)",
                      "give the env's folder: conda env list shows them", ExitCode::not_found);
  }
  const fs::path hooks = prefix / "etc" / "conda";
  const Store& store = context.store();
  const std::string program = util::to_utf8(util::current_executable());
  const std::string root = util::to_utf8(store.root());
  const bool windows = host_platform().os == Os::windows;
  if (arguments.remove) {
    int removed = 0;
    // Every name a hook of ours can have, deleted only when it says it is ours.
    for (const auto& file : shell::conda_hooks(program, root, "x", std::string())) {
      const fs::path path = hooks / util::path_from_utf8(file.path);
      auto text = util::read_file(path);
      if (!text || text->find(shell::k_conda_marker) == std::string::npos) continue;
      if (fs::remove(path, ec)) {
        print("removed " + util::to_utf8(path) + "\n");
        ++removed;
      }
    }
    if (removed == 0) print_note("no hook of cudnnenv in " + util::to_utf8(hooks));
    return 0;
  }
  if (arguments.spec.empty()) {
    return make_error("which tree should the env activate?",
                      "cudnnenv export conda 8.1 (a version, a tree or a profile)", ExitCode::usage);
  }
  // The spec must name a tree now; the hooks keep the spec, so a newer tree that fits takes over.
  CUDNNENV_TRY_ASSIGN(selection, context.selection(context.request(arguments.spec)));
  std::optional<std::string> batch_line;
  if (windows) {
    if (!plain_for_batch(root) || !plain_for_batch(arguments.spec)) {
      print_note("no cmd hook: the store '" + root + "' or the spec '" + arguments.spec +
                 "' holds a letter a batch file cannot carry in every code page; the other shells' hooks are written");
    } else {
      CUDNNENV_TRY_ASSIGN(line, context.program_batch_line(hooks / "activate.d", "_CUDNNENV_EXE"));
      batch_line = *line;
    }
  }
  for (const auto& file : shell::conda_hooks(program, root, arguments.spec, batch_line)) {
    const fs::path path = hooks / util::path_from_utf8(file.path);
    fs::create_directories(path.parent_path(), ec);
    CUDNNENV_TRY(util::write_file_atomic(path, file.text));
    print("wrote " + util::to_utf8(path) + "\n");
  }
  print_note("'conda activate' of this env now activates '" + arguments.spec + "' (today the tree '" +
             selection->tree.name + "'); 'conda deactivate' takes it out");
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

  auto conda = std::make_shared<CondaArguments>();
  CLI::App* conda_command = command->add_subcommand(
      "conda", "hooks in a conda env (etc/conda/activate.d, deactivate.d) that activate a tree with the env");
  conda_command->add_option("spec", conda->spec, "the tree: a version, a tree's name or a profile (tf2.5)");
  conda_command->add_option("--prefix", conda->prefix, "the env's folder (default: CONDA_PREFIX, the active env)");
  conda_command->add_flag("--remove", conda->remove, "delete the hooks cudnnenv wrote there, and nothing else");
  conda_command->footer(
      "Examples:\n"
      "  conda activate tf25 && cudnnenv export conda tf2.5    conda activate tf25 brings TensorFlow 2.5's cuDNN\n"
      "  cudnnenv export conda 8.9 --prefix ~/miniconda3/envs/torch\n"
      "  cudnnenv export conda --remove --prefix ~/miniconda3/envs/torch");
  conda_command->callback(
      [conda, &context] { context.action = [conda, &context] { return run_conda(*conda, context); }; });
}

}  // namespace cudnnenv::cli
