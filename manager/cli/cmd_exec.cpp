#include <cstdio>
#include <filesystem>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "pin/launch.hpp"
#include "pin/pin_policy.hpp"
#include "pin/shims.hpp"
#include "select/activation.hpp"
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
  std::string mode = "audit";
  std::string verify;
  int device = 0;
  bool report = false;
  bool json = false;
  std::string shims_dir;  // set by a shim's slow path: never start a program from there
  std::vector<std::string> command;
};

void note(const std::string& text) {
  print_note("note: " + text);
}

std::filesystem::path audit_module_beside(const fs::path& program) {
  return program.parent_path() / "libcudnnenv-audit.so";
}

// The check before the start, as --verify, CUDNNENV_VERIFY or the project
// file chose it.
Result<void> check_before_start(const ExecArguments& arguments, const Context& context, const Selection& selection,
                                const fs::path& self, const util::Environment& environment, TreeRecord& tree) {
  CUDNNENV_TRY_ASSIGN(policy,
                      choose_launch_policy(arguments.verify.empty() ? std::nullopt : std::optional(arguments.verify),
                                           context.environment,
                                           selection.project ? selection.project->verify_on_launch : std::nullopt));
  const Store& store = context.store();
  PinCheckOptions check;
  check.policy = *policy;
  check.probe_program = probe_program_beside(self);
  check.cache_file = store.state().pin_checks();
  check.device = arguments.device;
  check.environment = environment;
  if (selection.runtime()) check.runtime_dir = selection.runtime()->resolve(selection.runtime()->layout.library_dir);
  if (*policy != LaunchPolicy::none) {
    // The file manifest, for the check of the whole file set: from the store's
    // folder of the tree, also for an adopted tree (its root is elsewhere; #11).
    if (auto full = store.full_record(tree); full) tree = *full;
    if (selection.runtime()) {
      check.runtime = [&store, runtime = *selection.runtime()]() -> std::optional<TreeRecord> {
        auto full = store.full_record(runtime);
        return full ? *full : runtime;
      };
    }
  }
  return check_pin(tree, check);
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
  const TreeRecord* runtime;  // null without one
  const LaunchPlan& plan;
  PinMode mode;
  const PinReport& report;
  const WatchedRun& run;
  int exit_code = 0;
};

std::string pin_way(const ReportInput& in, bool json) {
  if (host_platform().os == Os::windows) {
    return json ? "path+SetDllDirectoryW+AddDllDirectory" : "PATH + SetDllDirectoryW + AddDllDirectory in the program";
  }
  return std::string(util::name_of(k_pin_modes, in.mode));
}

// One line of JSON, for stderr: stdout is the program's.
std::string report_json(const ReportInput& in) {
  Json files = Json::array();
  for (const auto& file : in.report.files) {
    files.push_back(Json{{"path", file.path},
                         {"pid", file.pid},
                         {"inside", file.inside},
                         {"runtime", file.runtime},
                         {"preloaded", file.preloaded},
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
              {"started", in.run.started},
              {"running_at_exit", in.run.running_at_exit}}
             .dump(-1, ' ', false, Json::error_handler_t::replace) +
         "\n";
}

std::string plural(long count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

std::string report_text(const ReportInput& in) {
  std::string text =
      "cudnnenv: report: pinned to '" + in.tree.name + "' (cuDNN " + in.tree.version.str() + ", " +
      util::to_utf8(in.plan.library_dir) + ")" +
      (in.runtime ? " with the CUDA runtime '" + in.runtime->name + "' (" + util::to_utf8(in.plan.runtime_dir) + ")"
                  : std::string()) +
      (host_platform().os == Os::windows ? ", " : ", mode ") + pin_way(in, false) + "\n";
  if (in.report.files.empty()) {
    text += "  no cuDNN library was loaded\n";
    if (host_platform().os == Os::windows) {
      text +=
          "  hint: a program that loads cuDNN with its own list of folders can add the tree's: in Python, "
          "os.add_dll_directory(os.environ[\"CUDNNENV_PIN_DIR\"]) before the import\n";
    } else {
      text +=
          "  hint: a process started without LD_AUDIT in its environment (env -i, or a program that gives its "
          "children an environment of its own) runs without cudnnenv's audit module: what it loads is neither "
          "pinned nor seen here; start it through 'cudnnenv exec' itself\n";
    }
  }
  for (const auto& file : in.report.files) {
    text += (file.inside ? (file.runtime ? "  in the runtime " : "  in the tree  ") : "  OUTSIDE      ") + file.path +
            (file.why.empty() ? "" : " (" + file.why + ")") +
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
    text += "cudnnenv: report: " + std::to_string(outside) + " cuDNN " + (in.runtime ? "or CUDA runtime " : "") +
            "file(s) came from outside the tree" + (in.runtime ? "s" : "") + "\n";
  }
  return text;
}

Result<int> run_exec(const ExecArguments& arguments, const Context& context) {
  if (arguments.command.empty()) {
    return make_error("no program to start", "put it after '--': cudnnenv exec -- python train.py", ExitCode::usage);
  }
  const Store& store = context.store();
  CUDNNENV_TRY_ASSIGN(selection,
                      context.selection(context.request(arguments.cudnn, arguments.cuda, arguments.runtime)));
  const fs::path self = util::current_executable();
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
  launch_request.audit_module = audit_module_beside(self);
  see_through_own_shims(arguments, store, launch_request);
  std::error_code ec;
  if (arguments.report && host_platform().os != Os::windows) {
    fs::create_directories(store.state().cache(), ec);
    launch_request.report_log = store.state().report_log(util::current_process_id());
    fs::remove(launch_request.report_log, ec);
  }
  CUDNNENV_TRY_ASSIGN(plan, plan_launch(launch_request));
  // The check searches the environment the program gets.
  CUDNNENV_TRY(check_before_start(arguments, context, *selection, self, plan->environment, tree));
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
  if (!arguments.report) {
    return launch(*plan);
  }

  std::vector<LoadedModule> loaded;
  WatchedRun run;
  auto exit_code = launch_and_watch(*plan, loaded, run);
  if (!launch_request.report_log.empty()) {
    fs::remove(launch_request.report_log, ec);
  }
  if (!exit_code) {
    return std::move(exit_code).error();
  }
  const PinReport report = classify_loaded(tree, selection->runtime(), plan->program, loaded);
  const ReportInput input{tree, selection->runtime(), *plan, launch_request.mode, report, run, *exit_code};
  print_diagnostic(arguments.json ? report_json(input) : report_text(input));
  if (*exit_code != 0) {
    return *exit_code;
  }
  return report.outside_count() == 0 ? 0 : static_cast<int>(ExitCode::verify_failed);
}

}  // namespace

void register_exec(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<ExecArguments>();
  CLI::App* command = app.add_subcommand(
      "exec", "run a program with exactly one cuDNN: the selected tree's, pinned (cudnnenv exec -- python train.py)");
  command->add_option("--cudnn", arguments->cudnn, "the tree to pin (default: the current selection)");
  command->add_option("--cuda", arguments->cuda,
                      "CUDA version the tree must be built for; a full release (13.0.2) also names the runtime tree");
  command->add_option("--runtime", arguments->runtime, "the CUDA runtime tree to pin beside it: its name or release");
  command
      ->add_option("--mode", arguments->mode,
                   "Linux: audit (default: LD_AUDIT module + LD_LIBRARY_PATH), preload (LD_PRELOAD + "
                   "LD_LIBRARY_PATH; a store path without spaces), path (LD_LIBRARY_PATH only)")
      ->check(CLI::IsMember(util::names_of(k_pin_modes)));
  command->add_flag("--report", arguments->report,
                    "after the program exits, list every cuDNN file it loaded and from where; exit 4 if one came "
                    "from outside the tree");
  command
      ->add_flag("--json", arguments->json,
                 "with --report: the report as one line of JSON on stderr (stdout is the program's)")
      ->needs("--report");
  command
      ->add_option("--verify", arguments->verify,
                   "check before the start: none, load (default) or conv; else CUDNNENV_VERIFY, [verify] on_launch")
      ->check(CLI::IsMember(util::names_of(k_launch_policies)));
  command->add_option("--device", arguments->device, "the GPU for --verify conv (default 0)");
  command->add_option("--shims-dir", arguments->shims_dir, "(used by shims) never start the program from this folder")
      ->group("");
  command->footer(
      "The program and its arguments follow '--' (or the first word that is not an option) and reach it\n"
      "untouched. Exit code: the program's; 4 when the check before the start or --report fails.");
  command->callback([arguments, &context] {
    arguments->command = context.passthrough;
    context.action = [arguments, &context] { return run_exec(*arguments, context); };
  });
}

}  // namespace cudnnenv::cli
