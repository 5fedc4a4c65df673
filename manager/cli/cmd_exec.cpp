#include <cstdio>
#include <filesystem>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "discover/discover.hpp"
#include "download/runtime.hpp"
#include "formats/binfmt.hpp"
#include "pin/launch.hpp"
#include "pin/pin_policy.hpp"
#include "pin/shims.hpp"
#include "pin/why.hpp"
#include "select/activation.hpp"
#include "select/framework.hpp"
#include "select/resolve.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

struct ExecArguments {
  std::string cudnn;
  std::string cuda;
  std::string runtime;
  std::map<TreeKind, std::string> components;  // --nccl, ...
  std::string mode = "audit";
  std::string verify;
  int device = 0;
  bool report = false;
  bool why = false;
  bool json = false;
  std::string shims_dir;  // set by a shim's slow path: never start a program from there
  std::vector<std::string> command;
};

void note(const std::string& text) {
  print_note("note: " + text);
}

// Typed by a user with the shims first on PATH: exec sees through its own
// shims to what they start (a shim's --target, else the next on PATH), and
// never starts a program from the shims' folder.
void see_through_own_shims(const ExecArguments& arguments, const Store& store, LaunchRequest& request) {
  if (!arguments.shims_dir.empty()) {
    request.skip.push_back(util::path_from_utf8(arguments.shims_dir));
    return;
  }
  ShimPaths own;
  own.shims_dir = store.state().shims();
  std::error_code ec;
  if (auto found = find_program(request.command, request.environment, {});
      found && fs::equivalent(found->parent_path(), own.shims_dir, ec)) {
    for (const auto& shim : list_shims(own)) {
      if (shim.name == found->stem().string() && !shim.target.empty() && !shim.broken) {
        log_debug("exec: '" + request.command + "' is a shim of this store; starting its target '" + shim.target + "'");
        request.command = shim.target;
      }
    }
  }
  request.skip.push_back(own.shims_dir);
}

// What --report says about one run, from what it watched.
struct ReportInput {
  const TreeRecord& tree;
  const TreeRecord* runtime;              // null without one
  std::vector<const TreeRecord*> beside;  // the trees pinned beside `tree`, in the table's order
  const LaunchPlan& plan;
  PinMode mode;
  const PinReport& report;
  const WatchedRun& run;
  const LoadFailures& failures;
  int exit_code = 0;
};

std::string pin_way(const ReportInput& in, bool json) {
  if (host_platform().os == Os::windows) {
    return json ? "path+SetDllDirectoryW+AddDllDirectory" : "PATH + SetDllDirectoryW + AddDllDirectory in the program";
  }
  return std::string(util::name_of(k_pin_modes, in.mode));
}

// The file of `failures` that is `path` (both resolved), if it failed.
const FailedFile* failed_file(const LoadFailures& failures, const std::string& path) {
  for (const auto& failed : failures.failed) {
    if (util::same_file(util::path_from_utf8(failed.path), util::path_from_utf8(path))) return &failed;
  }
  return nullptr;
}

Json failures_json(const LoadFailures& failures) {
  Json missing = Json::array();
  for (const auto& entry : failures.missing) {
    Json looked_in = Json::array();
    for (const auto& place : entry.looked_in) looked_in.push_back(Json{{"folder", place.path}, {"rule", place.rule}});
    missing.push_back(Json{{"name", entry.name},
                           {"also_asked", entry.also_asked},
                           {"needed_by", entry.needed_by},
                           {"chains", entry.chains},
                           {"looked_in", std::move(looked_in)},
                           {"looked_in_observed", entry.looked_in_observed},
                           {"fix", entry.fix}});
  }
  Json failed = Json::array();
  for (const auto& entry : failures.failed) {
    failed.push_back(Json{{"path", entry.path}, {"pid", entry.pid}, {"missing", entry.missing}});
  }
  return Json{{"missing", std::move(missing)}, {"failed", std::move(failed)}};
}

// One line of JSON, for stderr: stdout is the program's.
std::string report_json(const ReportInput& in) {
  Json files = Json::array();
  for (const auto& file : in.report.files) {
    files.push_back(Json{{"path", file.path},
                         {"pid", file.pid},
                         {"inside", file.inside},
                         {"failed", failed_file(in.failures, file.path) != nullptr},
                         {"runtime", file.kind == TreeKind::cuda},
                         {"component", to_string(file.kind)},
                         {"preloaded", file.preloaded},
                         {"fenced", file.fenced},
                         {"why", or_null(file.why)}});
  }
  return Json{{"tree", in.tree.name},
              {"version", in.tree.version.str()},
              {"library_dir", util::to_utf8(in.plan.library_dir)},
              {"runtime", in.runtime ? Json(in.runtime->name) : Json(nullptr)},
              {"runtime_dir", in.runtime ? Json(util::to_utf8(in.plan.runtime_dir)) : Json(nullptr)},
              {"mode", pin_way(in, true)},
              {"pid", in.run.program_pid},
              {"exit_code", in.exit_code},
              {"files", std::move(files)},
              {"outside", in.report.outside_count()},
              {"missing", failures_json(in.failures)["missing"]},
              {"failed", failures_json(in.failures)["failed"]},
              {"started", in.run.started},
              {"running_at_exit", in.run.running_at_exit}}
             .dump(-1, ' ', false, Json::error_handler_t::replace) +
         "\n";
}

std::string plural(long count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

// " with the CUDA runtime 'cuda-13.0.2' (/store/cuda-13.0.2/lib)": each tree pinned beside cuDNN's.
std::string beside_words(const ReportInput& in) {
  std::string words;
  for (const TreeRecord* each : in.beside) {
    words += " with the " + std::string(component(each->kind).noun) + " '" + each->name + "' (" +
             util::to_utf8(each->resolve(each->layout.library_dir)) + ")";
  }
  return words;
}

std::string report_text(const ReportInput& in) {
  std::string text = "cudnnenv: report: pinned to '" + in.tree.name + "' (cuDNN " + in.tree.version.str() + ", " +
                     util::to_utf8(in.plan.library_dir) + ")" + beside_words(in) +
                     (host_platform().os == Os::windows ? ", " : ", mode ") + pin_way(in, false) + "\n";
  if (in.report.files.empty()) {
    text += "  no cuDNN library was loaded\n";
    if (host_platform().os == Os::windows) {
      text +=
          "  hint: a program that loads cuDNN with its own list of folders can add the trees': in Python, "
          "before the import: [os.add_dll_directory(os.environ[v]) for v in (\"CUDNNENV_PIN_DIR\", "
          "\"CUDNNENV_RUNTIME_DIR\") if os.environ.get(v)]\n";
    } else {
      text +=
          "  hint: a process started without LD_AUDIT in its environment (env -i, or a program that gives its "
          "children an environment of its own) runs without cudnnenv's audit module: what it loads is neither "
          "pinned nor seen here; start it through 'cudnnenv exec' itself\n";
    }
  }
  // A column of where each file came from (its row's report label), as wide as its widest label here.
  const auto label_of = [&](const LoadedCudnnFile& file) -> std::string {
    return failed_file(in.failures, file.path) ? "FAILED"
           : file.fenced                       ? "FENCED"
           : file.inside                       ? std::string(component(file.kind).report_label)
                                               : "OUTSIDE";
  };
  std::size_t width = std::string_view("in the tree  ").size();
  for (const auto& file : in.report.files) {
    if (file.inside) width = std::max(width, component(file.kind).report_label.size() + 2);
  }
  for (const auto& file : in.report.files) {
    const FailedFile* failed = failed_file(in.failures, file.path);
    const std::string label = label_of(file);
    text += "  " + label + std::string(width - label.size(), ' ') + file.path +
            (file.why.empty() ? "" : " (" + file.why + ")") +
            (failed ? " (did not load: it needs " + util::join(failed->missing, ", ") + ")" : std::string()) +
            (file.pid != 0 && file.pid != in.run.program_pid
                 ? " [pid " + std::to_string(file.pid) + ", a process the program started]"
                 : std::string()) +
            "\n";
  }
  if (in.run.started != 0) {
    // What the pin does not reach in them (Windows): the in-program calls.
    text += "cudnnenv: report: " + plural(in.run.started, "process", "processes") +
            " the program started had the trees' folders on PATH, not its AddDllDirectory folders: a load "
            "there with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS (os.add_dll_directory, Python 3.8+) does not search "
            "the trees; start such a child through 'cudnnenv exec' or a shim\n";
  }
  if (in.run.running_at_exit != 0) {
    text += "cudnnenv: report: " + plural(in.run.running_at_exit, "process", "processes") +
            " the program started still ran when it ended: ended with it, or left running if started outside "
            "its job (CREATE_BREAKAWAY_FROM_JOB); what they load from then on is not in this report\n";
  }
  if (const std::size_t outside = in.report.outside_count(); outside != 0) {
    std::vector<std::string> nouns{"cuDNN"};
    for (const TreeRecord* each : in.beside) nouns.push_back(std::string(component(each->kind).noun));
    const std::string last = nouns.back();
    nouns.pop_back();
    text += "cudnnenv: report: " + std::to_string(outside) + " " +
            (nouns.empty() ? last : util::join(nouns, ", ") + " or " + last) + " file(s) came from outside the tree" +
            (in.beside.empty() ? "" : "s") + "\n";
  }
  if (!in.failures.empty()) text += describe_load_failures(in.failures);
  return text;
}

// Where the standard Windows search looks for a DLL the program loads by
// name, with the pin's folders where SetDllDirectoryW puts them.
std::vector<SearchedPath> standard_search(const LaunchPlan& plan) {
  std::vector<SearchedPath> places;
  if (host_platform().os != Os::windows) return places;
  DiscoverContext discover;
  discover.environment = plan.environment;
  const auto before = folders_before_path(discover, plan.program);
  for (std::size_t i = 0; i < before.size(); ++i) {
    places.push_back({before[i].via, util::to_utf8(before[i].directory)});
    if (i == 0) {
      for (const auto& folder : plan.folders)
        places.push_back({"SetDllDirectoryW: cudnnenv's pin", util::to_utf8(folder)});
    }
  }
  for (const auto& entry : util::split(plan.environment.get("PATH").value_or(""), ';')) {
    if (!entry.empty()) places.push_back({"PATH", entry});
  }
  return places;
}

// What the watched run tried to load and could not, each with its fix.
LoadFailures failures_of(const LaunchPlan& plan, const std::vector<LoadedModule>& loaded, const WatchedRun& run,
                         const Selection& selection, const Store& store, const std::vector<std::string>& command,
                         const util::Environment& environment) {
  const NeededOf needed_of = [](const std::string& path) {
    auto links = read_link_info(util::path_from_utf8(path));
    std::vector<std::string> needed;
    if (!links) return needed;
    for (const auto& name : links->needed) {
      if (std::find(links->delay_loaded.begin(), links->delay_loaded.end(), name) == links->delay_loaded.end()) {
        needed.push_back(name);
      }
    }
    return needed;
  };
  LoadFailures failures =
      find_load_failures(plan.program, loaded, run.searches, host_platform().os, needed_of, standard_search(plan));
  // Windows: a name the tree lacks mapped the fence's file and failed there.
  if (!plan.fence_folder.empty()) {
    const std::string program = util::to_utf8(plan.program.filename());
    for (const auto& module : loaded) {
      const fs::path file = util::path_from_utf8(module.path);
      if (!util::same_file(file.parent_path(), plan.fence_folder)) continue;
      const std::string name = util::to_utf8(file.filename());
      if (std::any_of(failures.missing.begin(), failures.missing.end(),
                      [&](const MissingLibrary& each) { return util::iequals(each.name, name); })) {
        continue;
      }
      MissingLibrary missing;
      missing.name = name;
      missing.needed_by = {program};
      missing.chains = {{program, name}};
      missing.looked_in = {{"pin", util::to_utf8(plan.library_dir)}, {"fence", util::to_utf8(plan.fence_folder)}};
      failures.missing.push_back(std::move(missing));
    }
  }
  const Listing listing = store.list(RecordPart::identity);
  FixContext fix;
  fix.tree = &selection.tree;
  fix.runtime = selection.runtime();
  fix.trees = listing.trees;
  fix.runtimes = listing.runtimes();
  fix.releases = known_cuda_releases(cuda_index(environment));
  std::vector<std::string> words;
  for (const auto& word : command) words.push_back(util::command_word(word));
  fix.command = util::join(words, " ");
  for (auto& missing : failures.missing) missing.fix = fix_for_missing(missing, fix);
  return failures;
}

Result<int> run_exec(const ExecArguments& arguments, const Context& context) {
  if (arguments.command.empty()) {
    return make_error("no program to start", "put it after '--': cudnnenv exec -- python train.py", ExitCode::usage);
  }
  if (arguments.json && !arguments.report && !arguments.why) {
    return make_error("--json is the form of --report's or --why's result",
                      "add one: cudnnenv exec --why --json -- python train.py", ExitCode::usage);
  }
  const Store& store = context.store();
  CUDNNENV_TRY_ASSIGN(selection, context.selection(context.request(arguments.cudnn, arguments.cuda, arguments.runtime,
                                                                   arguments.components)));
  TreeRecord tree = selection->tree;

  LaunchRequest launch_request;
  launch_request.tree = tree;
  launch_request.beside = selection->beside_trees();
  launch_request.mode = util::parse_name(k_pin_modes, arguments.mode).value_or(PinMode::audit);
  launch_request.command = arguments.command.front();
  launch_request.arguments.assign(arguments.command.begin() + 1, arguments.command.end());
  launch_request.environment = context.environment;
  // The one launch environment of the selection, as every door renders it.
  launch_request.selection_environment = activation_of(*selection, context.environment);
  launch_request.audit_module = audit_module_beside(util::installed_program());
  if (host_platform().os == Os::windows && tree.kind == TreeKind::cudnn) {
    CUDNNENV_TRY_ASSIGN(fence, prepare_fence(tree, util::installed_program().parent_path() / "cudnnenv-fence.dll",
                                             store.state().fences()));
    if (*fence) launch_request.fence_folder = **fence;
  }
  see_through_own_shims(arguments, store, launch_request);
  const bool watch = arguments.report || arguments.why;
  if (watch && host_platform().os != Os::windows) {
    launch_request.report_log = store.state().report_log(util::current_process_id());
    CUDNNENV_TRY(create_report_log(launch_request.report_log));
  }
  CUDNNENV_TRY_ASSIGN(plan, plan_launch(launch_request));
  // What the framework opens first, when nothing provides it: said before
  // the check, which reads only cuDNN's own imports.
  if (const auto unprovided = unprovided_framework_libraries(*selection, plan->environment, host_platform().os)) {
    log_warning(unprovided->describe() + "; " + unprovided->fix);
  }
  // The check searches the environment the program gets.
  CUDNNENV_TRY(check_before_start(arguments.verify, arguments.device, context.store(), *selection, context.environment,
                                  plan->environment, tree));
  for (const auto& text : plan->notes) {
    note(text);
  }
  if (!arguments.shims_dir.empty() && plan->preload.empty()) {
    // A shim's slow path: the decision, for the shim's next start in the same
    // situation. Not with DLLs to load inside the program past a copy, which
    // the fast path does not do: such a start always comes through here.
    record_launch_decision(context.root_option.empty() ? util::to_utf8(store.root()) : context.root_option,
                           util::to_utf8(store.state().folder), tree, *plan);
  }
  if (!watch) {
    return launch(*plan);
  }

  std::vector<LoadedModule> loaded;
  WatchedRun run;
  auto exit_code = launch_and_watch(*plan, loaded, run);
  if (!launch_request.report_log.empty()) remove_report_log(launch_request.report_log);
  if (!exit_code) {
    return std::move(exit_code).error();
  }
  const LoadFailures failures =
      failures_of(*plan, loaded, run, *selection, store, arguments.command, context.environment);
  if (!arguments.report) {
    print_diagnostic(arguments.json
                         ? failures_json(failures).dump(-1, ' ', false, Json::error_handler_t::replace) + "\n"
                         : describe_load_failures(failures));
    return *exit_code;
  }
  const PinReport report = classify_loaded(selection->trees(), plan->program, loaded, plan->fence_folder);
  const auto trees = selection->trees();
  const ReportInput input{tree,
                          selection->runtime(),
                          {trees.begin() + 1, trees.end()},
                          *plan,
                          launch_request.mode,
                          report,
                          run,
                          failures,
                          *exit_code};
  print_diagnostic(arguments.json ? report_json(input) : report_text(input));
  if (*exit_code != 0) {
    return *exit_code;
  }
  return report.outside_count() == 0 ? 0 : static_cast<int>(ExitCode::verify_failed);
}

// --help's usage line: the program and its arguments after the options.
class ExecUsage : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* app, std::string name) const override {
    std::string usage = CLI::Formatter::make_usage(app, std::move(name));
    const std::size_t end = usage.find_last_not_of('\n') + 1;
    return usage.substr(0, end) + " -- CMD [ARGS...]" + usage.substr(end);
  }
};

}  // namespace

void register_exec(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<ExecArguments>();
  CLI::App* command = app.add_subcommand(
      "exec", "run a program with exactly one cuDNN: the selected tree's, pinned (cudnnenv exec -- python train.py)");
  command->formatter(std::make_shared<ExecUsage>());
  command->add_option("--cudnn", arguments->cudnn, "the tree to pin (default: the current selection)");
  command->add_option("--cuda", arguments->cuda,
                      "CUDA version the tree must be built for; a full release (13.0.2) also names the runtime tree");
  command->add_option("--runtime", arguments->runtime, "the CUDA runtime tree to pin beside it: its name or release");
  add_component_options(*command, arguments->components, "to pin beside it");
  command
      ->add_option("--mode", arguments->mode,
                   "Linux: audit (default: LD_AUDIT module + LD_LIBRARY_PATH), preload (LD_PRELOAD + "
                   "LD_LIBRARY_PATH; a store path without spaces), path (LD_LIBRARY_PATH only)")
      ->check(CLI::IsMember(util::names_of(k_pin_modes)));
  command->add_flag("--report", arguments->report,
                    "after the program exits, list every cuDNN file it loaded and from where; exit 4 if one came "
                    "from outside the tree");
  command->add_flag("--why", arguments->why,
                    "after the program exits, name each CUDA library it tried to load and could not: what asked "
                    "for it, where it was looked for, and the command that fixes it");
  command->add_flag("--json", arguments->json,
                    "with --report or --why: the result as one line of JSON on stderr (stdout is the program's)");
  command
      ->add_option("--verify", arguments->verify,
                   "check before the start: none, load (default) or conv; else CUDNNENV_VERIFY, [verify] on_launch")
      ->check(CLI::IsMember(util::names_of(k_launch_policies)));
  command->add_option("--device", arguments->device, "the GPU for --verify conv (default 0)");
  command->add_option("--shims-dir", arguments->shims_dir, "(used by shims) never start the program from this folder")
      ->group("");
  command->footer(
      "The program and its arguments follow '--' (or the first word that is not an option) and reach it\n"
      "untouched. Exit code: the program's; 4 when the check before the start or --report fails.\n"
      "\n"
      "Examples:\n"
      "  cudnnenv exec -- python train.py\n"
      "  cudnnenv exec --report -- python train.py     every cuDNN and CUDA file it loaded, and from where\n"
      "  cudnnenv exec --why -- python train.py        what did not load, through which chain, and the fix");
  command->callback([arguments, &context] {
    arguments->command = context.passthrough;
    context.action = [arguments, &context] { return run_exec(*arguments, context); };
  });
}

}  // namespace cudnnenv::cli
