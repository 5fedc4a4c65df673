#include "integrate/slurm.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "pin/pin_policy.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

// The files of `tree` a check reads: its record's (every file of an installed
// or adopted tree), else those in its library folder.
std::vector<fs::path> files_of(const TreeRecord& tree) {
  std::vector<fs::path> files;
  for (const auto& file : tree.files) files.push_back(tree.resolve(file.path));
  if (files.empty()) {
    for (const auto& entry : util::directory_entries(tree.resolve(tree.layout.library_dir)))
      files.push_back(entry.path);
  }
  return files;
}

// "what|stamps": `what` names the check (level, GPUs, tree, runtime), `stamps`
// is the SHA-256 of each file's path and stamp (and the driver's for conv);
// empty when a file cannot be read (then nothing is remembered).
std::string health_key(const VerifyTarget& target, const VerifyOptions& options) {
  std::string what = std::string(util::name_of(k_verify_levels, options.level)) + " " + options.devices + " " +
                     target.tree.name + "@" + target.tree.installed_at;
  std::vector<fs::path> files = files_of(target.tree);
  if (target.runtime) {
    what += " " + target.runtime->name + "@" + target.runtime->installed_at;
    const auto more = files_of(*target.runtime);
    files.insert(files.end(), more.begin(), more.end());
  }
  util::Sha256 stamps;
  for (const auto& file : files) {
    const auto stamp = util::file_stamp(file);
    if (!stamp) return {};
    const std::string line = util::to_utf8(file) + "\t" + *stamp + "\n";
    stamps.update(line.data(), line.size());
  }
  if (options.level == VerifyLevel::conv) {
    const std::string driver = driver_identity();
    stamps.update(driver.data(), driver.size());
  }
  return what + "|" + stamps.hex_digest();
}

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

HealthOutcome check_health(const std::vector<VerifyTarget>& targets, const VerifyOptions& options,
                           const fs::path& cache_file) {
  HealthOutcome outcome;
  const auto cached = util::read_file(cache_file);
  std::vector<std::string> lines = cached ? util::split(*cached, '\n') : std::vector<std::string>{};
  std::erase(lines, std::string());
  bool changed = false;
  for (const auto& target : targets) {
    const std::string key = health_key(target, options);
    if (!key.empty() && std::find(lines.begin(), lines.end(), key) != lines.end()) {
      spdlog::debug("slurm health: '{}' passed before, nothing changed since (cache)", target.tree.name);
      ++outcome.cached;
      continue;
    }
    VerifyOptions each = options;
    each.runtime_dir = target.runtime ? target.runtime->resolve(target.runtime->layout.library_dir) : fs::path();
    const VerifyReport report = verify_tree(target.tree, each);
    ++outcome.checked;
    if (!report.passed()) {
      for (const auto& check : report.checks) {
        if (check.status != CheckStatus::failed) continue;
        outcome.trouble = "cudnnenv: tree '" + target.tree.name + "': " + check.name + ": " + check.detail;
        break;
      }
      break;
    }
    if (key.empty()) continue;
    // The older pass of the same check goes: the cache holds one line per tree and level.
    const std::string what = key.substr(0, key.rfind('|') + 1);
    std::erase_if(lines, [&](const std::string& line) { return util::starts_with(line, what); });
    lines.push_back(key);
    changed = true;
  }
  if (changed) {
    std::error_code ec;
    fs::create_directories(cache_file.parent_path(), ec);
    (void)util::write_file_atomic(cache_file, util::join(lines, "\n") + "\n");  // a cache: failing costs a recheck
  }
  return outcome;
}

namespace {

Result<util::ProcessOutcome> run_scontrol(const Scontrol& scontrol, std::vector<std::string> arguments) {
  util::ProcessSpec spec;
  spec.environment = scontrol.environment;
  if (!spec.environment.get("PATH")) spec.environment.set("PATH", "/usr/local/bin:/usr/bin:/bin");
  CUDNNENV_TRY_ASSIGN(program, find_program(scontrol.program, spec.environment, {}));
  spec.program = *program;
  spec.arguments = std::move(arguments);
  return util::run_process(spec);
}

Result<void> scontrol_update(const Scontrol& scontrol, const std::string& node, std::vector<std::string> settings,
                             const std::string& what) {
  std::vector<std::string> arguments{"update", "NodeName=" + node};
  arguments.insert(arguments.end(), settings.begin(), settings.end());
  CUDNNENV_TRY_ASSIGN(outcome, run_scontrol(scontrol, std::move(arguments)));
  if (outcome->exit_code != 0) {
    return make_error("scontrol could not " + what + " node '" + util::printable(node) +
                          "': " + util::printable(util::trim(outcome->err + outcome->out)),
                      "run it as the SlurmUser or root, as HealthCheckProgram and Prolog run");
  }
  return {};
}

}  // namespace

HealthTurn take_health_turn(const fs::path& lock_file) {
  std::error_code ec;
  fs::create_directories(lock_file.parent_path(), ec);
  auto lock = util::FileLock::try_acquire(lock_file);
  const bool another_runs = !lock && util::is_writable_directory(lock_file.parent_path());
  return HealthTurn{another_runs, std::move(lock)};
}

Result<void> drain_node(const Scontrol& scontrol, const std::string& node, const std::string& reason) {
  return scontrol_update(scontrol, node, {"State=DRAIN", "Reason=" + reason}, "drain");
}

Result<std::optional<std::string>> resume_node_drained_by_cudnnenv(const Scontrol& scontrol, const std::string& node) {
  // One line per node (-o): "NodeName=n1 ... State=IDLE+DRAIN ... Reason=text [user@time] ...".
  CUDNNENV_TRY_ASSIGN(shown, run_scontrol(scontrol, {"show", "node", node, "-o"}));
  if (shown->exit_code != 0) {
    return make_error("scontrol could not show node '" + util::printable(node) +
                          "': " + util::printable(util::trim(shown->err + shown->out)),
                      "name a node of this cluster: --node NAME");
  }
  const std::string& line = shown->out;
  const auto state = line.find(" State=");
  const auto reason_at = line.find(" Reason=cudnnenv: ");
  if (state == std::string::npos || reason_at == std::string::npos) return std::optional<std::string>();
  const std::string state_word = line.substr(state + 7, line.find(' ', state + 7) - (state + 7));
  if (state_word.find("DRAIN") == std::string::npos) return std::optional<std::string>();
  std::string reason = line.substr(reason_at + 8);
  if (const auto by = reason.find(" ["); by != std::string::npos) reason.resize(by);
  CUDNNENV_TRY(scontrol_update(scontrol, node, {"State=RESUME"}, "resume"));
  return std::optional<std::string>(util::trim(reason));
}

}  // namespace cudnnenv
