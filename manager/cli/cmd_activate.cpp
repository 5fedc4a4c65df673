#include <filesystem>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "select/activation.hpp"
#include "select/profile.hpp"
#include "select/resolve.hpp"
#include "shell/activation.hpp"
#include "store/spec.hpp"
#include "util/console.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

struct ActivateArguments {
  std::string spec;
  std::string shell;
  std::string runtime;
  std::map<TreeKind, std::string> components;  // --nccl, ...
  std::string by = "activate";                 // the door (k_doors): a generated script says which
};

Result<shell::Shell> shell_of(const ActivateArguments& arguments, const Context& context) {
  if (arguments.shell.empty() && context.script_shell) return *context.script_shell;
  const std::string name =
      !arguments.shell.empty() ? arguments.shell : context.environment.get("CUDNNENV_SHELL").value_or("");
  if (name.empty()) {
    return make_error("which shell?", "pass --shell bash|zsh|fish|powershell|cmd", ExitCode::usage);
  }
  auto shell = shell::parse_shell(name);
  if (!shell) {
    return make_error("'" + name + "' is not a shell cudnnenv knows", "use " + shell::shell_choices(), ExitCode::usage);
  }
  return *shell;
}

// What a cmd script may spell paths from (shell::render): the old values of
// the variables it changes (PATH's entries), _CUDNNENV_ROOT (the store's
// folder, set by cudnnenv.bat and the profiles' batch files), _CUDNNENV_PROFILE
// (the name those batch files activate, read from a folder's name: a tree's
// name in any letters, with no code page between), and variables every cmd of
// this user has.
std::vector<std::pair<std::string, std::string>> cmd_sources(const util::Environment& environment,
                                                             const std::vector<shell::Operation>& operations) {
  std::vector<std::string> names = {"_CUDNNENV_ROOT", "_CUDNNENV_PROFILE", "CUDNNENV_ROOT",
                                    "USERPROFILE",    "LOCALAPPDATA",      "APPDATA"};
  for (const auto& operation : operations) names.push_back(operation.name);
  std::vector<std::pair<std::string, std::string>> sources;
  for (const auto& name : names) {
    if (auto value = environment.get(name)) sources.emplace_back(name, *value);
  }
  return sources;
}

Result<int> print_activation_script(shell::Shell shell, const std::vector<shell::Operation>& operations,
                                    const util::Environment& environment) {
  if (auto unsafe = shell::unsafe_value(shell, operations)) {
    return make_error(*unsafe, "activate in another shell, or move the store (--root) to a plain path");
  }
  std::string script = shell::render(shell, operations, cmd_sources(environment, operations));
  if (shell == shell::Shell::cmd) {
    // cmd reads a batch file in the console's code page.
    if (auto encoded = util::encode_for_console(script)) {
      script = *encoded;
    } else {
      script = "@for /f \"tokens=2 delims=:\" %%c in ('chcp') do @set \"_CUDNNENV_CP=%%c\"\r\n@chcp 65001 >nul\r\n" +
               script + "@chcp %_CUDNNENV_CP% >nul\r\n@set \"_CUDNNENV_CP=\"\r\n";
    }
  }
  print_script(script);
  return 0;
}

enum class Manual { no, yes };

// `manual`: by `cudnnenv activate` (by hand, or from the script of the door
// `door`), which then holds in this shell (CUDNNENV_ACTIVATED takes its place
// in the precedence, CUDNNENV_ACTIVATED_BY names the door) until deactivate;
// the hook's activations do not. A profile stays named by its name, so that
// resolving it again gives the same tree, runtime and variables.
shell::Activation shell_activation(const Selection& selection, const Context& context, Manual manual, Door door) {
  shell::Activation activation = activation_of(selection, context.environment);
  if (manual == Manual::yes) mark_activated(activation, selection, door);
  return activation;
}

Result<int> apply_activation(shell::Shell shell, const shell::Activation& activation, const Context& context);

Result<int> activate_selection(shell::Shell shell, const Selection& selection, const Context& context, Door door) {
  return apply_activation(shell, shell_activation(selection, context, Manual::yes, door), context);
}

Result<int> apply_activation(shell::Shell shell, const shell::Activation& activation, const Context& context) {
  for (const auto& [list, entry] : activation.prepend) {
    if (entry.find(util::path_list_separator()) != std::string::npos) {
      return make_error(
          "'" + entry + "' has a '" + std::string(1, util::path_list_separator()) + "', which " + list + " cannot hold",
          "move the store (--root) to a path without one");
    }
  }
  return print_activation_script(shell, shell::activate(context.environment, activation, util::path_list_separator()),
                                 context.environment);
}

Result<int> run_activate(const ActivateArguments& arguments, const Context& context) {
  CUDNNENV_TRY_ASSIGN(shell, shell_of(arguments, context));
  SelectionRequest request = context.request(arguments.spec, {}, arguments.runtime, arguments.components);
  // The shell's own selections would decide nothing new: they name the tree active now.
  request.environment.unset("CUDNNENV_VERSION");
  request.environment.unset(k_activated_variable);
  CUDNNENV_TRY_ASSIGN(selection, context.selection(request));
  CUDNNENV_TRY_ASSIGN(done, activate_selection(*shell, *selection, context,
                                               util::parse_name(k_doors, arguments.by).value_or(Door::activate)));
  if (arguments.by == "activate") {
    // By hand: one line on stderr (the other doors' scripts run it at each start, quietly).
    std::string with;
    for (const auto& each : selection->beside)
      with += ", " + std::string(component(each.tree.kind).noun) + " '" + each.tree.name + "'";
    print_note("activated '" + selection->tree.name + "' (cuDNN " + selection->tree.version.str() + with +
               ") in this shell");
  }
  return *done;
}

// Before a prompt, when the folder or the shell's selection changed: the
// activation of what is selected here, nothing when it is active already,
// the deactivation when nothing is selected (and, when what is selected is
// not installed, what is missing and the command that installs it). A broken
// project file is reported and leaves the shell as it is; a prompt never fails.
Result<int> run_hook(const ActivateArguments& arguments, const Context& context) {
  CUDNNENV_TRY_ASSIGN(shell, shell_of(arguments, context));
  SelectionRequest request = context.request();
  auto selection = context.selection(request);
  if (!selection) {
    if (selection.error().code != ExitCode::not_found) {
      print_error(selection.error());
      const auto active = context.environment.get("CUDNNENV_ACTIVE");
      print_note(active ? "this shell keeps '" + *active + "' active until that is fixed"
                        : std::string("nothing is activated until that is fixed"));
      return 0;
    }
    // Something here names a tree that is not installed (a project's spec, its lock, a global default):
    // said once, when the hook looks (a new folder, a changed file), with the command that installs it.
    if (!is_nothing_selected(selection.error())) {
      print_note("missing here: " + selection.error().message +
                 (selection.error().hint.empty() ? std::string() : "\n  hint: " + selection.error().hint));
    }
    return print_activation_script(*shell, shell::deactivate(context.environment, util::path_list_separator()),
                                   context.environment);
  }
  // Nothing to do when activating again would change nothing: the same tree,
  // and the same variables from the project's [env] and the profile.
  const Manual manual = selection->origin == Origin::activation ? Manual::yes : Manual::no;
  const shell::Activation activation = shell_activation(*selection, context, manual, selection->door);
  if (shell::is_applied(context.environment, activation, util::path_list_separator())) {
    return 0;
  }
  return apply_activation(*shell, activation, context);
}

// Undoes the activation and this shell's `use` (CUDNNENV_VERSION), and says
// what is still selected here: the project file or the global default, which
// the integration's hook activates next.
Result<int> run_deactivate(const ActivateArguments& arguments, const Context& context) {
  CUDNNENV_TRY_ASSIGN(shell, shell_of(arguments, context));
  std::vector<shell::Operation> operations = shell::deactivate(context.environment, util::path_list_separator());
  const std::optional<std::string> active = context.environment.get("CUDNNENV_ACTIVE");
  const std::optional<std::string> used = context.environment.get("CUDNNENV_VERSION");
  if (used) operations.push_back({"CUDNNENV_VERSION", std::nullopt});
  CUDNNENV_TRY(print_activation_script(*shell, operations, context.environment));
  std::string done = active ? "deactivated '" + *active + "'" : std::string("nothing was active");
  if (used && !used->empty()) done += "; this shell's 'cudnnenv use " + *used + "' is undone";
  SelectionRequest request = context.request();
  request.environment.unset("CUDNNENV_VERSION");
  request.environment.unset(k_activated_variable);
  auto still = resolve_selection(context.store(), request);
  if (still) {
    print_note(done + "; still selected here: '" + still->tree.name + "' (" + describe_origin(*still) + ")" +
               (context.script_shell ? std::string(", which the shell integration activates now") : std::string()));
  } else if (still.error().code == ExitCode::not_found) {
    print_note(done + "; nothing else selects a cuDNN here");
  } else {
    print_note(done + "; what else selects one here cannot be read: " + still.error().message);
  }
  return 0;
}

}  // namespace

void register_activate(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<ActivateArguments>();
  CLI::App* command = app.add_subcommand(
      "activate", "print a script that activates a tree in a shell: eval \"$(cudnnenv activate 9.1 --shell bash)\"");
  command->add_option("spec", arguments->spec, "a spec or tree name (default: the current selection)");
  command->add_option("--shell", arguments->shell, shell::shell_choices() + " (default: CUDNNENV_SHELL)");
  command->add_option("--runtime", arguments->runtime, "the CUDA runtime tree to put beside it: its name or release");
  add_component_options(*command, arguments->components, "to put beside it");
  command
      ->add_option("--by", arguments->by,
                   "the door that activates, which current names: activate (default), direnv, conda, module, "
                   "profile, terminal")
      ->check(CLI::IsMember(util::names_of(k_doors)));
  command->footer(
      "bash/zsh: eval \"$(cudnnenv activate SPEC --shell bash)\"   fish: cudnnenv activate SPEC --shell fish | source\n"
      "PowerShell: cudnnenv activate SPEC --shell powershell | Out-String | Invoke-Expression\n"
      "cmd: cudnnenv activate SPEC --shell cmd > %TEMP%\\a.bat && call %TEMP%\\a.bat\n"
      "direnv (.envrc): watch_file .cudnnenv.toml cudnnenv.lock\n"
      "                 eval \"$(cudnnenv activate --shell bash --by direnv)\"\n"
      "Activating again replaces the earlier activation; 'cudnnenv deactivate' undoes it exactly.");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_activate(*arguments, context); }; });

  auto hook = std::make_shared<ActivateArguments>();
  CLI::App* hook_command = app.add_subcommand("hook", "(run by the shell integration before a prompt)");
  hook_command->group("");
  hook_command->add_option("--shell", hook->shell, "the shell");
  hook_command->callback([hook, &context] { context.action = [hook, &context] { return run_hook(*hook, context); }; });

  auto off = std::make_shared<ActivateArguments>();
  CLI::App* deactivate = app.add_subcommand(
      "deactivate", "print a script that undoes the activation: the entries it added go, the variables it set return");
  deactivate->add_option("--shell", off->shell, shell::shell_choices() + " (default: CUDNNENV_SHELL)");
  deactivate->callback([off, &context] { context.action = [off, &context] { return run_deactivate(*off, context); }; });
}

}  // namespace cudnnenv::cli
