// Slurm's task prolog lines (integrate/slurm) from changes taken from the
// input: lines "NAME=VALUE" (set), "+NAME=ENTRY" (prepend), "-NAME" (unset),
// the task's environment before an empty line, the changes after it. Beyond
// not crashing: every line printed is "export NAME=VALUE" or "unset NAME",
// read back the way slurmstepd reads them (name up to the first '=', value
// to the end of the line) they give exactly the plan's environment for each
// changed name; and node_reason of the input holds no control character and
// keeps to its limit.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "integrate/slurm.hpp"
#include "util/text.hpp"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cudnnenv;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string reason = node_reason(text, 40);
  check(reason.size() <= 40);
  for (const char c : reason) check(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f);

  util::Environment before;
  LaunchPlan plan;
  bool changes = false;
  for (const auto& line : util::split(text, '\n')) {
    if (line.empty()) {
      changes = true;
      plan.environment = before;
      continue;
    }
    const bool unset = line[0] == '-';
    const bool prepend = line[0] == '+';
    const std::string body = unset || prepend ? line.substr(1) : line;
    const std::size_t equals = body.find('=');
    const std::string name = body.substr(0, equals);
    const std::string value = equals == std::string::npos ? "" : body.substr(equals + 1);
    if (!changes) {
      before.set(name, value);
      continue;
    }
    if (unset) {
      plan.changes.push_back({EnvironmentChange::Kind::unset, name, {}});
      plan.environment.unset(name);
    } else {
      plan.changes.push_back({prepend ? EnvironmentChange::Kind::prepend : EnvironmentChange::Kind::set, name, value});
      const auto old = plan.environment.get(name);
      plan.environment.set(name, prepend && old ? value + ":" + *old : value);
    }
  }
  const auto lines = task_prolog_lines(plan, before);
  if (!lines) return 0;
  util::Environment task = before;
  for (const auto& line : util::split(*lines, '\n')) {
    if (line.empty()) continue;
    if (util::starts_with(line, "export ")) {
      const std::size_t equals = line.find('=');
      check(equals != std::string::npos);
      task.set(line.substr(7, equals - 7), line.substr(equals + 1));
    } else {
      check(util::starts_with(line, "unset "));
      task.unset(line.substr(6));
    }
  }
  check(util::ends_with(*lines, "\n") || lines->empty());
  for (const auto& change : plan.changes) check(task.get(change.name) == plan.environment.get(change.name));
  return 0;
}
