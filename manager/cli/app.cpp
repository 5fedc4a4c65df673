#include <algorithm>
#include <array>
#include <filesystem>
#include <iostream>
#include <string_view>
#include <tuple>

#include <spdlog/spdlog.h>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "download/runtime.hpp"
#include "download/transfer.hpp"
#include "probe/probe.hpp"
#include "shell/init.hpp"
#include "store/official.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"
#include "version_info.hpp"

namespace cudnnenv::cli {

Store& Context::store() const {
  if (!m_store || m_store_root_option != root_option) {
    const std::filesystem::path root =
        root_option.empty() ? Store::default_root(environment, host_platform().os) : util::path_from_utf8(root_option);
    auto opened = Store::open(root, environment, host_platform().os);
    if (!opened) throw std::move(opened).error();  // run() prints it; no command can go on without it
    m_store = std::move(*opened);
    m_store_root_option = root_option;
  }
  return *m_store;
}

SelectionRequest Context::request(const std::string& cudnn, const std::string& cuda, const std::string& runtime,
                                  const std::map<TreeKind, std::string>& components) const {
  SelectionRequest request;
  if (!cudnn.empty()) request.cudnn = cudnn;
  if (!cuda.empty()) request.cuda = cuda;
  if (!runtime.empty()) request.runtime = runtime;
  for (const auto& [kind, text] : components) {
    if (!text.empty()) request.components[kind] = text;
  }
  request.environment = environment;
  std::error_code ec;
  request.working_directory = std::filesystem::current_path(ec);
  return request;
}

void add_component_options(CLI::App& command, std::map<TreeKind, std::string>& into, const std::string& what) {
  for (const ComponentRow* row : named_rows()) {
    command.add_option("--" + std::string(row->json_key), into[row->kind],
                       "the " + std::string(row->noun) + " tree " + what + ": its name or release");
  }
}

Result<Selection> Context::selection(SelectionRequest request) const {
  std::error_code ec;
  if (request.working_directory.empty()) request.working_directory = std::filesystem::current_path(ec);
  auto selection = resolve_selection(store(), request);
  if (selection) {
    for (const auto& warning : selection->warnings) log_warning(warning);
  } else {
    log_debug("no selection: " + selection.error().message);
  }
  return selection;
}

ProbeFunction Context::probe() const {
  return [program = probe_program_beside(util::installed_program())](const std::filesystem::path& library) {
    return probe_in_child(program, library);
  };
}

WarningSink Context::warner() const {
  return [](const std::string& message) { log_warning(message); };
}

std::optional<std::string> Context::state_elsewhere_note(const std::string& what) const {
  const Store& own = store();
  if (own.state_is_own()) return std::nullopt;
  const std::string folder = util::to_utf8(own.state().folder);
  if (const auto chosen = environment.get("CUDNNENV_STATE_DIR"); chosen && !chosen->empty()) {
    return what + " is in your state folder " + folder + " (CUDNNENV_STATE_DIR), not in the store's";
  }
  return "the store '" + util::to_utf8(own.root()) + "' is not yours to write: " + what +
         " is yours, in your state folder " + folder;
}

LockSources Context::lock_sources() const {
  LockSources sources;
  sources.config_files = config_files(store());
  sources.cuda_index = cuda_index(environment);
  sources.download = download_options("", true);
  const auto listing = store().list(RecordPart::identity);
  for (const ComponentRow* row : named_rows()) {
    for (auto& tree : listing.of(row->kind)) sources.installed.push_back(std::move(tree));
  }
  return sources;
}

DownloadOptions Context::download_options(const std::string& mirror, bool quiet) const {
  DownloadOptions options;
  options.folder = store().state().downloads();
  options.helper = fetch_program_beside(util::installed_program());
  // --mirror, else CUDNNENV_MIRROR, else [download] mirror in config.toml.
  options.mirror = mirror;
  if (options.mirror.empty()) options.mirror = environment.get("CUDNNENV_MIRROR").value_or("");
  if (options.mirror.empty()) {
    if (auto config = effective_config(store()); config && config->download_mirror) {
      options.mirror = *config->download_mirror;
    }
  }
  if (!quiet) {
    options.note = [](const std::string& message) { print_note(message); };
  }
  return options;
}

namespace {

// What is known about `target` for a batch file in `folder`, but for PATH.
shell::BatchPathFacts batch_path_facts(const std::filesystem::path& target, const std::filesystem::path& folder,
                                       const util::Environment& environment) {
  shell::BatchPathFacts facts;
  facts.target = target;
  facts.folder = folder;
  for (const char* name : {"USERPROFILE", "LOCALAPPDATA", "APPDATA"}) {
    if (auto value = environment.get(name)) facts.variables.emplace_back(name, *value);
  }
  facts.short_path = util::short_path(facts.target);
  return facts;
}

}  // namespace

Result<std::string> Context::folder_batch_line(const std::filesystem::path& target, const std::filesystem::path& folder,
                                               const std::string& variable) const {
  return shell::batch_path_line(batch_path_facts(target, folder, environment), variable);
}

Result<std::string> Context::program_batch_line(const std::filesystem::path& folder,
                                                const std::string& variable) const {
  shell::BatchPathFacts facts = batch_path_facts(util::current_executable(), folder, environment);
  // On PATH: the first folder of PATH that holds a file of the program's name holds this program.
  std::error_code ec;
  for (const auto& entry : util::split_path_list(environment.get("PATH").value_or(""))) {
    const auto candidate = util::path_from_utf8(entry) / facts.target.filename();
    if (!entry.empty() && std::filesystem::is_regular_file(candidate, ec)) {
      facts.on_path = std::filesystem::equivalent(candidate, facts.target, ec);
      break;
    }
  }
  return shell::batch_path_line(facts, variable);
}

std::pair<std::vector<std::string>, std::vector<std::string>> split_passthrough(const CLI::App& app,
                                                                                std::vector<std::string> arguments) {
  // Options that take a value, globally and for exec, as registered.
  const auto found = app.get_subcommands([](const CLI::App* each) { return each->get_name() == "exec"; });
  const CLI::App* exec = found.empty() ? nullptr : found.front();
  auto takes_value = [&](const std::string& word) {
    for (const CLI::App* scope : {&app, exec}) {
      if (scope == nullptr) continue;
      for (const CLI::Option* option : scope->get_options()) {
        if (option->check_name(word) && option->get_expected_min() > 0) return true;
      }
    }
    return false;
  };
  std::size_t i = 1;
  while (i < arguments.size() && util::starts_with(arguments[i], "-")) {
    i += takes_value(arguments[i]) ? 2 : 1;
  }
  if (i >= arguments.size() || arguments[i] != "exec") {
    return {std::move(arguments), {}};
  }
  for (++i; i < arguments.size(); ++i) {
    if (arguments[i] == "--" || !util::starts_with(arguments[i], "-")) {
      std::vector<std::string> program(arguments.begin() + static_cast<std::ptrdiff_t>(i + (arguments[i] == "--")),
                                       arguments.end());
      arguments.resize(i);
      return {std::move(arguments), std::move(program)};
    }
    if (takes_value(arguments[i])) {
      ++i;
    }
  }
  return {std::move(arguments), {}};
}

namespace {

// Each registration and the subcommands it adds: a command line that names
// one of them registers only that one (CLI11 builds every option it is
// given, which was half of a prompt hook's instructions); anything else
// (help, completion, a misspelled command's suggestion) registers all.
struct Registration {
  std::array<std::string_view, 3> commands;
  void (*add)(CLI::App&, Context&);
};

const Registration k_registrations[] = {{{"install"}, register_install},
                                        {{"lock"}, register_lock},
                                        {{"sync"}, register_sync},
                                        {{"mirror"}, register_mirror},
                                        {{"adopt"}, register_adopt},
                                        {{"list"}, register_list},
                                        {{"remove"}, register_remove},
                                        {{"discover"}, register_discover},
                                        {{"use"}, register_use},
                                        {{"current"}, register_current},
                                        {{"which"}, register_which},
                                        {{"trust"}, register_trust},
                                        {{"untrust"}, register_untrust},
                                        {{"verify"}, register_verify},
                                        {{"exec"}, register_exec},
                                        {{"shim"}, register_shim},
                                        {{"activate", "hook", "deactivate"}, register_activate},
                                        {{"init", "deinit"}, register_init},
                                        {{"profile"}, register_profile},
                                        {{"completion"}, register_completion},
                                        {{"cache"}, register_cache},
                                        {{"export"}, register_export},
                                        {{"doctor"}, register_doctor},
                                        {{"snapshot"}, register_snapshot},
                                        {{"selftest"}, register_selftest},
                                        {{"slurm"}, register_slurm},
                                        {{"frameworks"}, register_frameworks}};

const Registration* registration_of(std::string_view command) {
  for (const auto& each : k_registrations) {
    if (std::find(each.commands.begin(), each.commands.end(), command) != each.commands.end()) return &each;
  }
  return nullptr;
}

}  // namespace

void register_all(CLI::App& app, Context& context, std::string_view only) {
  app.name("cudnnenv");
  app.require_subcommand(1);
  app.set_version_flag("--version", "cudnnenv " CUDNNENV_VERSION_STRING);
  app.add_option("--root", context.root_option,
                 "store root (default: CUDNNENV_ROOT, else C:\\libs on Windows, else ~/.local/share/cudnnenv)");
  app.add_flag("-v,--verbose", context.verbosity,
               "log to stderr: -v which selection won, the checks and their cache; -vv also every source and file "
               "looked at (or CUDNNENV_LOG=debug|trace)");
  app.fallthrough();  // -v and --root also after the subcommand: cudnnenv exec -v -- ...
  if (const Registration* one = only.empty() ? nullptr : registration_of(only)) {
    one->add(app, context);
    return;
  }
  for (const auto& each : k_registrations) each.add(app, context);
}

std::string_view named_command(const std::vector<std::string>& arguments) {
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    const std::string& word = arguments[i];
    if (word == "__script") return i + 2 < arguments.size() ? std::string_view(arguments[i + 2]) : "";
    if (word == "--root") {
      ++i;  // its value
      continue;
    }
    if (word.rfind("--root=", 0) == 0 || word == "-v" || word == "-vv" || word == "--verbose") continue;
    return word.empty() || word[0] == '-' || word == "__complete" || word == "__man" ? "" : std::string_view(word);
  }
  return "";
}

namespace {

// The store root, said once before any command uses it: a relative --root is
// made absolute here (it names one folder, whatever folder a shim later
// starts in); a relative CUDNNENV_ROOT is refused (it would name another
// store in every folder); a root that is a file is refused. A missing root
// is no error: install creates it, the rest say there is nothing in it.
Result<void> check_root(Context& context) {
  std::error_code ec;
  std::string source = "--root";
  if (!context.root_option.empty()) {
    const auto root = util::path_from_utf8(context.root_option);
    if (root.is_relative()) context.root_option = util::to_utf8(std::filesystem::absolute(root, ec));
  } else if (auto variable = context.environment.get("CUDNNENV_ROOT"); variable && !variable->empty()) {
    source = "CUDNNENV_ROOT";
    if (util::path_from_utf8(*variable).is_relative()) {
      return make_error(
          "CUDNNENV_ROOT is a relative path ('" + *variable + "'): it would name another store in every folder",
          "give it as an absolute path, e.g. CUDNNENV_ROOT=\"" +
              util::to_utf8(std::filesystem::absolute(util::path_from_utf8(*variable), ec)) + "\"",
          ExitCode::usage);
    }
  } else {
    return {};
  }
  const auto root = context.store().root();
  if (std::filesystem::exists(root, ec) && !std::filesystem::is_directory(root, ec)) {
    return make_error("the store root '" + util::to_utf8(root) + "' (" + source + ") is a file, not a folder",
                      "point " + source + " at a folder (it is created when missing)", ExitCode::usage);
  }
  return {};
}

std::ostream& text_out_for(const Context& context) {
  return context.script_shell ? std::cerr : std::cout;
}

// A list of archives in place of the embedded one (tests, a site's own copy).
Result<void> use_site_index(const Context& context) {
  const auto index = context.environment.get("CUDNNENV_INDEX");
  if (!index || index->empty()) return {};
  CUDNNENV_TRY(use_index_file(util::path_from_utf8(*index)));
  spdlog::debug("official archives: the list in '{}' (CUDNNENV_INDEX)", *index);
  return {};
}

int run_unguarded(std::vector<std::string> arguments) {
  Context context;
  context.environment = util::Environment::current();
  CLI::App app{"cudnnenv: keep several cuDNN versions side by side and know which one loads"};
  init_logging(0, std::nullopt);  // warnings while parsing; CUDNNENV_LOG is read once parsed
  register_all(app, context, named_command(arguments));
  if (arguments.size() > 1 && arguments[1] == "__complete") {
    (void)use_site_index(context);  // a broken list: the embedded one's versions, and the error at install
    return complete_command_line(app, context, {arguments.begin() + 2, arguments.end()});
  }
  if (arguments.size() > 1 && arguments[1] == "__man") {
    return write_man_pages(app, {arguments.begin() + 2, arguments.end()});
  }
  if (arguments.size() > 1 && arguments[1] == "__script") {
    // The shell integration's `cudnnenv use|activate|deactivate` and its hook
    // (pyenv's sh- commands): a script for the shell on stdout, or nothing.
    const std::string shell_name = arguments.size() > 2 ? arguments[2] : std::string();
    const std::string command = arguments.size() > 3 ? arguments[3] : std::string();
    context.script_shell = shell::parse_shell(shell_name);
    if (!context.script_shell ||
        (command != "use" && command != "activate" && command != "deactivate" && command != "hook")) {
      print_error(make_error("'__script' takes a shell (" + shell::shell_choices() +
                                 ") and one of use, activate, "
                                 "deactivate, hook",
                             "it is run by the shell integration ('cudnnenv init --help')", ExitCode::usage));
      return static_cast<int>(ExitCode::usage);
    }
    arguments.erase(arguments.begin() + 1, arguments.begin() + 3);
  }
  std::tie(arguments, context.passthrough) = split_passthrough(app, std::move(arguments));

  std::vector<const char*> argv;
  for (const auto& argument : arguments) {
    argv.push_back(argument.c_str());
  }
  if (arguments.size() == 1) {
    // A bare `cudnnenv` asks what there is: the help, and success (as pyenv, conda and mise answer).
    text_out_for(context) << app.help();
    return static_cast<int>(ExitCode::ok);
  }
  // For a shell integration, stdout is evaluated: help and the version reach the terminal through stderr.
  std::ostream& text_out = text_out_for(context);
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help, text_out, std::cerr);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help, text_out, std::cerr);
  } catch (const CLI::CallForVersion& version) {
    return app.exit(version, text_out, std::cerr);
  } catch (const CLI::ParseError& error) {
    std::string hint = "run 'cudnnenv --help'";
    // An error in a subcommand's options points to that subcommand's help.
    for (const auto* sub : app.get_subcommands([](CLI::App* each) { return each->parsed(); })) {
      hint = "run 'cudnnenv " + sub->get_name() + " --help'";
    }
    if (app.get_subcommands([](CLI::App* each) { return each->parsed(); }).empty() && arguments.size() > 1) {
      // The closest subcommand within distance 2 (`lsit` is `list`, not the last one that is close).
      const std::string& word = arguments[1];
      std::size_t best = 3;
      for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        const std::size_t distance = util::edit_distance(word, sub->get_name());
        if (distance < best && word != sub->get_name() && !sub->get_group().empty()) {
          best = distance;
          hint = "did you mean 'cudnnenv " + sub->get_name() + "'?";
        }
      }
    }
    std::string message = util::to_lower(error.what());
    if (app.get_subcommands([](CLI::App* each) { return each->parsed(); }).empty() && arguments.size() > 1 &&
        !util::starts_with(arguments[1], "-")) {
      message = "'" + arguments[1] + "' is not a cudnnenv command";
      if (!util::starts_with(hint, "did you mean")) hint = "'cudnnenv --help' lists them";
    }
    print_error(make_error(message, hint, ExitCode::usage));
    return static_cast<int>(ExitCode::usage);
  }
  init_logging(context.verbosity, context.environment.get("CUDNNENV_LOG"));
  if (!context.action) {
    return static_cast<int>(ExitCode::ok);
  }
  if (auto root = check_root(context); !root) {
    print_error(root.error());
    return static_cast<int>(root.error().code);
  }
  if (auto used = use_site_index(context); !used) {
    print_error(used.error());
    return static_cast<int>(used.error().code);
  }
  if (context.script_shell) print_script(shell::script_marker_line(*context.script_shell));
  const Result<int> outcome = context.action();
  if (!outcome) {
    print_error(outcome.error());
    return static_cast<int>(outcome.error().code);
  }
  return outcome.value();
}

}  // namespace

// The one edge where whatever escaped the Result discipline ends: no input
// may end in std::terminate (an abort, exit 134). Each case that reached
// here is a bug to fix where it was thrown; this keeps it a one-line error.
int run(std::vector<std::string> arguments) {
  try {
    return run_unguarded(std::move(arguments));
  } catch (const Error& error) {
    print_error(error);
    return static_cast<int>(error.code);
  } catch (const std::bad_alloc&) {
    print_error(make_error("out of memory", "an input claims more than this machine has: check what you passed"));
  } catch (const std::exception& error) {
    print_error(make_error(std::string("internal error: ") + error.what(),
                           "this is a bug in cudnnenv: please report it with the command that caused it"));
  }
  return static_cast<int>(ExitCode::failure);
}

}  // namespace cudnnenv::cli
