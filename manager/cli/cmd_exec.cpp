#include <cstdio>
#include <filesystem>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "discover/discover.hpp"
#include "pin/launch.hpp"
#include "pin/pin_policy.hpp"
#include "pin/report.hpp"
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
  const RunReport input{tree,
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
