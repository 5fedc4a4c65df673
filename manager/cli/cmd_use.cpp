#include <filesystem>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "select/project.hpp"
#include "select/resolve.hpp"
#include "shell/quote.hpp"
#include "store/spec.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

struct UseArguments {
  std::string spec;
  std::string cuda;
  bool local = false;
  bool global = false;
};

Result<int> run_use(const UseArguments& arguments, const Context& context) {
  if (arguments.local && arguments.global) {
    return make_error("--local and --global exclude each other", "pick one", ExitCode::usage);
  }
  const Store store = context.store();
  // Refuse what matches nothing now, rather than at the next launch.
  CUDNNENV_TRY_ASSIGN(choice,
                      choose_tree(store, arguments.spec,
                                  arguments.cuda.empty() ? std::nullopt : std::optional<std::string>(arguments.cuda)));
  for (const auto& warning : choice->warnings) log_warning(warning);
  const TreeRecord* tree = &choice->tree;
  const std::string chosen = tree->name + " (cuDNN " + tree->version.str() + ")";

  if (arguments.global) {
    const fs::path file = store.state_directory() / "config.toml";
    std::vector<std::pair<std::string, std::string>> settings = {{"default", arguments.spec}};
    if (!arguments.cuda.empty()) {
      settings[0].second = arguments.spec + "+cuda" + arguments.cuda;
    }
    CUDNNENV_TRY(write_settings(file, settings, TomlFileKind::config));
    // On stderr: with the shell integration loaded, stdout is evaluated.
    print_note("global default: " + settings[0].second + " -> " + chosen);
    return 0;
  }
  if (arguments.local) {
    std::error_code ec;
    const fs::path file = fs::current_path(ec) / k_project_file_name;
    std::vector<std::pair<std::string, std::string>> settings = {{"cudnn", arguments.spec}};
    if (!arguments.cuda.empty()) {
      settings.emplace_back("cuda", arguments.cuda);
    }
    CUDNNENV_TRY(write_settings(file, settings, TomlFileKind::project));
    print_note("wrote " + util::to_utf8(file) + ": cudnn = " + toml_quote(arguments.spec) + " -> " + chosen);
    return 0;
  }

  // For this shell: the hook (cudnnenv init SHELL) sets CUDNNENV_SHELL and
  // evaluates what this prints.
  const std::string value = arguments.cuda.empty() ? arguments.spec : arguments.spec + "+cuda" + arguments.cuda;
  if (auto name = context.environment.get("CUDNNENV_SHELL")) {
    if (auto shell = shell::parse_shell(*name)) {
      print(shell::set_variable(*shell, "CUDNNENV_VERSION", value) + "\n");
      return 0;
    }
  }
  const bool windows = host_platform().os == Os::windows;
  const std::string line =
      windows ? shell::set_variable(shell::Shell::cmd, "CUDNNENV_VERSION", value) +
                    "   (PowerShell: " + shell::set_variable(shell::Shell::powershell, "CUDNNENV_VERSION", value) + ")"
              : shell::set_variable(shell::Shell::bash, "CUDNNENV_VERSION", value) +
                    "   (fish: " + shell::set_variable(shell::Shell::fish, "CUDNNENV_VERSION", value) + ")";
  return make_error("'cudnnenv use' changes this shell only through the shell integration, which is not loaded here",
                    "load it (" + std::string(windows ? "cudnnenv init cmd" : "eval \"$(cudnnenv init bash)\"") +
                        ", see 'cudnnenv init --help'), or run: " + line + "; or use --local / --global");
}

}  // namespace

void register_use(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<UseArguments>();
  CLI::App* command = app.add_subcommand(
      "use",
      "select a cuDNN for this shell (with 'cudnnenv init' loaded), this project (--local) or everywhere (--global)");
  command->add_option("spec", arguments->spec, "8, 8.1, 8.1.0.77, 8.9.7+cuda11.8, or a tree name")->required();
  command->add_option("--cuda", arguments->cuda, "CUDA version the tree must be built for (11.8, 12)");
  command->add_flag("--local", arguments->local,
                    "write cudnn = \"SPEC\" into ./.cudnnenv.toml, keeping its other lines");
  command->add_flag("--global", arguments->global, "set the default in <root>/.cudnnenv/config.toml");
  command->footer(
      "Examples:\n"
      "  cudnnenv use 8.9                 this shell (with 'cudnnenv init' loaded; else it prints the line to run)\n"
      "  cudnnenv use 8.1 --local         this project: writes .cudnnenv.toml here\n"
      "  cudnnenv use tf2.5 --local       the tree TensorFlow 2.5 was tested with\n"
      "  cudnnenv use 9 --global          the default everywhere else\n"
      "  cudnnenv current                 what is selected here, and what decided it");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_use(*arguments, context); }; });
}

}  // namespace cudnnenv::cli
