#include <filesystem>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "integrate/change.hpp"
#include "shell/init.hpp"
#include "util/console.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

struct InitArguments {
  std::string shell;
  bool autorun = false;
};

// What `init cmd --autorun` adds to AutoRun, and `deinit cmd` removes.
std::string autorun_part(const std::string& init_bat) {
  return "if exist \"" + init_bat + "\" call \"" + init_bat + "\"";
}

Result<int> run_init_cmd(const InitArguments& arguments, const Context& context) {
  const Store& store = context.store();
  const fs::path folder = store.state().cmd_scripts();
  CUDNNENV_TRY_ASSIGN(program_line, context.program_batch_line(folder, "_CUDNNENV_EXE"));
  const auto files = shell::cmd_integration(*program_line);
  CUDNNENV_TRY(write_files(folder, {{"init.bat", files.init_bat}, {"cudnnenv.bat", files.cudnnenv_bat}}));
  const std::string init_bat = util::to_utf8(folder / "init.bat");
  if (!arguments.autorun) {
    print("wrote " + init_bat + " (it defines the doskey macro: cudnnenv=\"" + util::to_utf8(folder / "cudnnenv.bat") +
          "\" $*)\nload it in this cmd:  call \"" + init_bat +
          "\"\nload it in every cmd:  cudnnenv init cmd --autorun   (adds it to HKCU\\Software\\Microsoft\\Command "
          "Processor\\AutoRun; 'cudnnenv deinit cmd' takes it out)\n");
    return 0;
  }
  CUDNNENV_TRY_ASSIGN(autorun, util::read_cmd_autorun());
  const std::string updated = shell::autorun_with(*autorun, autorun_part(init_bat));
  if (updated != *autorun) {
    CUDNNENV_TRY(util::write_cmd_autorun(updated));
  }
  print("cmd's AutoRun runs " + init_bat + (updated == *autorun ? " (it already did)\n" : "\n"));
  return 0;
}

Result<int> run_deinit(const InitArguments& arguments, const Context& context) {
  if (arguments.shell != "cmd") {
    return make_error("only cmd's integration is written anywhere by cudnnenv",
                      "for " + arguments.shell + ", remove the init line from its profile", ExitCode::usage);
  }
  const std::string init_bat = util::to_utf8(context.store().state().cmd_scripts() / "init.bat");
  CUDNNENV_TRY_ASSIGN(autorun, util::read_cmd_autorun());
  const std::string updated = shell::autorun_without(*autorun, autorun_part(init_bat));
  if (updated == *autorun) {
    print("cmd's AutoRun does not run cudnnenv's init.bat: nothing to do\n");
    return 0;
  }
  CUDNNENV_TRY(util::write_cmd_autorun(updated));
  print("removed cudnnenv from cmd's AutoRun" + std::string(updated.empty() ? " (now empty)" : "") + "\n");
  return 0;
}

Result<int> run_init(const InitArguments& arguments, const Context& context) {
  if (arguments.shell == "cmd") {
    return run_init_cmd(arguments, context);
  }
  if (arguments.autorun) {
    return make_error("--autorun is for cmd", "for " + arguments.shell + ", add the init line to its profile",
                      ExitCode::usage);
  }
  auto shell = shell::parse_shell(arguments.shell);
  if (!shell) {
    return make_error("'" + arguments.shell + "' is not a shell cudnnenv knows", "use " + shell::shell_choices(),
                      ExitCode::usage);
  }
  const std::string shims = util::to_utf8(context.store().state().shims());
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
  // Tab completion comes with the integration (no second process at each shell start).
  print_script(*script + shell::completion_script(*shell, util::to_utf8(util::current_executable())).value_or(""));
  return 0;
}

}  // namespace

void register_init(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<InitArguments>();
  CLI::App* command =
      app.add_subcommand("init",
                         "print the shell integration: 'use' changes the shell, the shims go first on PATH, and the "
                         "selection follows .cudnnenv.toml as you cd");
  command->add_option("shell", arguments->shell, shell::shell_choices())->required();
  command->add_flag("--autorun", arguments->autorun, "cmd: load the integration in every cmd (edits AutoRun, once)");
  command->footer("Add one line to your shell's profile:\n  " + shell::init_line(shell::Shell::bash) + "\n  " +
                  shell::init_line(shell::Shell::zsh) + "\n  " + shell::init_line(shell::Shell::fish) + "\n  " +
                  shell::init_line(shell::Shell::powershell) + "\n  " + shell::init_line(shell::Shell::cmd));
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_init(*arguments, context); }; });

  auto off = std::make_shared<InitArguments>();
  CLI::App* deinit = app.add_subcommand("deinit", "take out what 'init cmd --autorun' added to cmd's AutoRun, exactly");
  deinit->add_option("shell", off->shell, "cmd")->required();
  deinit->callback([off, &context] { context.action = [off, &context] { return run_deinit(*off, context); }; });
}

}  // namespace cudnnenv::cli
