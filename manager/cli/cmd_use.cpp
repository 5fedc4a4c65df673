#include <filesystem>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "doctor/node.hpp"
#include "select/project.hpp"
#include "select/resolve.hpp"
#include "select/trust.hpp"
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
  bool unset = false;
  std::string facts;  // refuse a tree that would not run on the node of this snapshot
};

// What `use` run outside the shell integration says: the line to run by hand.
Error needs_integration(const Context& context, const std::optional<std::string>& value) {
  const bool windows = host_platform().os == Os::windows;
  auto line_for = [&](shell::Shell shell) {
    return value ? shell::set_variable(shell, "CUDNNENV_VERSION", *value)
                 : shell::unset_variable(shell, "CUDNNENV_VERSION");
  };
  const std::string line =
      windows ? line_for(shell::Shell::cmd) + "   (PowerShell: " + line_for(shell::Shell::powershell) + ")"
              : line_for(shell::Shell::bash) + "   (fish: " + line_for(shell::Shell::fish) + ")";
  // CUDNNENV_SHELL without the integration's call: a script or a program
  // started from an integrated shell, whose own environment 'use' cannot reach.
  const bool child = context.environment.get("CUDNNENV_SHELL").has_value();
  return make_error(
      child ? "'cudnnenv use' changes a shell only when typed in it: this is a child of the shell (a script, or a "
              "program it started), whose selection would end with it"
            : "'cudnnenv use' changes this shell only through the shell integration, which is not loaded here",
      (child ? std::string("in a script, run programs with 'cudnnenv exec --cudnn SPEC -- ...'; or run: ")
             : "load it (" + std::string(windows ? "cudnnenv init cmd" : "eval \"$(cudnnenv init bash)\"") +
                   ", see 'cudnnenv init --help'), or run: ") +
          line + "; or use --local / --global");
}

// After --local or --global: what in this shell still outranks the file.
void say_what_outranks(const Context& context, const std::string& file_kind) {
  if (auto shell = context.environment.get("CUDNNENV_VERSION"); shell && !shell->empty()) {
    log_warning("this shell's 'cudnnenv use " + *shell + "' (CUDNNENV_VERSION) still wins over " + file_kind +
                " here; 'cudnnenv use --unset' follows it");
  } else if (auto activated = context.environment.get(k_activated_variable); activated && !activated->empty()) {
    log_warning("this shell's 'cudnnenv activate " + *activated + "' still wins over " + file_kind +
                " here; 'cudnnenv deactivate' follows it");
  }
}

Result<int> run_use(const UseArguments& arguments, const Context& context) {
  if (arguments.local && arguments.global) {
    return make_error("--local and --global exclude each other", "pick one", ExitCode::usage);
  }
  if (arguments.unset) {
    if (!arguments.spec.empty() || arguments.local || arguments.global || !arguments.cuda.empty()) {
      return make_error("--unset takes nothing else", "cudnnenv use --unset", ExitCode::usage);
    }
    if (!context.script_shell) return needs_integration(context, std::nullopt);
    print_script(shell::unset_variable(*context.script_shell, "CUDNNENV_VERSION") + "\n");
    if (auto shell = context.environment.get("CUDNNENV_VERSION"); shell && !shell->empty()) {
      print_note("this shell's 'cudnnenv use " + *shell + "' is undone");
    }
    return 0;
  }
  if (arguments.spec.empty()) {
    return make_error("which cuDNN?", "cudnnenv use SPEC (8.9, 9.1.0, a tree name, a profile), or --unset",
                      ExitCode::usage);
  }
  const Store& store = context.store();
  // Refuse what matches nothing now, rather than at the next launch.
  CUDNNENV_TRY_ASSIGN(choice,
                      choose_tree(store, arguments.spec,
                                  arguments.cuda.empty() ? std::nullopt : std::optional<std::string>(arguments.cuda)));
  for (const auto& warning : choice->warnings) log_warning(warning);
  const TreeRecord* tree = &choice->tree;
  const std::string chosen = tree->name + " (cuDNN " + tree->version.str() + ")";
  if (!arguments.facts.empty()) {
    // A selection made on a login node for its compute nodes: refused now when it would fail there.
    CUDNNENV_TRY_ASSIGN(node, read_node_facts_file(arguments.facts));
    if (const std::string why = fails_on_node(*tree, *node); !why.empty()) {
      return make_error("'" + tree->name + "' would fail on " + node->describe() + ": " + why,
                        "'cudnnenv install " + std::to_string(tree->version.major) + " --facts " +
                            util::command_word(arguments.facts) + " --dry-run' names one that runs there",
                        ExitCode::failure);
    }
  }

  if (arguments.global) {
    const fs::path file = store.state().config();
    std::vector<std::pair<std::string, std::string>> settings = {{"default", arguments.spec}};
    if (!arguments.cuda.empty()) {
      settings[0].second = arguments.spec + "+cuda" + arguments.cuda;
    }
    CUDNNENV_TRY(write_settings(file, settings, TomlFileKind::config));
    // On stderr: with the shell integration loaded, stdout is evaluated.
    print_note("global default: " + settings[0].second + " -> " + chosen);
    if (const auto note = context.state_elsewhere_note("this default")) {
      // A store this user cannot write (a shared one), or CUDNNENV_STATE_DIR: the default is this user's alone.
      print_note(*note + "; the store's own default stays for everyone else");
    }
    say_what_outranks(context, "the global default");
    return 0;
  }
  if (arguments.local) {
    std::error_code ec;
    const fs::path file = fs::current_path(ec) / k_project_file_name;
    std::vector<std::pair<std::string, std::string>> settings = {{"cudnn", arguments.spec}};
    if (!arguments.cuda.empty()) {
      settings.emplace_back("cuda", arguments.cuda);
    } else if (const auto spec = parse_spec(arguments.spec); spec && !spec->components.empty() && !spec->cuda &&
                                                             !choice->profile && tree->name != arguments.spec &&
                                                             tree->cuda_variant) {
      // A version that leaves the CUDA open: the CUDA of the build it resolved to here, which `lock` needs
      // (NVIDIA ships a release for several CUDA majors, and a lock looks at no toolkit).
      settings.emplace_back("cuda", tree->cuda_variant->str());
    }
    // A trusted file stays trusted: this changes its selection lines only, and
    // trust covers the whole text, which the user had read.
    TrustStore trust_store(store.state().trust());
    const auto before = util::read_file(file);
    const bool was_trusted = before && trust_store.status(file, *before) == TrustStatus::trusted;
    CUDNNENV_TRY(write_settings(file, settings, TomlFileKind::project));
    print_note("wrote " + util::to_utf8(file) + ": cudnn = " + toml_quote(arguments.spec) +
               (settings.size() > 1 ? ", cuda = " + toml_quote(settings[1].second) : std::string()) + " -> " + chosen);
    if (const auto stale = stale_lock_note(file)) print_note(*stale);
    if (was_trusted) {
      CUDNNENV_TRY_ASSIGN(after, util::read_file(file, k_max_settings_file));  // the text this command wrote
      CUDNNENV_TRY(trust_store.trust(file, *after));
      print_note("it stays trusted: only its selection changed");
    }
    say_what_outranks(context, util::to_utf8(file));
    return 0;
  }

  // For this shell: its integration's function (cudnnenv init SHELL) runs
  // `cudnnenv __script SHELL use ...` and evaluates what this prints.
  const std::string value = arguments.cuda.empty() ? arguments.spec : arguments.spec + "+cuda" + arguments.cuda;
  if (!context.script_shell) return needs_integration(context, value);
  print_script(shell::set_variable(*context.script_shell, "CUDNNENV_VERSION", value) + "\n");
  print_note("this shell: " + value + " -> " + chosen);
  return 0;
}

}  // namespace

void register_use(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<UseArguments>();
  CLI::App* command = app.add_subcommand(
      "use",
      "select a cuDNN for this shell (with 'cudnnenv init' loaded), this project (--local) or everywhere (--global)");
  command->add_option("spec", arguments->spec, "8, 8.1, 8.1.0.77, 8.9.7+cuda11.8, a tree name or a profile");
  command->add_option("--cuda", arguments->cuda, "CUDA version the tree must be built for (11.8, 12)");
  command->add_flag("--local", arguments->local,
                    "write cudnn = \"SPEC\" into ./.cudnnenv.toml (and cuda = that of the build it resolved to, where "
                    "SPEC leaves it open), keeping its other lines");
  command->add_flag("--global", arguments->global, "set the default in <root>/.cudnnenv/config.toml");
  command->add_flag("--unset", arguments->unset,
                    "undo this shell's 'use': the project file or the global default decides again");
  command->add_option("--facts", arguments->facts,
                      "refuse a tree that would not run on the node whose snapshot this is ('cudnnenv snapshot -o "
                      "FILE' there): another platform, a driver too old for its CUDA, a GPU it has no code for");
  command->footer(
      "Examples:\n"
      "  cudnnenv use 8.9                 this shell (with 'cudnnenv init' loaded; else it prints the line to run)\n"
      "  cudnnenv use 8.1 --local         this project: writes .cudnnenv.toml here\n"
      "  cudnnenv use tf2.5 --local       the tree TensorFlow 2.5 was tested with\n"
      "  cudnnenv use 9 --global          the default everywhere else\n"
      "  cudnnenv use 9 --local --facts node.json   for the compute node of that snapshot, refused if it would fail\n"
      "  cudnnenv use --unset             undo this shell's 'use' (it outranks --local and --global)\n"
      "  cudnnenv current                 what is selected here, and what decided it");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_use(*arguments, context); }; });
}

}  // namespace cudnnenv::cli
