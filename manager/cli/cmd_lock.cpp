// cudnnenv lock: cudnnenv.lock beside .cudnnenv.toml, the exact archive its
// selection resolves to on each platform it targets (select/lock.hpp).
#include <algorithm>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "doctor/node.hpp"
#include "download/download.hpp"
#include "download/runtime.hpp"
#include "formats/version.hpp"
#include "select/lock.hpp"
#include "select/profile.hpp"
#include "store/official.hpp"
#include "store/runtime.hpp"
#include "store/spec.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

struct LockArguments {
  bool json = false;
  bool check = false;
  bool upgrade = false;
  std::vector<std::string> upgrade_packages;
  std::string facts;
};

Json lock_to_json(const LockFile& lock) {
  Json entries = Json::array();
  for (const auto& archive : lock.cudnn) {
    entries.push_back(Json{{"platform", archive.platform},
                           {"version", archive.version},
                           {"cuda", archive.cuda},
                           {"file", archive.file},
                           {"url", archive.url},
                           {"size", archive.size},
                           {"sha256", archive.sha256}});
  }
  Json runtimes = Json::array();
  for (const auto& runtime : lock.runtime) {
    Json components = Json::array();
    for (const auto& component : runtime.components) {
      components.push_back(Json{{"name", component.name},
                                {"version", component.version},
                                {"path", component.path},
                                {"size", component.size},
                                {"sha256", component.sha256}});
    }
    runtimes.push_back(Json{{"platform", runtime.platform},
                            {"release", runtime.release},
                            {"manifest", runtime.manifest},
                            {"manifest_sha256", runtime.manifest_sha256},
                            {"components", components}});
  }
  Json result{{"lock", util::to_utf8(lock.file)}, {"cudnn", entries}, {"runtime", runtimes}};
  for (const ComponentRow* row : named_rows()) {
    Json trees = Json::array();
    for (const auto& tree : lock.trees) {
      if (tree.kind != row->kind) continue;
      trees.push_back(Json{{"platform", tree.platform},
                           {"release", tree.release},
                           {"cuda", tree.cuda},
                           {"file", tree.file},
                           {"url", tree.url},
                           {"size", tree.size},
                           {"sha256", tree.sha256}});
    }
    result[std::string(row->json_key)] = trees;
  }
  return result;
}

// lock --check: whether cudnnenv.lock is what `cudnnenv lock` would write
// now; writes nothing. Exit 1 when it is not, naming each difference.
Result<int> check_lock(const LockFile& now, const ProjectFile& project, bool json) {
  std::vector<std::string> differences;
  std::error_code ec;
  if (!fs::exists(now.file, ec)) {
    differences.push_back("there is no " + util::to_utf8(now.file.filename()));
  } else {
    CUDNNENV_TRY_ASSIGN(locked, read_lock(now.file));
    differences = lock_staleness(*locked, now);
  }
  if (json) {
    print_json(
        Json{{"file", util::to_utf8(now.file)}, {"up_to_date", differences.empty()}, {"differences", differences}});
    return differences.empty() ? 0 : 1;
  }
  if (differences.empty()) {
    print("up to date: " + util::to_utf8(now.file) + "\n");
    return 0;
  }
  return make_error("'" + util::to_utf8(now.file) + "' is not what '" + util::to_utf8(project.file) +
                        "' locks to now: " + util::join(differences, "; "),
                    "cudnnenv lock  (then commit cudnnenv.lock)");
}

Result<int> run_lock(const LockArguments& arguments, const Context& context) {
  CUDNNENV_TRY_ASSIGN(project, lockable_project(context.request().working_directory));
  std::optional<NodeFacts> node;
  if (!arguments.facts.empty()) {
    CUDNNENV_TRY_ASSIGN(read, read_node_facts_file(arguments.facts));
    node = std::move(*read);
  }
  LockSources sources = context.lock_sources();
  if (node) {
    sources.node = LockNode{node->platform, [&node = *node](const Spec& spec) -> Result<const OfficialArchive*> {
                              CUDNNENV_TRY_ASSIGN(choice, choose_archive_for_node(spec, spec.cuda, node));
                              return choice->archive;
                            }};
  }
  // The lock as it is: its pins are kept while the project file still takes them (a damaged one is resolved afresh).
  std::optional<LockFile> previous;
  if (std::error_code ec; fs::exists(lock_path_for(project->file), ec)) {
    if (auto read = read_lock(lock_path_for(project->file))) {
      previous = std::move(*read);
    } else {
      log_warning(read.error().message + ": resolved afresh");
    }
  }
  sources.previous = previous ? &*previous : nullptr;
  sources.upgrade_all = arguments.upgrade;
  sources.upgrade_packages = arguments.upgrade_packages;
  CUDNNENV_TRY_ASSIGN(lock, make_lock(*project, sources));
  if (arguments.check) return check_lock(*lock, *project, arguments.json);
  if (const auto disagreement = lock_disagreement(*lock); disagreement && !arguments.json) log_warning(*disagreement);
  if (node && !arguments.json) print_note("for " + node->describe());
  CUDNNENV_TRY_ASSIGN(wrote, write_lock(*lock));
  const bool same = !*wrote;
  if (arguments.json) {
    print_json(lock_to_json(*lock));
    return 0;
  }
  print(std::string(same ? "up to date: " : "wrote ") + util::to_utf8(lock->file) + "\n");
  if (previous) {
    for (const auto& line : lock_updates(*previous, *lock)) print(line + "\n");
  }
  const auto column = [](const std::string& platform) {
    return "  " + platform + std::string(16 - std::min<std::size_t>(platform.size(), 15), ' ');
  };
  for (const auto& archive : lock->cudnn) {
    print(column(archive.platform) + "cuDNN " + archive.version + " (" + archive.cuda + ")  " + archive.file + "\n");
  }
  for (const auto& runtime : lock->runtime) {
    print(column(runtime.platform) + "CUDA " + runtime.release + " runtime (" +
          std::to_string(runtime.components.size()) + " archives)  " + manifest_file_name(runtime.release) + "\n");
  }
  for (const auto& tree : lock->trees) {
    print(column(tree.platform) + std::string(component(tree.kind).noun) + " " + tree.release +
          (tree.cuda.empty() ? std::string() : " (CUDA " + tree.cuda + ")") + "  " + tree.file + "\n");
  }
  return 0;
}

}  // namespace

void register_lock(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<LockArguments>();
  CLI::App* command = app.add_subcommand(
      "lock", "write cudnnenv.lock: the exact cuDNN archive .cudnnenv.toml resolves to on each platform, with hashes");
  command->add_flag("--json", arguments->json, "print the lock as JSON");
  command->add_flag("--check", arguments->check,
                    "write nothing; exit 1, naming each difference, when cudnnenv.lock is not what this command "
                    "would write now (CI: the lock is committed and current)");
  command->add_flag("-U,--upgrade", arguments->upgrade,
                    "resolve every package afresh (the newest that .cudnnenv.toml takes), not keeping the lock's pins");
  command
      ->add_option("-P,--upgrade-package", arguments->upgrade_packages,
                   "resolve this package afresh, keeping the others' pins: " + util::join(lock_packages(), ", ") +
                       " (repeatable)")
      ->check(CLI::IsMember(lock_packages()));
  command->add_option("--facts", arguments->facts,
                      "lock for another machine: on the platform of the node whose snapshot this is ('cudnnenv "
                      "snapshot -o FILE' there), the archive that runs there (its driver's CUDA, its GPUs)");
  command->footer(
      "Examples:\n"
      "  cudnnenv lock                         lock this platform's build of what .cudnnenv.toml selects\n"
      "  cudnnenv lock --check                 in CI: fail when cudnnenv.lock is stale, writing nothing\n"
      "  cudnnenv lock --upgrade               move every pin to the newest build .cudnnenv.toml takes\n"
      "  cudnnenv lock -P cudnn                move the cuDNN pin alone (the runtime's stays)\n"
      "  cudnnenv sync                         install exactly that build (on another machine, in CI)\n"
      "  cudnnenv lock --facts node.json       from a login node: the build that runs on that compute node\n"
      "\n"
      "For several platforms, name them in .cudnnenv.toml:\n"
      "  [lock]\n"
      "  platforms = [\"linux-x86_64\", \"windows-x86_64\"]\n"
      "Each is resolved from the official list (data/cudnn-archives.tsv, or CUDNNENV_INDEX), not from what is\n"
      "installed here. A pin already in cudnnenv.lock stays while .cudnnenv.toml still takes it: a newer\n"
      "release comes in with --upgrade. Where the project file decides, current, exec and the shims take\n"
      "the locked build.");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_lock(*arguments, context); }; });
}

}  // namespace cudnnenv::cli
