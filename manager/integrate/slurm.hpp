// Slurm's doors: the task prolog (`srun --task-prolog`, `TaskProlog=`) and
// the SPANK plugin (shim/cudnnenv_spank.c, which runs `cudnnenv slurm
// task-prolog` in each task and applies its lines) render the one launch
// environment (pin/launch's plan_environment) in the task prolog's
// protocol; `slurm health` says a node's trouble in one line for the node's
// reason.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pin/launch.hpp"
#include "select/targets.hpp"
#include "util/environment.hpp"
#include "util/fs.hpp"
#include "util/result.hpp"
#include "verify/verify.hpp"

namespace cudnnenv {

// The lines of Slurm's task prolog protocol that turn `before` (the task's
// environment) into `plan.environment`: "export NAME=value" for each
// variable the plan sets or extends (its whole value, as the task gets it),
// "unset NAME" for each it removes, in the order the plan first changes
// them. Slurm takes the rest of an export line as the value, unquoted: a
// value or name holding a line break (or a name holding '=' or a space)
// cannot pass and is refused (exit code 2), naming the variable.
Result<std::string> task_prolog_lines(const LaunchPlan& plan, const util::Environment& before);

// `text` as one line for a node's reason (scontrol's Reason=): line breaks
// and control characters become spaces, and it is cut to `limit` bytes on a
// UTF-8 boundary with "..." at the end when longer.
std::string node_reason(std::string_view text, std::size_t limit = 200);

// What `slurm health` found: the first failed check as one sentence (empty:
// every tree passed), and how many trees were checked now and how many
// passed before with nothing changed since.
struct HealthOutcome {
  std::string trouble;
  std::size_t checked = 0;
  std::size_t cached = 0;
};

// Each target verified at `options.level`, stopping at the first failure. A
// pass is remembered in `cache_file` by the stamp (size, modification time,
// file id: util::file_stamp) of every file of the tree and of its runtime,
// with the level, the GPUs and, for `conv`, the driver's identity: a run in
// which nothing changed stats each file and reads, hashes and loads nothing.
HealthOutcome check_health(const std::vector<VerifyTarget>& targets, const VerifyOptions& options,
                           const std::filesystem::path& cache_file);

// One `slurm health` at a time (slurmd starts one at every interval, whether
// or not the last has ended): whether another run holds `lock_file` now
// (then this one should exit), else this run's hold on it. Where the folder
// cannot be written (a user's run on a shared store) there is no lock to
// take, and the run goes on unguarded.
struct HealthTurn {
  bool another_runs = false;
  std::optional<util::FileLock> lock;
};
HealthTurn take_health_turn(const std::filesystem::path& lock_file);

// scontrol, run as `scontrol` found with `environment`'s PATH (slurmd gives
// HealthCheckProgram none: then the system's folders).
struct Scontrol {
  std::string program = "scontrol";
  util::Environment environment;
};

// Drains `node` with `reason` (node_reason's line).
Result<void> drain_node(const Scontrol& scontrol, const std::string& node, const std::string& reason);

// Resumes `node` when it is drained with a reason cudnnenv gave (starting
// "cudnnenv: "), as LBNL NHC resumes what it drained itself; a node drained
// for another reason, or not drained, is left as it is. Returns the reason
// it was drained with when it resumed it.
Result<std::optional<std::string>> resume_node_drained_by_cudnnenv(const Scontrol& scontrol, const std::string& node);

}  // namespace cudnnenv
