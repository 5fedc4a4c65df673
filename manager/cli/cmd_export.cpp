// cudnnenv export modulefile|conda|jupyter|launcher|vscode|terminal: the
// store's trees for the tools people already use (Lmod, conda, Jupyter, IDEs, terminals).
#include <filesystem>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "integrate/cdi.hpp"
#include "integrate/conda.hpp"
#include "integrate/kernelspec.hpp"
#include "integrate/launcher.hpp"
#include "integrate/modulefile.hpp"
#include "integrate/terminal.hpp"
#include "pin/launch.hpp"
#include "pin/shims.hpp"
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
  const auto listing = context.store().list();
  std::vector<ModuleTree> modules;
  if (arguments.all) {
    modules = store_modules(listing);
    if (modules.empty()) {
      return make_error("the store '" + util::to_utf8(context.store().root()) + "' has no tree",
                        "install one first: cudnnenv install 8.1 --cuda 11.2", ExitCode::not_found);
    }
  } else {
    CUDNNENV_TRY_ASSIGN(selection, context.selection(context.request(arguments.spec)));
    modules.push_back({selection->tree, selection->beside_trees()});
  }
  CUDNNENV_TRY_ASSIGN(changes, write_modulefiles(util::path_from_utf8(arguments.output), format, modules, listing.trees,
                                                 context.environment, arguments.all));
  print_changes(*changes);
  return 0;
}

struct CondaArguments {
  std::string spec;
  std::string prefix;
  bool remove = false;
};

Result<int> run_conda(const CondaArguments& arguments, const Context& context) {
  CUDNNENV_TRY_ASSIGN(
      prefix,
      conda_env(!arguments.prefix.empty() ? arguments.prefix : context.environment.get("CONDA_PREFIX").value_or("")));
  const std::string program = util::to_utf8(util::current_executable());
  const std::string root = util::to_utf8(context.store().root());
  if (arguments.remove) {
    const FileChanges removed = remove_conda_hooks(*prefix, program, root);
    print_changes(removed);
    if (removed.empty()) print_note("no hook of cudnnenv in " + util::to_utf8(*prefix / "etc" / "conda"));
    return 0;
  }
  if (arguments.spec.empty()) {
    return make_error("which tree should the env activate?",
                      "cudnnenv export conda 8.1 (a version, a tree or a profile)", ExitCode::usage);
  }
  // The spec must name a tree now; the hooks keep the spec, so a newer tree that fits takes over.
  CUDNNENV_TRY_ASSIGN(selection, context.selection(context.request(arguments.spec)));
  std::optional<std::string> batch_line;
  if (host_platform().os == Os::windows) {
    if (!util::plain_for_batch(root) || !util::plain_for_batch(arguments.spec)) {
      print_note("no cmd hook: the store '" + root + "' or the spec '" + arguments.spec +
                 "' holds a letter a batch file cannot carry in every code page; the other shells' hooks are written");
    } else {
      CUDNNENV_TRY_ASSIGN(line, context.program_batch_line(*prefix / "etc" / "conda" / "activate.d", "_CUDNNENV_EXE"));
      batch_line = *line;
    }
  }
  CUDNNENV_TRY_ASSIGN(changes, write_conda_hooks(*prefix, program, root, arguments.spec, batch_line));
  print_changes(*changes);
  print_note("'conda activate' of this env now activates '" + arguments.spec + "' (today the tree '" +
             selection->tree.name + "'); 'conda deactivate' takes it out");
  return 0;
}

// Where a Python is never taken from: the shims (one would start itself).
std::vector<fs::path> python_skip(const Context& context) {
  return {context.store().state().shims()};
}

// What a command line named beside the tree: --runtime, --nccl, ...
BesideNames named_beside(const std::string& runtime, const std::map<TreeKind, std::string>& components) {
  BesideNames named = components;
  if (!runtime.empty()) named[TreeKind::cuda] = runtime;
  return named;
}

struct JupyterArguments {
  std::string spec;
  std::string runtime;
  std::map<TreeKind, std::string> components;  // --nccl, ...
  std::string name;
  std::string display_name;
  std::string python;
  std::string prefix;
  bool user = false;
  bool remove = false;
};

// `cudnnenv export jupyter`: a kernelspec whose every start goes through
// `cudnnenv exec --cudnn TREE` (integrate/kernelspec.hpp).
Result<int> run_jupyter(const JupyterArguments& arguments, const Context& context) {
  if (arguments.user && !arguments.prefix.empty()) {
    return make_error("--user and --prefix name two places", "give one", ExitCode::usage);
  }
  const Os os = host_platform().os;
  const std::optional<fs::path> prefix =
      arguments.prefix.empty() ? std::nullopt : std::optional(fs::absolute(util::path_from_utf8(arguments.prefix)));
  CUDNNENV_TRY_ASSIGN(folder, kernels_folder(context.environment, os, prefix));
  if (!arguments.name.empty() && !is_valid_kernel_name(arguments.name)) {
    return make_error("'" + util::printable(arguments.name) + "' cannot be a kernel name",
                      "Jupyter takes letters, digits, '.', '_' and '-'", ExitCode::usage);
  }
  if (arguments.remove) {
    if (arguments.name.empty() && arguments.spec.empty()) {
      return make_error("which kernel should go?", "cudnnenv export jupyter --remove --name cudnnenv-9.19.0-cuda13",
                        ExitCode::usage);
    }
    std::string name = arguments.name;
    if (name.empty()) {
      CUDNNENV_TRY_ASSIGN(selection, context.selection(context.request(arguments.spec)));
      name = default_kernel_name(selection->tree.name);
    }
    CUDNNENV_TRY_ASSIGN(removed, remove_kernel(*folder, prefix, name));
    print_changes({*removed});
    return 0;
  }
  if (arguments.spec.empty()) {
    return make_error("which tree should the kernel load?",
                      "cudnnenv export jupyter 9.19 (a version, a tree's name or a profile)", ExitCode::usage);
  }
  CUDNNENV_TRY_ASSIGN(selection,
                      context.selection(context.request(arguments.spec, {}, arguments.runtime, arguments.components)));
  const Pin pin = pin_of(*selection, named_beside(arguments.runtime, arguments.components));
  CUDNNENV_TRY_ASSIGN(python, arguments.python.empty()
                                  ? python_with_ipykernel(context.environment, python_skip(context))
                                  : find_python(arguments.python, context.environment, python_skip(context),
                                                "the Python that has ipykernel"));
  CUDNNENV_TRY_ASSIGN(
      spec, pinned_kernel(*selection, pin, util::current_executable(), util::to_utf8(context.store().root()), *python,
                          arguments.name, arguments.display_name));
  CUDNNENV_TRY_ASSIGN(written, write_kernel(*folder, prefix, *spec));
  print_changes({*written});
  print_note("each start of the kernel runs 'cudnnenv exec " + pin_flags(pin) + " -- " +
             util::command_word(util::to_utf8(*python)) + " -m ipykernel_launcher'; that Python needs ipykernel");
  return 0;
}

struct LauncherArguments {
  std::string spec;
  std::string runtime;
  std::map<TreeKind, std::string> components;  // --nccl, ...
  std::string python;
  std::string folder = ".";  // export vscode: the workspace
};

// The launcher for the spec's selection (integrate/launcher.hpp).
Result<fs::path> write_launcher(const LauncherArguments& arguments, const Context& context, Pin& pin) {
  CUDNNENV_TRY_ASSIGN(selection,
                      context.selection(context.request(arguments.spec, {}, arguments.runtime, arguments.components)));
  CUDNNENV_TRY_ASSIGN(python, find_python(arguments.python, context.environment, python_skip(context),
                                          "the Python the IDE should run"));
  return write_launcher(*selection, *python, named_beside(arguments.runtime, arguments.components),
                        shim_paths(context.store()), context.store().state(), pin);
}

Result<int> run_launcher(const LauncherArguments& arguments, const Context& context) {
  Pin pin;
  CUDNNENV_TRY_ASSIGN(launcher, write_launcher(arguments, context, pin));
  print(util::to_utf8(*launcher) + "\n");
  print_note("every start of it is 'cudnnenv exec " + pin_flags(pin) +
             " -- PYTHON': give it as the interpreter (PyCharm: Add Interpreter, System Interpreter, this path)");
  return 0;
}

// `cudnnenv export vscode`: the workspace's .vscode/settings.json, merged:
// the interpreter is the launcher, the integrated terminals select the tree.
Result<int> run_vscode(const LauncherArguments& arguments, const Context& context) {
  const fs::path workspace = util::path_from_utf8(arguments.folder);
  CUDNNENV_TRY(check_vscode_settings(workspace));  // a refusal changes nothing
  Pin pin;
  CUDNNENV_TRY_ASSIGN(launcher, write_launcher(arguments, context, pin));
  // The terminals select what the launcher pins (its runtime: not yet).
  CUDNNENV_TRY_ASSIGN(written, write_vscode_settings(workspace, *launcher, pin.spec));
  print_changes({*written});
  return 0;
}

struct TerminalArguments {
  std::string spec;
  std::string name;
  std::string display_name;
  std::string shell = "cmd";
  bool shortcut = false;
  bool remove = false;
};

// Where Windows Terminal reads this user's fragments of cudnnenv:
// %LOCALAPPDATA%\Microsoft\Windows Terminal\Fragments\cudnnenv.
Result<fs::path> fragments_folder(const Context& context) {
  const auto local = context.environment.get("LOCALAPPDATA");
  if (!local || local->empty() || !util::path_from_utf8(*local).is_absolute()) {
    return make_error("LOCALAPPDATA is not set to a folder, and Windows Terminal's fragments are under it",
                      "run this from a user's own session (Explorer, cmd, PowerShell)");
  }
  return util::path_from_utf8(*local) / "Microsoft" / "Windows Terminal" / "Fragments" / "cudnnenv";
}

// `cudnnenv export terminal`: a terminal opened already activated, offered by
// Windows Terminal (a fragment) and, with --shortcut, the Start menu.
Result<int> run_terminal(const TerminalArguments& arguments, const Context& context) {
  if (host_platform().os != Os::windows) {
    return make_error(
        "export terminal writes Windows Terminal profiles and Start-menu shortcuts, which are Windows's",
        "here every new shell is activated by its integration: eval \"$(cudnnenv init bash)\" in ~/.bashrc "
        "('cudnnenv init --help' for zsh and fish), then 'cudnnenv use --global 9.19' or a project's .cudnnenv.toml",
        ExitCode::usage);
  }
  if (!arguments.name.empty() && !is_valid_kernel_name(arguments.name)) {
    return make_error("'" + util::printable(arguments.name) + "' cannot be a terminal's name",
                      "give letters, digits, '.', '_' and '-'", ExitCode::usage);
  }
  const bool powershell = arguments.shell == "powershell";
  const auto default_name = [&](const std::string& what) {
    return default_kernel_name(what) + (powershell ? "-powershell" : "");
  };
  CUDNNENV_TRY_ASSIGN(fragments, fragments_folder(context));
  const Store& store = context.store();
  if (arguments.remove) {
    if (arguments.name.empty() && arguments.spec.empty()) {
      return make_error("which terminal should go?",
                        "cudnnenv export terminal --remove --name cudnnenv-8.9.7.29-cuda12", ExitCode::usage);
    }
    std::string name = arguments.name;
    if (name.empty()) {
      CUDNNENV_TRY_ASSIGN(selection, context.selection(context.request(arguments.spec)));
      name = default_name(selection->profile ? selection->profile->name : selection->tree.name);
    }
    CUDNNENV_TRY_ASSIGN(removed, remove_terminal(store.state().terminal(name), *fragments));
    print_changes(*removed);
    return 0;
  }
  if (arguments.spec.empty()) {
    return make_error("which tree should the terminal activate?",
                      "cudnnenv export terminal 8.9 (a version, a tree's name or a profile)", ExitCode::usage);
  }
  CUDNNENV_TRY_ASSIGN(selection, context.selection(context.request(arguments.spec)));
  TerminalExport terminal;
  // A profile stays a profile (its variables come with it); else the tree, by name.
  terminal.what = selection->profile ? selection->profile->name : selection->tree.name;
  terminal.name = arguments.name.empty() ? default_name(terminal.what) : arguments.name;
  terminal.display_name =
      !arguments.display_name.empty()
          ? arguments.display_name
          : "cuDNN " + selection->tree.version.str() +
                (selection->runtime() ? ", CUDA " + selection->runtime()->version.str() + " runtime" : std::string()) +
                " (cudnnenv '" + terminal.what + "'" + (powershell ? ", PowerShell" : "") + ")";
  if (!util::is_valid_utf8(terminal.display_name)) {
    return make_error("the display name is not UTF-8 text", "give --display-name in UTF-8", ExitCode::usage);
  }
  terminal.shell = powershell ? TerminalShell::powershell : TerminalShell::cmd;
  terminal.folder = store.state().terminal(terminal.name);
  terminal.fragments = *fragments;
  terminal.program = util::to_utf8(util::current_executable());
  terminal.root = util::to_utf8(store.root());
  if (!powershell) {
    CUDNNENV_TRY_ASSIGN(program_line, context.program_batch_line(terminal.folder, "_CUDNNENV_EXE"));
    CUDNNENV_TRY_ASSIGN(root_line, context.folder_batch_line(store.root(), terminal.folder, "_CUDNNENV_ROOT"));
    terminal.program_line = *program_line;
    terminal.root_line = *root_line;
  }
  terminal.shortcut = arguments.shortcut;
  terminal.user_profile = util::path_from_utf8(context.environment.get("USERPROFILE").value_or(""));
  std::string command_line;
  CUDNNENV_TRY_ASSIGN(written, write_terminal(terminal, command_line));
  print_changes(*written);
  print_note("it opens " + std::string(powershell ? "PowerShell" : "cmd") + " with '" + terminal.what +
             "' activated: " + command_line);
  return 0;
}

struct CdiArguments {
  std::vector<std::string> specs;
  bool all = false;
  std::string output = "/etc/cdi";
};

Result<int> run_cdi(const CdiArguments& arguments, const Context& context) {
  if (host_platform().os != Os::linux) {
    return make_error("CDI devices are for Linux containers", "run 'cudnnenv export cdi' on the Linux host",
                      ExitCode::usage);
  }
  if (arguments.all == !arguments.specs.empty()) {
    return make_error("give trees or profiles, or --all", "cudnnenv export cdi --all -o /etc/cdi", ExitCode::usage);
  }
  const SelectSpec select = [&context](const std::string& spec) { return context.selection(context.request(spec)); };
  CUDNNENV_TRY_ASSIGN(devices, cdi_devices(context.store(), arguments.specs, arguments.all, select, context.warner()));
  CUDNNENV_TRY_ASSIGN(text, cdi_spec(*devices, audit_module_beside(util::installed_program())));
  CUDNNENV_TRY_ASSIGN(changes, write_cdi_spec(util::path_from_utf8(arguments.output), *text));
  print_changes(*changes);
  std::vector<std::string> names;
  for (const auto& device : *devices) names.push_back(device.name);
  print("devices: " + util::join(names, ", ") + "\n");
  print_note("note: podman run --device " + std::string(k_cdi_kind) + "=" + devices->front().name +
             " IMAGE ...; 'cudnnenv remove' writes this spec again when a tree it mounts goes, and 'cudnnenv doctor' "
             "checks it");
  return 0;
}

}  // namespace

void register_export(CLI::App& app, Context& context) {
  CLI::App* command = app.add_subcommand(
      "export", "the store's trees as modulefiles, conda hooks, Jupyter kernels, IDE launchers and terminals");
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

  auto cdi = std::make_shared<CdiArguments>();
  CLI::App* cdi_command = command->add_subcommand(
      "cdi", "a CDI spec (podman, containerd, Docker, CRI-O): a device per tree and profile, pinned in the container");
  cdi_command->add_option("specs", cdi->specs, "trees or profiles to export (each a device)");
  cdi_command->add_flag("--all", cdi->all, "every tree of the store and every profile one runs");
  cdi_command->add_option("-o,--output", cdi->output, "the folder CDI reads (default: /etc/cdi; also /var/run/cdi)");
  cdi_command->footer(
      "A device bind-mounts its trees read-only at /opt/cudnnenv/<tree> and the audit module, and sets\n"
      "CUDNNENV_PIN_DIR, CUDNNENV_RUNTIME_DIR and LD_AUDIT: a glibc program in the container loads exactly\n"
      "that tree. It sets no LD_LIBRARY_PATH (a CDI variable replaces the image's own). musl images ignore\n"
      "LD_AUDIT. Export again after installing or removing trees.\n"
      "\n"
      "Examples:\n"
      "  sudo cudnnenv export cdi --all\n"
      "  podman run --device cudnnenv.dev/cudnn=9.19.0.56-cuda13 IMAGE python train.py\n"
      "  podman run --device cudnnenv.dev/cudnn=tf2.5 IMAGE python train.py     the profile's runtime too");
  cdi_command->callback([cdi, &context] { context.action = [cdi, &context] { return run_cdi(*cdi, context); }; });

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

  auto jupyter = std::make_shared<JupyterArguments>();
  CLI::App* jupyter_command = command->add_subcommand(
      "jupyter", "a Jupyter kernel (kernel.json) whose every start runs Python through 'cudnnenv exec --cudnn TREE'");
  jupyter_command->add_option("spec", jupyter->spec, "the tree: a version, a tree's name or a profile (tf2.5)");
  jupyter_command->add_option("--runtime", jupyter->runtime,
                              "the CUDA runtime tree, by name or release (default: the tree's rule)");
  add_component_options(*jupyter_command, jupyter->components, "to pin (default: its rule)");
  jupyter_command->add_option("--name", jupyter->name, "the kernel's name (default: cudnnenv-<tree>)");
  jupyter_command->add_option("--display-name", jupyter->display_name,
                              "what the kernel picker shows (default: Python 3 (cuDNN <version>, ...))");
  jupyter_command->add_option("--python", jupyter->python,
                              "the Python with ipykernel (default: python3, else python, on PATH)");
  jupyter_command->add_flag("--user", jupyter->user, "this user's kernels folder (the default)");
  jupyter_command->add_option("--prefix", jupyter->prefix,
                              "an environment's folder: PREFIX/share/jupyter/kernels (a venv, a conda env)");
  jupyter_command->add_flag("--remove", jupyter->remove, "delete the kernel cudnnenv wrote, and nothing else");
  jupyter_command->footer(
      "Examples:\n"
      "  cudnnenv export jupyter 9.19                      kernel 'cudnnenv-9.19.0.56-cuda13' for this user\n"
      "  cudnnenv export jupyter tf2.5 --python ~/venvs/tf/bin/python --prefix ~/venvs/tf\n"
      "  jupyter kernelspec list                           shows it; pick it in Jupyter or VS Code\n"
      "  cudnnenv export jupyter --remove --name cudnnenv-9.19.0.56-cuda13");
  jupyter_command->callback(
      [jupyter, &context] { context.action = [jupyter, &context] { return run_jupyter(*jupyter, context); }; });

  auto launcher = std::make_shared<LauncherArguments>();
  CLI::App* launcher_command = command->add_subcommand(
      "launcher", "print a python launcher pinned to a tree, for an IDE's interpreter setting (PyCharm)");
  launcher_command->add_option("spec", launcher->spec, "the tree: a version, a tree's name or a profile")->required();
  launcher_command->add_option("--python", launcher->python, "the Python it starts (default: python3 on PATH)");
  launcher_command->add_option("--runtime", launcher->runtime,
                               "the CUDA runtime tree, by name or release (default: the tree's rule)");
  add_component_options(*launcher_command, launcher->components, "to pin (default: its rule)");
  launcher_command->footer("Example:\n  cudnnenv export launcher 9.19 --python ~/venvs/torch/bin/python");
  launcher_command->callback(
      [launcher, &context] { context.action = [launcher, &context] { return run_launcher(*launcher, context); }; });

  auto vscode = std::make_shared<LauncherArguments>();
  CLI::App* vscode_command = command->add_subcommand(
      "vscode",
      "a VS Code workspace's interpreter pinned to a tree, and its terminals selecting it (.vscode/settings.json)");
  vscode_command->add_option("spec", vscode->spec, "the tree: a version, a tree's name or a profile")->required();
  vscode_command->add_option("--python", vscode->python, "the Python it starts (default: python3 on PATH)");
  vscode_command->add_option("--folder", vscode->folder, "the workspace folder (default: here)");
  vscode_command->footer(
      "Example:\n  cudnnenv export vscode tf2.5 --python .venv/bin/python   then reload the window\n"
      "Every other key of settings.json is kept; a file with comments is left as it is.");
  vscode_command->callback(
      [vscode, &context] { context.action = [vscode, &context] { return run_vscode(*vscode, context); }; });

  auto terminal = std::make_shared<TerminalArguments>();
  CLI::App* terminal_command = command->add_subcommand(
      "terminal",
      "Windows: a Windows Terminal profile (and a Start-menu shortcut) opening cmd or PowerShell already activated");
  terminal_command->add_option("spec", terminal->spec, "the tree: a version, a tree's name or a profile (tf2.5)");
  terminal_command->add_option("--shell", terminal->shell, "cmd (the default) or powershell")
      ->check(CLI::IsMember({"cmd", "powershell"}));
  terminal_command->add_option("--name", terminal->name,
                               "the terminal's name (default: cudnnenv-<tree>, with -powershell for PowerShell)");
  terminal_command->add_option("--display-name", terminal->display_name,
                               "what the new-tab menu shows (default: cuDNN <version> (cudnnenv '<tree>'))");
  terminal_command->add_flag("--shortcut", terminal->shortcut, "also a shortcut in the Start menu's cudnnenv folder");
  terminal_command->add_flag("--remove", terminal->remove,
                             "delete the terminal: its script, fragment and shortcuts, and nothing else");
  terminal_command->footer(
      "Examples:\n"
      "  cudnnenv export terminal tf2.5 --shortcut       'cuDNN 8.1.1 (cudnnenv 'tf2.5')' in Windows Terminal's "
      "new-tab\n"
      "                                                  menu and the Start menu, like Anaconda Prompt\n"
      "  cudnnenv export terminal 8.9 --shell powershell\n"
      "  cudnnenv export terminal --remove --name cudnnenv-tf2.5");
  terminal_command->callback(
      [terminal, &context] { context.action = [terminal, &context] { return run_terminal(*terminal, context); }; });
}

}  // namespace cudnnenv::cli
