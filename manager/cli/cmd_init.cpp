#include "cli/context.hpp"
#include "cli/output.hpp"
#include "shell/init.hpp"
#include "util/console.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace {

struct InitArguments {
  std::string shell;
};

Result<int> run_init(const InitArguments& arguments, const Context& context) {
  auto shell = shell::parse_shell(arguments.shell);
  if (!shell) {
    return make_error("'" + arguments.shell + "' is not a shell cudnnenv knows", "use bash, zsh, fish or powershell",
                      ExitCode::usage);
  }
  const std::string shims = util::to_utf8(context.store().state_directory() / "shims");
  auto script = shell::init_script(*shell, util::to_utf8(util::current_executable()), shims);
  if (!script) {
    return make_error("no integration for " + arguments.shell + " yet",
                      "activate with: cudnnenv activate SPEC --shell " + arguments.shell);
  }
  if (*shell == shell::Shell::powershell) {
    // A profile is a script: under Restricted or AllSigned it does not run.
    if (auto policy = util::powershell_execution_policy();
        policy && (util::iequals(policy->value, "Restricted") || util::iequals(policy->value, "AllSigned"))) {
      log_warning("PowerShell's execution policy is " + policy->value + " (" + policy->scope +
                  "): it will not run your $PROFILE, so this integration would not load; allow local scripts with: "
                  "Set-ExecutionPolicy -Scope CurrentUser RemoteSigned");
    }
  }
  print(*script);
  return 0;
}

}  // namespace

void register_init(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<InitArguments>();
  CLI::App* command = app.add_subcommand(
      "init", "print the shell integration: 'use' changes the shell, the shims go first on PATH, and the "
              "selection follows .cudnnenv.toml as you cd");
  command->add_option("shell", arguments->shell, "bash, zsh, fish or powershell")->required();
  command->footer("Add one line to your shell's profile:\n  " + shell::init_line(shell::Shell::bash) + "\n  " +
                  shell::init_line(shell::Shell::zsh) + "\n  " + shell::init_line(shell::Shell::fish) + "\n  " +
                  shell::init_line(shell::Shell::powershell));
  command->callback([arguments, &context] {
    context.action = [arguments, &context] { return run_init(*arguments, context); };
  });
}

}  // namespace cudnnenv::cli
