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

// The official archive `project` selects for `platform`, from the official list alone (nothing installed here
// counts, and no toolkit: every machine resolves alike).
Result<const OfficialArchive*> locked_archive(const Context& context, const ProjectFile& project,
                                              const std::string& platform, const NodeFacts* node) {
  const Platform target = platform_named(platform);
  std::string text;
  std::optional<std::string> cuda;
  if (project.profile) {
    CUDNNENV_TRY_ASSIGN(profile, find_profile(*project.profile, target.os, config_files(context.store())));
    text = profile->cudnn;
    cuda = profile->cuda;
  } else {
    text = *project.cudnn;
    cuda = project.cuda;
  }
  CUDNNENV_TRY_ASSIGN(spec, parse_spec(text, cuda ? std::optional<std::string_view>(*cuda) : std::nullopt));
  Result<const OfficialArchive*> archive = make_error("", "");
  if (node && official_platform(node->platform) == platform) {
    auto choice = choose_archive_for_node(*spec, spec->cuda, *node);
    archive = choice ? Result<const OfficialArchive*>(choice->archive) : std::move(choice).error();
  } else {
    archive = choose_archive(target, *spec, spec->cuda, {});
  }
  if (!archive) {
    Error error = std::move(archive).error();
    return make_error("for " + platform + ": " + error.message,
                      project.profile ? error.hint
                                      : "say which CUDA in " + util::to_utf8(project.file) +
                                            " (cuda = \"13\"), or another version, then run 'cudnnenv lock' again",
                      error.code);
  }
  if ((*archive)->sha256.empty()) {
    return make_error("for " + platform + ": the official list has no SHA-256 for " +
                          std::string((*archive)->file_name) + ", so a lock cannot pin its bytes",
                      "choose another version in " + util::to_utf8(project.file), ExitCode::not_found);
  }
  return *archive;
}

// The CUDA runtime `release` names ("13.0", "13.0.2": the newest that fits) on `platform`, as its manifest names
// it, from CUDNNENV_CUDA_INDEX, the embedded table of pinned releases, or a download (checked against its pin), as
// `install cuda` takes it.
Result<LockedRuntime> locked_runtime(const Context& context, const std::string& release_text,
                                     const std::string& platform) {
  const DownloadOptions options = base_download_options(context, "", true);
  CUDNNENV_TRY_ASSIGN(release, find_cuda_release(release_text, platform_named(platform),
                                                 cuda_index(context.environment), options, true));
  LockedRuntime runtime;
  runtime.platform = platform;
  runtime.release = release->release.str();
  runtime.manifest = std::string(k_cuda_redist_url) + manifest_file_name(runtime.release);
  runtime.manifest_sha256 = release->manifest_sha256;
  for (const auto& component : runtime_components(release->release.major)) {
    const auto found = std::find_if(release->manifest.archives.begin(), release->manifest.archives.end(),
                                    [&](const RedistArchive& archive) { return archive.component == component; });
    if (found == release->manifest.archives.end()) {
      return make_error("for " + platform + ": the manifest of CUDA " + runtime.release + " has no " + component,
                        "name another CUDA release", ExitCode::not_found);
    }
    runtime.components.push_back({found->component, found->version, found->relative_path, found->size, found->sha256});
  }
  return runtime;
}

// The runtime the project needs on `platform`: its profile's (the release `install PROFILE` takes; none where the
// framework opens no runtime there), or its runtime = "..." (a release; a tree's name cannot be locked).
Result<std::optional<LockedRuntime>> project_runtime(const Context& context, const ProjectFile& project,
                                                     const std::string& platform) {
  const Platform target = platform_named(platform);
  if (project.profile) {
    CUDNNENV_TRY_ASSIGN(profile, find_profile(*project.profile, target.os, config_files(context.store())));
    if (profile->runtime_libraries(target.os).empty()) return std::optional<LockedRuntime>();
    const auto asked = parse_cuda_version(profile->cuda);
    if (!asked) return make_error("the profile " + profile->name + " has no CUDA version", "cudnnenv profile list");
    CUDNNENV_TRY_ASSIGN(
        choice, runtime_release_for(*asked, known_cuda_releases(cuda_index(context.environment)), profile->framework));
    CUDNNENV_TRY_ASSIGN(runtime, locked_runtime(context, choice->release, platform));
    return std::optional<LockedRuntime>(std::move(*runtime));
  }
  if (!project.runtime) return std::optional<LockedRuntime>();
  if (!parse_version(*project.runtime)) {
    return make_error(util::to_utf8(project.file) + " names the runtime tree '" + util::printable(*project.runtime) +
                          "' by its name, which no other machine has",
                      "name its CUDA release instead (runtime = \"13.0.2\"), then run 'cudnnenv lock' again",
                      ExitCode::usage);
  }
  CUDNNENV_TRY_ASSIGN(runtime, locked_runtime(context, *project.runtime, platform));
  return std::optional<LockedRuntime>(std::move(*runtime));
}

struct LockArguments {
  bool json = false;
  bool check = false;
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
  return Json{{"lock", util::to_utf8(lock.file)}, {"cudnn", entries}, {"runtime", runtimes}};
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
  CUDNNENV_TRY_ASSIGN(project, project_here(context));
  std::optional<NodeFacts> node;
  if (!arguments.facts.empty()) {
    CUDNNENV_TRY_ASSIGN(read, read_node_facts_file(arguments.facts));
    node = std::move(*read);
  }
  CUDNNENV_TRY_ASSIGN(lock, make_lock(context, *project, node ? &*node : nullptr));
  if (arguments.check) return check_lock(*lock, *project, arguments.json);
  if (node && !arguments.json) print_note("for " + node->describe());
  const std::string text = serialize_lock(*lock);
  std::error_code ec;
  bool same = false;
  if (fs::exists(lock->file, ec)) {
    const auto existing = util::read_file(lock->file, k_max_lock_file);
    same = existing && *existing == text;
  }
  if (!same) CUDNNENV_TRY(util::write_file_atomic(lock->file, text));
  if (arguments.json) {
    print_json(lock_to_json(*lock));
    return 0;
  }
  print(std::string(same ? "up to date: " : "wrote ") + util::to_utf8(lock->file) + "\n");
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
  return 0;
}

}  // namespace

Platform platform_named(const std::string& name) {
  if (name == "windows-x86_64") return {Os::windows, Arch::x86_64};
  if (name == "linux-sbsa") return {Os::linux, Arch::arm64};
  return {Os::linux, Arch::x86_64};
}

Result<ProjectFile> project_here(const Context& context) {
  const auto file = find_project_file(context.request().working_directory);
  if (!file) {
    return make_error("no .cudnnenv.toml here or in a folder above",
                      "cudnnenv use 9.19 --local  (writes one naming the cuDNN this project needs)",
                      ExitCode::not_found);
  }
  CUDNNENV_TRY_ASSIGN(project, read_project_file(*file));
  if (project->path) {
    return make_error(util::to_utf8(*file) + " names a folder (path = \"" + util::printable(*project->path) +
                          "\"), which no lock or sync can fetch",
                      "name a version instead: cudnn = \"9.19\"", ExitCode::usage);
  }
  if (!project->cudnn && !project->profile) {
    return make_error(util::to_utf8(*file) + " names no cuDNN (cudnn = \"...\" or profile = \"...\")",
                      "cudnnenv use 9.19 --local", ExitCode::not_found);
  }
  return project;
}

Result<LockFile> make_lock(const Context& context, const ProjectFile& project, const NodeFacts* node) {
  LockFile lock;
  lock.file = lock_path_for(project.file);
  lock.input = lock_input_of(project);
  if (lock.input.platforms.empty()) {
    const std::string here = official_platform(node ? node->platform : host_platform());
    if (here.empty()) {
      return make_error(
          "NVIDIA ships no cuDNN archive for this platform",
          "name the platforms in " + util::to_utf8(project.file) + ": [lock] platforms = [\"linux-x86_64\"]",
          ExitCode::not_found);
    }
    lock.input.platforms.push_back(here);
  }
  for (const auto& platform : lock.input.platforms) {
    CUDNNENV_TRY_ASSIGN(runtime, project_runtime(context, project, platform));
    if (*runtime) lock.runtime.push_back(std::move(**runtime));
    CUDNNENV_TRY_ASSIGN(archive, locked_archive(context, project, platform, node));
    lock.cudnn.push_back(LockedArchive{platform, std::string((*archive)->version),
                                       std::string((*archive)->cuda_variant), std::string((*archive)->file_name),
                                       std::string((*archive)->url), (*archive)->size,
                                       std::string((*archive)->sha256)});
  }
  return lock;
}

void register_lock(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<LockArguments>();
  CLI::App* command = app.add_subcommand(
      "lock", "write cudnnenv.lock: the exact cuDNN archive .cudnnenv.toml resolves to on each platform, with hashes");
  command->add_flag("--json", arguments->json, "print the lock as JSON");
  command->add_flag("--check", arguments->check,
                    "write nothing; exit 1, naming each difference, when cudnnenv.lock is not what this command "
                    "would write now (CI: the lock is committed and current)");
  command->add_option("--facts", arguments->facts,
                      "lock for another machine: on the platform of the node whose snapshot this is ('cudnnenv "
                      "snapshot -o FILE' there), the archive that runs there (its driver's CUDA, its GPUs)");
  command->footer(
      "Examples:\n"
      "  cudnnenv lock                         lock this platform's build of what .cudnnenv.toml selects\n"
      "  cudnnenv lock --check                 in CI: fail when cudnnenv.lock is stale, writing nothing\n"
      "  cudnnenv sync                         install exactly that build (on another machine, in CI)\n"
      "  cudnnenv lock --facts node.json       from a login node: the build that runs on that compute node\n"
      "\n"
      "For several platforms, name them in .cudnnenv.toml:\n"
      "  [lock]\n"
      "  platforms = [\"linux-x86_64\", \"windows-x86_64\"]\n"
      "Each is resolved from the official list (data/cudnn-archives.tsv, or CUDNNENV_INDEX), not from what is\n"
      "installed here. Where the project file decides, current, exec and the shims take the locked build.");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_lock(*arguments, context); }; });
}

}  // namespace cudnnenv::cli
