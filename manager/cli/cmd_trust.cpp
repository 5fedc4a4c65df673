#include <filesystem>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "select/project.hpp"
#include "select/trust.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

struct TrustArguments {
  std::string directory;
};

Result<fs::path> project_file_in(const TrustArguments& arguments) {
  std::error_code ec;
  const fs::path directory =
      arguments.directory.empty() ? fs::current_path(ec) : util::path_from_utf8(arguments.directory);
  const fs::path file = fs::absolute(directory, ec) / k_project_file_name;
  if (!fs::is_regular_file(file, ec)) {
    return make_error("no " + std::string(k_project_file_name) + " in '" + util::to_utf8(directory) + "'",
                      "run it in the folder that holds the file", ExitCode::not_found);
  }
  return file;
}

Result<int> run_trust(const TrustArguments& arguments, const Context& context) {
  CUDNNENV_TRY_ASSIGN(file, project_file_in(arguments));
  // Read once: the text that parsed is the text whose hash is trusted.
  CUDNNENV_TRY_ASSIGN(content, util::read_file(*file, k_max_settings_file));
  auto project = parse_project_file(*content, *file);  // never trust what does not parse
  if (!project) {
    return std::move(project).error();
  }
  CUDNNENV_TRY(TrustStore(context.store().state().trust()).trust(*file, *content));
  print("trusted " + util::to_utf8(*file) + (project->path ? " (path = '" + *project->path + "')" : std::string()) +
        "; editing it will need 'cudnnenv trust' again\n");
  return 0;
}

Result<int> run_untrust(const TrustArguments& arguments, const Context& context) {
  CUDNNENV_TRY_ASSIGN(file, project_file_in(arguments));
  CUDNNENV_TRY(TrustStore(context.store().state().trust()).untrust(*file));
  print("no longer trusted: " + util::to_utf8(*file) + "\n");
  return 0;
}

void register_trust_command(CLI::App& app, Context& context, const char* name, const char* description,
                            Result<int> (*run)(const TrustArguments&, const Context&)) {
  auto arguments = std::make_shared<TrustArguments>();
  CLI::App* command = app.add_subcommand(name, description);
  command->add_option("directory", arguments->directory, "the folder holding .cudnnenv.toml (default: here)");
  command->callback(
      [arguments, &context, run] { context.action = [arguments, &context, run] { return run(*arguments, context); }; });
}

}  // namespace

void register_trust(CLI::App& app, Context& context) {
  register_trust_command(app, context, "trust",
                         "allow this folder's .cudnnenv.toml to point outside the store (as it is now)", run_trust);
}

void register_untrust(CLI::App& app, Context& context) {
  register_trust_command(app, context, "untrust", "withdraw 'cudnnenv trust' for this folder's .cudnnenv.toml",
                         run_untrust);
}

}  // namespace cudnnenv::cli
