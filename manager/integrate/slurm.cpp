#include "integrate/slurm.hpp"

#include <algorithm>

#include "util/text.hpp"

namespace cudnnenv {

namespace {

bool holds_line_break(std::string_view text) {
  return text.find_first_of("\r\n") != std::string_view::npos;
}

}  // namespace

Result<std::string> task_prolog_lines(const LaunchPlan& plan, const util::Environment& before) {
  std::vector<std::string> names;
  for (const auto& change : plan.changes) {
    if (std::find(names.begin(), names.end(), change.name) == names.end()) names.push_back(change.name);
  }
  std::string lines;
  for (const auto& name : names) {
    if (name.empty() || holds_line_break(name) || name.find_first_of("= \t") != std::string::npos) {
      return make_error("the variable name '" + util::printable(name) + "' cannot pass through Slurm's task prolog",
                        "give the variable a name of letters, digits and '_' in the project file's [env]",
                        ExitCode::usage);
    }
    const auto value = plan.environment.get(name);
    if (!value) {
      if (before.get(name)) lines += "unset " + name + "\n";
      continue;
    }
    if (holds_line_break(*value)) {
      return make_error("the value of " + name + " ('" + util::printable(*value) +
                            "') holds a line break, which Slurm's task prolog cannot pass",
                        "move the store (--root) to a path without one, or take the line break out of [env]",
                        ExitCode::usage);
    }
    lines += "export " + name + "=" + *value + "\n";
  }
  return lines;
}

std::string node_reason(std::string_view text, std::size_t limit) {
  std::string reason;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    reason += byte < 0x20 || byte == 0x7f ? ' ' : c;
  }
  if (reason.size() <= limit) return reason;
  std::size_t cut = limit >= 3 ? limit - 3 : 0;
  while (cut > 0 && (static_cast<unsigned char>(reason[cut]) & 0xC0) == 0x80) --cut;
  return reason.substr(0, cut) + "...";
}

}  // namespace cudnnenv
