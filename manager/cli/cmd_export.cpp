// cudnnenv export modulefile|conda|jupyter|launcher|vscode|terminal: the
// store's trees for the tools people already use (Lmod, conda, Jupyter, IDEs, terminals).
#include <algorithm>
#include <filesystem>
#include <set>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "integrate/kernelspec.hpp"
#include "integrate/launcher.hpp"
#include "integrate/terminal.hpp"
#include "pin/launch.hpp"
#include "pin/shims.hpp"
#include "select/activation.hpp"
#include "shell/init.hpp"
#include "store/runtime.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"
#include "util/shortcut.hpp"
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
  if (arguments.all) {
    // The whole store's set: a modulefile of this format that an earlier
    // --all wrote for a tree now gone or now named otherwise (a second tree
    // of its version renames both) goes, so `module avail` lists each tree once.
    const std::string marker =
        std::string(format == shell::ModuleFormat::lua ? "--" : "#") + " written by 'cudnnenv export modulefile'";
    for (const auto& entry : util::directory_entries(folder)) {
      const std::string name = util::to_utf8(entry.path.filename());
      const bool lua_name = util::ends_with(name, ".lua");
      if (!entry.is_regular_file || lua_name != (format == shell::ModuleFormat::lua)) continue;
      const std::string version = lua_name ? name.substr(0, name.size() - 4) : name;
      if (written.count(version)) continue;
      auto text = util::read_file(entry.path, k_max_settings_file);
      if (!text || text->find(marker) == std::string::npos) continue;
      std::error_code removed;
      if (fs::remove(entry.path, removed)) {
        print("removed " + util::to_utf8(entry.path) + " (no tree is module cudnn/" + version + " now)\n");
      }
    }
  }
  return 0;
}

// Refuses to write `file` through a link below `folder` (a project's own
// `.vscode`, an env's `share/jupyter/kernels/NAME`): a cloned repository's
// link would have cudnnenv read a secret file into the project, or write
// into a folder elsewhere while saying it wrote here.
Result<void> no_link_on_the_way(const fs::path& folder, const fs::path& file) {
  if (const auto link = util::link_on_the_way(folder, file)) {
    return make_error("'" + util::printable(util::to_utf8(*link)) +
                          "' is a link: cudnnenv does not read or write a file through a link there (it could "
                          "lead anywhere); nothing was written",
                      "replace the link with a plain " + std::string(*link == file ? "file" : "folder") +
                          " of your own, then run this again");
  }
  return {};
}

struct CondaArguments {
  std::string spec;
  std::string prefix;
  bool remove = false;
};

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
    if (!util::plain_for_batch(root) || !util::plain_for_batch(arguments.spec)) {
      print_note("no cmd hook: the store '" + root + "' or the spec '" + arguments.spec +
                 "' holds a letter a batch file cannot carry in every code page; the other shells' hooks are written");
    } else {
      CUDNNENV_TRY_ASSIGN(line, context.program_batch_line(hooks / "activate.d", "_CUDNNENV_EXE"));
      batch_line = *line;
    }
  }
  for (const auto& file : shell::conda_hooks(program, root, arguments.spec, batch_line)) {
    CUDNNENV_TRY(no_link_on_the_way(prefix, hooks / util::path_from_utf8(file.path)));
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

// Where a Python is never taken from: the shims (one would start itself).
std::vector<fs::path> python_skip(const Context& context) {
  return {context.store().state().shims()};
}

struct JupyterArguments {
  std::string spec;
  std::string runtime;
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
  std::error_code ec;
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
    const fs::path kernel = *folder / util::path_from_utf8(name);
    if (prefix) CUDNNENV_TRY(no_link_on_the_way(*prefix, kernel / "kernel.json"));
    auto text = util::read_file(kernel / "kernel.json", k_max_settings_file);
    if (!text) {
      return make_error("no kernel '" + name + "' in " + util::to_utf8(*folder), "'jupyter kernelspec list' lists them",
                        ExitCode::not_found);
    }
    if (!written_by_cudnnenv(*text)) {
      return make_error("the kernel '" + name + "' in " + util::to_utf8(kernel) + " was not written by cudnnenv",
                        "'jupyter kernelspec remove " + name + "' removes it");
    }
    fs::remove(kernel / "kernel.json", ec);
    if (ec) return make_error("cannot remove '" + util::to_utf8(kernel / "kernel.json") + "': " + ec.message());
    fs::remove(kernel, ec);  // only when nothing else is in it
    print("removed " + util::to_utf8(kernel / "kernel.json") + "\n");
    return 0;
  }
  if (arguments.spec.empty()) {
    return make_error("which tree should the kernel load?",
                      "cudnnenv export jupyter 9.19 (a version, a tree's name or a profile)", ExitCode::usage);
  }
  CUDNNENV_TRY_ASSIGN(selection, context.selection(context.request(arguments.spec, {}, arguments.runtime)));
  const Pin pin = pin_of(*selection, arguments.runtime);
  const Store& store = context.store();
  CUDNNENV_TRY_ASSIGN(found_python, arguments.python.empty()
                                        ? python_with_ipykernel(context.environment, python_skip(context))
                                        : find_python(arguments.python, context.environment, python_skip(context),
                                                      "the Python that has ipykernel"));
  const fs::path python = *found_python;
  const std::string root = util::to_utf8(store.root());
  if (!util::is_valid_utf8(util::to_utf8(python)) || !util::is_valid_utf8(root)) {
    return make_error("'" + util::printable(util::to_utf8(python)) + "' or the store '" + util::printable(root) +
                          "' is not UTF-8 text, which kernel.json must be",
                      "move it to a path of UTF-8 letters");
  }
  KernelSpec spec;
  spec.name = arguments.name.empty() ? default_kernel_name(selection->tree.name) : arguments.name;
  spec.tree = selection->tree.name;
  spec.runtime = selection->runtime ? selection->runtime->name : std::string();
  spec.store = root;
  spec.display_name =
      !arguments.display_name.empty()
          ? arguments.display_name
          : "Python 3 (cuDNN " + selection->tree.version.str() +
                (selection->runtime ? ", CUDA " + selection->runtime->version.str() + " runtime" : std::string()) +
                ", cudnnenv '" + selection->tree.name + "')";
  if (!util::is_valid_utf8(spec.display_name)) {
    return make_error("the display name is not UTF-8 text", "give --display-name in UTF-8", ExitCode::usage);
  }
  spec.argv = pinned_kernel_argv(util::current_executable(), root, pin.spec, pin.runtime, python);
  const fs::path kernel = *folder / util::path_from_utf8(spec.name);
  if (prefix) CUDNNENV_TRY(no_link_on_the_way(*prefix, kernel / "kernel.json"));
  if (util::entry_exists(kernel / "kernel.json")) {
    // One that cannot be read (too big, a FIFO, no permission) cannot be shown to be cudnnenv's: left alone.
    auto existing = util::read_file(kernel / "kernel.json", k_max_settings_file);
    if (!existing || !written_by_cudnnenv(*existing)) {
      return make_error("a kernel '" + spec.name + "' that cudnnenv did not write is in " + util::to_utf8(kernel) +
                            (existing ? std::string() : " (" + existing.error().message + ")"),
                        "pick another name with --name");
    }
  }
  fs::create_directories(kernel, ec);
  if (ec) return make_error("cannot create '" + util::to_utf8(kernel) + "': " + ec.message());
  CUDNNENV_TRY(util::write_file_atomic(kernel / "kernel.json", kernel_json(spec)));
  print("wrote " + util::to_utf8(kernel / "kernel.json") + " (kernel '" + spec.name + "': " + spec.display_name +
        ")\n");
  print_note("each start of the kernel runs 'cudnnenv exec " + pin_flags(pin) + " -- " +
             util::command_word(util::to_utf8(python)) + " -m ipykernel_launcher'; that Python needs ipykernel");
  return 0;
}

struct LauncherArguments {
  std::string spec;
  std::string runtime;
  std::string python;
  std::string folder = ".";  // export vscode: the workspace
};

// The launcher for the spec's selection (integrate/launcher.hpp).
Result<fs::path> write_launcher(const LauncherArguments& arguments, const Context& context, Pin& pin) {
  CUDNNENV_TRY_ASSIGN(selection, context.selection(context.request(arguments.spec, {}, arguments.runtime)));
  CUDNNENV_TRY_ASSIGN(python, find_python(arguments.python, context.environment, python_skip(context),
                                          "the Python the IDE should run"));
  return write_launcher(*selection, *python, arguments.runtime, shim_paths(context), context.store().state(), pin);
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
  const fs::path settings = workspace / ".vscode" / "settings.json";
  CUDNNENV_TRY(no_link_on_the_way(workspace, settings));
  std::string existing;
  std::error_code ec;
  if (fs::exists(settings, ec)) {
    auto text = util::read_file(settings, k_max_settings_file);
    if (!text) return make_error("cannot read '" + util::to_utf8(settings) + "': " + text.error().message);
    existing = std::move(*text);
    // Checked before the launcher is made: a refusal changes nothing.
    if (auto parsed = merged_vscode_settings(existing, "", "", host_platform().os); !parsed) {
      return make_error("'" + util::to_utf8(settings) + "' is " + parsed.error().message + ": it was left as it is",
                        "add \"python.defaultInterpreterPath\" by hand, or remove the comments and run this again");
    }
  }
  Pin pin;
  CUDNNENV_TRY_ASSIGN(launcher, write_launcher(arguments, context, pin));
  const std::string tree = pin.spec;  // the terminals select what the launcher pins (its runtime: not yet)
  CUDNNENV_TRY_ASSIGN(merged, merged_vscode_settings(existing, util::to_utf8(*launcher), tree, host_platform().os));
  fs::create_directories(settings.parent_path(), ec);
  CUDNNENV_TRY(util::write_file_atomic(settings, *merged));
  print("wrote " + util::to_utf8(settings) + " (python.defaultInterpreterPath: " + util::to_utf8(*launcher) +
        "; its terminals: CUDNNENV_VERSION=" + tree + ")\n");
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

// The script of the terminal in `folder`, when cudnnenv wrote it.
std::optional<fs::path> terminal_script(const fs::path& folder) {
  for (const char* name : {"activate.bat", "activate.ps1"}) {
    auto text = util::read_file(folder / name, k_max_settings_file);
    if (text && text->find(k_terminal_marker) != std::string::npos) return folder / name;
  }
  return std::nullopt;
}

// Deletes the shortcuts in the Start menu's cudnnenv folder that open the
// terminal in `folder` (and no other), printing each.
void remove_shortcuts_to(const fs::path& folder) {
  auto programs = util::start_menu_programs();
  if (!programs) return;
  for (const auto& entry : util::directory_entries(*programs / "cudnnenv")) {
    if (!entry.is_regular_file || entry.path.extension() != ".lnk") continue;
    auto shortcut = util::read_shortcut(entry.path);
    // The script's own folder, compared whole (NTFS: without case): 'cudnnenv-tf2' is not 'cudnnenv-tf2.5'.
    const auto script = shortcut ? script_in_terminal_arguments(shortcut->arguments) : std::nullopt;
    const bool same =
        script && util::to_lower(util::to_utf8(util::path_from_utf8(std::string(*script)).parent_path())) ==
                      util::to_lower(util::to_utf8(folder));
    std::error_code ec;
    if (same && fs::remove(entry.path, ec)) {
      print("removed " + util::to_utf8(entry.path) + "\n");
    }
  }
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
  std::error_code ec;
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
    const fs::path folder = store.state().terminal(name);
    const fs::path fragment = *fragments / (name + ".json");
    if (!terminal_script(folder)) {
      return make_error("no terminal '" + name + "' that cudnnenv wrote in " + util::to_utf8(folder.parent_path()),
                        "the names are the folders there, and the files in " + util::to_utf8(*fragments),
                        ExitCode::not_found);
    }
    if (fs::remove(fragment, ec)) print("removed " + util::to_utf8(fragment) + "\n");
    remove_shortcuts_to(folder);
    fs::remove_all(folder, ec);
    if (ec) return make_error("cannot remove '" + util::to_utf8(folder) + "': " + ec.message());
    print("removed " + util::to_utf8(folder) + "\n");
    return 0;
  }
  if (arguments.spec.empty()) {
    return make_error("which tree should the terminal activate?",
                      "cudnnenv export terminal 8.9 (a version, a tree's name or a profile)", ExitCode::usage);
  }
  CUDNNENV_TRY_ASSIGN(selection, context.selection(context.request(arguments.spec)));
  // A profile stays a profile (its variables come with it); else the tree, by name.
  const std::string what = selection->profile ? selection->profile->name : selection->tree.name;
  const std::string name = arguments.name.empty() ? default_name(what) : arguments.name;
  const std::string display_name =
      !arguments.display_name.empty()
          ? arguments.display_name
          : "cuDNN " + selection->tree.version.str() +
                (selection->runtime ? ", CUDA " + selection->runtime->version.str() + " runtime" : std::string()) +
                " (cudnnenv '" + what + "'" + (powershell ? ", PowerShell" : "") + ")";
  if (!util::is_valid_utf8(display_name)) {
    return make_error("the display name is not UTF-8 text", "give --display-name in UTF-8", ExitCode::usage);
  }
  const fs::path folder = store.state().terminal(name);
  if (fs::exists(folder, ec) && !terminal_script(folder)) {
    return make_error("'" + util::to_utf8(folder) + "' is there and cudnnenv did not write it",
                      "pick another name with --name");
  }
  const fs::path script = folder / (powershell ? "activate.ps1" : "activate.bat");
  CUDNNENV_TRY_ASSIGN(command_arguments, terminal_arguments(powershell ? TerminalShell::powershell : TerminalShell::cmd,
                                                            util::to_utf8(script)));
  // The name to activate is a folder's name (tree\NAME): cmd reads it as the
  // file system has it, whatever the console's code page.
  fs::remove_all(folder / "tree", ec);
  fs::create_directories(folder / "tree" / util::path_from_utf8(what), ec);
  if (ec) return make_error("cannot create '" + util::to_utf8(folder) + "': " + ec.message());
  const std::string root = util::to_utf8(store.root());
  const std::string about =
      std::string(k_terminal_marker) + "; 'cudnnenv export terminal --remove --name " + name + "' deletes it";
  std::string text;
  if (powershell) {
    // UTF-8 with its mark: Windows PowerShell 5 reads a file without one in the ANSI code page.
    text = "\xEF\xBB\xBF# " + about + "\r\n" +
           shell::apply_command(shell::Shell::powershell, util::to_utf8(util::current_executable()), root,
                                "activate " + shell::quote(shell::Shell::powershell, what) + " --by terminal");
  } else {
    CUDNNENV_TRY_ASSIGN(program_line, context.program_batch_line(folder, "_CUDNNENV_EXE"));
    CUDNNENV_TRY_ASSIGN(root_line, context.folder_batch_line(store.root(), folder, "_CUDNNENV_ROOT"));
    text = shell::terminal_batch(about, *program_line, *root_line);
  }
  CUDNNENV_TRY(util::write_file_atomic(script, text));
  const std::string command_line =
      terminal_program(powershell ? TerminalShell::powershell : TerminalShell::cmd) + " " + *command_arguments;
  fs::create_directories(*fragments, ec);
  const fs::path fragment = *fragments / (name + ".json");
  CUDNNENV_TRY(util::write_file_atomic(fragment, terminal_fragment_json(display_name, command_line)));
  print("wrote " + util::to_utf8(fragment) + " (Windows Terminal profile '" + display_name + "')\n");
  if (arguments.shortcut) {
    CUDNNENV_TRY_ASSIGN(programs, util::start_menu_programs());
    CUDNNENV_TRY_ASSIGN(system, util::system_folder());
    remove_shortcuts_to(folder);  // one of an earlier display name
    const fs::path menu = *programs / "cudnnenv";
    fs::create_directories(menu, ec);
    util::Shortcut shortcut;
    shortcut.target = powershell ? *system / "WindowsPowerShell" / "v1.0" / "powershell.exe" : *system / "cmd.exe";
    shortcut.arguments = *command_arguments;
    shortcut.working_directory = util::path_from_utf8(context.environment.get("USERPROFILE").value_or(""));
    shortcut.description = display_name;
    const fs::path file = menu / util::path_from_utf8(shortcut_file_name(display_name));
    CUDNNENV_TRY(util::write_shortcut(file, shortcut));
    print("wrote " + util::to_utf8(file) + " (Start menu)\n");
  }
  print_note("it opens " + std::string(powershell ? "PowerShell" : "cmd") + " with '" + what +
             "' activated: " + command_line);
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
