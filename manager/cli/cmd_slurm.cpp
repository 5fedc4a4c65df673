// `cudnnenv slurm`: the doors of a Slurm cluster. task-prolog renders the
// launch environment of the selection for Slurm's task prolog protocol (what
// `srun --task-prolog`, `TaskProlog=` and the SPANK plugin apply); health
// checks the store's trees for HealthCheckProgram or Prolog and drains the
// node in one line when one broke.
#include <filesystem>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "integrate/slurm.hpp"
#include "pin/launch.hpp"
#include "pin/pin_policy.hpp"
#include "select/activation.hpp"
#include "select/targets.hpp"
#include "util/fs.hpp"
#include "util/names.hpp"
#include "util/process.hpp"
#include "util/text.hpp"
#include "verify/verify.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

struct TaskPrologArguments {
  std::string cudnn;
  std::string cuda;
  std::string runtime;
  std::map<TreeKind, std::string> components;  // --nccl, ...
  std::string verify;
  int device = 0;
  bool check = false;
  bool print_errors = false;
};

Result<int> plan_task(const TaskPrologArguments& arguments, const Context& context) {
  auto selection =
      context.selection(context.request(arguments.cudnn, arguments.cuda, arguments.runtime, arguments.components));
  if (!selection) {
    // A site-wide TaskProlog runs for every task: one that selects nothing
    // runs as it would without cudnnenv.
    if (arguments.cudnn.empty() && is_nothing_selected(selection.error())) return 0;
    return std::move(selection).error();
  }
  LaunchRequest request;
  request.tree = selection->tree;
  request.beside = selection->beside_trees();
  request.environment = context.environment;
  request.selection_environment = activation_of(*selection, context.environment);
  // The task's selection, named by its door, so that `cudnnenv current` and a
  // nested `cudnnenv exec` in the task take the same trees.
  mark_activated(request.selection_environment, *selection, Door::slurm);
  request.audit_module = audit_module_beside(util::installed_program());
  CUDNNENV_TRY_ASSIGN(plan, plan_environment(request));
  CUDNNENV_TRY_ASSIGN(lines, task_prolog_lines(*plan, context.environment));
  if (arguments.check) return 0;
  if (!arguments.verify.empty()) {
    TreeRecord tree = selection->tree;
    CUDNNENV_TRY(check_before_start(arguments.verify, arguments.device, context.store(), *selection,
                                    context.environment, plan->environment, tree, true));
  }
  print_script(*lines);  // as they are: a value's tab is the value's
  return 0;
}

// Slurm keeps a task prolog's stderr from the user; its `print` lines go to
// the task's output, also when it fails.
Result<int> run_task_prolog(const TaskPrologArguments& arguments, const Context& context) {
  auto result = plan_task(arguments, context);
  if (!result && arguments.print_errors) {
    print(
        "print cudnnenv: error: " + util::printable(result.error().message) + "\n" +
        (result.error().hint.empty() ? std::string() : "print   hint: " + util::printable(result.error().hint) + "\n"));
  }
  return result;
}

struct HealthArguments {
  std::vector<std::string> trees;
  std::string level = "load";
  std::string device = "0";
  bool drain = false;
  bool resume = false;
  std::string node;
  std::string scontrol = "scontrol";
};

Result<int> run_health(const HealthArguments& arguments, const Context& context) {
  const Store& store = context.store();
  const fs::path lock = store.state().health_lock();
  const HealthTurn turn = take_health_turn(lock);
  if (turn.another_runs) {
    log_debug("slurm health: another run holds '" + util::to_utf8(lock) + "': this one exits");
    return 0;
  }
  std::vector<VerifyTarget> targets;
  std::vector<std::string> warnings;
  const auto nothing_here = [] { return Result<Selection>(make_error("")); };
  if (arguments.trees.empty()) {
    CUDNNENV_TRY_ASSIGN(all, verify_targets(store, "", true, nothing_here, warnings));
    targets = std::move(*all);
  }
  for (const auto& name : arguments.trees) {
    CUDNNENV_TRY_ASSIGN(named, verify_targets(store, name, false, nothing_here, warnings));
    targets.insert(targets.end(), named->begin(), named->end());
  }
  VerifyOptions options;
  options.level = util::parse_name(k_verify_levels, arguments.level).value_or(VerifyLevel::load);
  options.devices = arguments.device;
  options.probe_program = probe_program_beside(util::installed_program());
  options.environment = context.environment;
  const HealthOutcome outcome = check_health(targets, options, store.state().health_checks());
  std::string node = arguments.node.empty() ? context.environment.get("SLURMD_NODENAME").value_or("") : arguments.node;
  if ((arguments.drain || arguments.resume) && node.empty()) {
    return make_error(
        "no node to " + std::string(arguments.drain ? "drain" : "resume") + ": SLURMD_NODENAME is not set",
        "name it: --node NAME", ExitCode::usage);
  }
  const Scontrol scontrol{arguments.scontrol, context.environment};
  if (outcome.trouble.empty()) {
    log_debug("slurm health: every tree passed (level " + arguments.level + "): " + std::to_string(outcome.checked) +
              " checked now, " + std::to_string(outcome.cached) + " passed before with nothing changed since");
    if (arguments.resume) {
      CUDNNENV_TRY_ASSIGN(resumed, resume_node_drained_by_cudnnenv(scontrol, node));
      if (*resumed) print("resumed node " + node + ", drained by cudnnenv (" + **resumed + ")\n");
    }
    return 0;
  }
  const std::string reason = node_reason(outcome.trouble);
  print(reason + "\n");
  if (arguments.drain) CUDNNENV_TRY(drain_node(scontrol, node, reason));
  return static_cast<int>(ExitCode::verify_failed);
}

}  // namespace

void register_slurm(CLI::App& app, Context& context) {
  CLI::App* slurm = app.add_subcommand("slurm", "Slurm's doors: the task prolog (and the SPANK plugin), node health");
  slurm->require_subcommand(1);
  slurm->footer(
      "Examples:\n"
      "  srun --task-prolog=\"$(command -v cudnnenv-task-prolog)\" -N2 python train.py\n"
      "  srun --cudnn=9.19 -N2 python train.py      with the SPANK plugin (README: Slurm)\n"
      "  cudnnenv slurm health --drain               HealthCheckProgram: drain a node whose trees broke");

  auto prolog = std::make_shared<TaskPrologArguments>();
  CLI::App* task = slurm->add_subcommand(
      "task-prolog", "print the task prolog lines (export/unset) that pin the selection in a Slurm task");
  task->add_option("--cudnn", prolog->cudnn, "the tree to pin (default: the selection in the task's folder)");
  task->add_option("--cuda", prolog->cuda, "CUDA version the tree must be built for");
  task->add_option("--runtime", prolog->runtime, "the CUDA runtime tree to pin beside it: its name or release");
  add_component_options(*task, prolog->components, "to pin beside it");
  task->add_option("--verify", prolog->verify, "check before the task starts: none, load or conv (exit 4 on failure)")
      ->check(CLI::IsMember(util::names_of(k_launch_policies)));
  task->add_option("--device", prolog->device, "the GPU for --verify conv (default 0)");
  task->add_flag("--check", prolog->check, "resolve and plan only, print nothing (the SPANK plugin's submit check)");
  task->add_flag("--print-errors", prolog->print_errors,
                 "also say an error as 'print' lines, which Slurm writes to the task's output (cudnnenv-task-prolog)");
  task->footer(
      "Slurm runs the task prolog in each task and sets what it prints; cudnnenv-task-prolog, installed\n"
      "beside cudnnenv, runs this with no arguments (Slurm passes none). With no selection (no --cudnn,\n"
      "CUDNNENV_VERSION or .cudnnenv.toml, no global default) it prints nothing, so a site-wide TaskProlog\n"
      "leaves other jobs alone. Exit code: 2 or 3 when the selection fails, 4 when --verify fails.\n"
      "\n"
      "Examples:\n"
      "  CUDNNENV_VERSION=9.19 srun --task-prolog=\"$(command -v cudnnenv-task-prolog)\" -N2 ./train\n"
      "  cudnnenv slurm task-prolog --cudnn 9.19     see what a task gets");
  task->callback(
      [prolog, &context] { context.action = [prolog, &context] { return run_task_prolog(*prolog, context); }; });

  auto health = std::make_shared<HealthArguments>();
  CLI::App* check = slurm->add_subcommand(
      "health", "check the store's trees (or those named) for HealthCheckProgram or Prolog; one line on failure");
  check->add_option("trees", health->trees, "trees, specs or profiles to check (default: every tree of the store)");
  check->add_option("--level", health->level, "files, load (default) or conv")
      ->check(CLI::IsMember(util::names_of(k_verify_levels)));
  check->add_option("--device", health->device, "the GPUs of --level conv: an index, a list (0,2) or all");
  check->add_flag("--drain", health->drain, "on failure, drain the node with the line as its reason (scontrol)");
  check->add_flag("--resume", health->resume,
                  "when every tree passes, resume the node if cudnnenv drained it (a reason of another is left)");
  check->add_option("--node", health->node, "the node to drain or resume (default: SLURMD_NODENAME)");
  check->add_option("--scontrol", health->scontrol, "the scontrol program (default: scontrol on PATH)")->group("");
  check->footer(
      "Exit code: 0 when every tree passes, 4 with one line on stdout (the first failure) when one does not.\n"
      "A pass is remembered by each file's size, time and id: a run where nothing changed reads no file\n"
      "(a few ms); the first run, or one after a change, reads every file of every tree (seconds for a\n"
      "CUDA runtime's 1.6 GB). A run while another holds the lock exits at once with 0.\n"
      "\n"
      "Examples:\n"
      "  HealthCheckProgram=/usr/local/sbin/cudnnenv-health   a script: exec cudnnenv slurm health --drain --resume\n"
      "  cudnnenv slurm health 9.19 --level conv --device all");
  check->callback([health, &context] { context.action = [health, &context] { return run_health(*health, context); }; });
}

}  // namespace cudnnenv::cli
