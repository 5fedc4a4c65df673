// Slurm's doors: the task prolog (`srun --task-prolog`, `TaskProlog=`) and
// the SPANK plugin (shim/cudnnenv_spank.c, which runs `cudnnenv slurm
// task-prolog` in each task and applies its lines) render the one launch
// environment (pin/launch's plan_environment) in the task prolog's
// protocol; `slurm health` says a node's trouble in one line for the node's
// reason.
#pragma once

#include <string>
#include <string_view>

#include "pin/launch.hpp"
#include "util/environment.hpp"
#include "util/result.hpp"

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

}  // namespace cudnnenv
