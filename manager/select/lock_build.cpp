#include "select/lock_build.hpp"

#include <algorithm>
#include <cctype>

#include "download/runtime.hpp"
#include "formats/version.hpp"
#include "select/profile.hpp"
#include "store/official.hpp"
#include "store/runtime.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace {

bool upgrading(const LockSources& sources, std::string_view package) {
  return sources.upgrade_all || std::find(sources.upgrade_packages.begin(), sources.upgrade_packages.end(), package) !=
                                    sources.upgrade_packages.end();
}

// Whether runtime release `release` ("13.0.2") is what `asked` names: that release, or its version ("13.0", "13").
bool release_fits(const std::string& release, const std::string& asked) {
  return release == asked || util::starts_with(release, asked + ".");
}

// The official archive `project` selects for `platform`, from the official list alone (nothing installed here
// counts, and no toolkit: every machine resolves alike).
Result<const OfficialArchive*> locked_archive(const ProjectFile& project, const std::string& platform,
                                              const LockSources& sources) {
  const Platform target = lock_platform(platform);
  std::string text;
  std::optional<std::string> cuda;
  if (project.profile) {
    CUDNNENV_TRY_ASSIGN(profile, find_profile(*project.profile, target.os, sources.config_files));
    text = profile->cudnn;
    cuda = profile->cuda;
  } else {
    text = *project.cudnn;
    cuda = project.cuda;
  }
  CUDNNENV_TRY_ASSIGN(spec, parse_spec(text, cuda ? std::optional<std::string_view>(*cuda) : std::nullopt));
  // The pin the lock holds, while it is an official archive the spec still takes.
  if (const LockedArchive* pinned = sources.previous ? sources.previous->for_platform(platform) : nullptr;
      pinned && !upgrading(sources, "cudnn")) {
    if (const OfficialArchive* kept = find_official_by_sha256(pinned->sha256)) {
      const auto fitting = available_archives(target, &*spec, spec->cuda);
      if (std::find(fitting.begin(), fitting.end(), kept) != fitting.end()) return kept;
    }
  }
  Result<const OfficialArchive*> archive = make_error("", "");
  if (sources.node && official_platform(sources.node->platform) == platform) {
    archive = sources.node->choose(*spec);
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
Result<LockedRuntime> locked_runtime(const std::string& release_text, const std::string& platform,
                                     const LockSources& sources) {
  if (const LockedRuntime* pinned = sources.previous ? sources.previous->runtime_for(platform) : nullptr;
      pinned && !upgrading(sources, "cuda") && release_fits(pinned->release, release_text)) {
    return *pinned;
  }
  CUDNNENV_TRY_ASSIGN(
      release, find_cuda_release(release_text, lock_platform(platform), sources.cuda_index, sources.download, true));
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
Result<std::optional<LockedRuntime>> project_runtime(const ProjectFile& project, const std::string& platform,
                                                     const LockSources& sources) {
  const Platform target = lock_platform(platform);
  if (project.profile) {
    CUDNNENV_TRY_ASSIGN(profile, find_profile(*project.profile, target.os, sources.config_files));
    if (profile->runtime_libraries(target.os).empty()) return std::optional<LockedRuntime>();
    const auto asked = parse_cuda_version(profile->cuda);
    if (!asked) return make_error("the profile " + profile->name + " has no CUDA version", "cudnnenv profile list");
    CUDNNENV_TRY_ASSIGN(choice,
                        runtime_release_for(*asked, known_cuda_releases(sources.cuda_index), profile->framework));
    // A kept pin of the profile's CUDA version (13.0: 13.0.1 while 13.0.2 came out) stays.
    const std::string version = asked->str();
    const LockedRuntime* pinned = sources.previous ? sources.previous->runtime_for(platform) : nullptr;
    CUDNNENV_TRY_ASSIGN(
        runtime, locked_runtime(pinned && release_fits(pinned->release, version) ? version : choice->release, platform,
                                sources));
    return std::optional<LockedRuntime>(std::move(*runtime));
  }
  if (!project.runtime) return std::optional<LockedRuntime>();
  if (!parse_version(*project.runtime)) {
    return make_error(util::to_utf8(project.file) + " names the runtime tree '" + util::printable(*project.runtime) +
                          "' by its name, which no other machine has",
                      "name its CUDA release instead (runtime = \"13.0.2\"), then run 'cudnnenv lock' again",
                      ExitCode::usage);
  }
  CUDNNENV_TRY_ASSIGN(runtime, locked_runtime(*project.runtime, platform, sources));
  return std::optional<LockedRuntime>(std::move(*runtime));
}

// The tree of `row` that `project` names (nccl = "2.28") on `platform`: the lock's pin while it still fits,
// else the newest tree installed here of that release and platform that came from an archive or a wheel (no index
// lists these rows' archives). None where the row has no build for the platform (NCCL on Windows).
Result<std::optional<LockedTree>> project_tree(const ProjectFile& project, const ComponentRow& row,
                                               const std::string& platform, const LockSources& sources) {
  const auto named = project.components.find(row.kind);
  if (named == project.components.end()) return std::optional<LockedTree>();
  const Platform target = lock_platform(platform);
  if (target.os == Os::windows && row.trees->no_windows_build) return std::optional<LockedTree>();
  const std::string& text = named->second;
  const std::string key(row.json_key);
  // A release ("2.28.9"), or its start ("2.28", "10"): what find_component matches by release.
  const bool by_release = !text.empty() && std::isdigit(static_cast<unsigned char>(text.front())) &&
                          std::all_of(text.begin(), text.end(),
                                      [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
  if (!by_release) {
    std::string release = "RELEASE";
    for (const auto& tree : sources.installed) {
      if (tree.kind == row.kind && tree.name == text) release = tree.version.str();
    }
    return make_error(util::to_utf8(project.file) + " names the " + std::string(row.noun) + " tree '" +
                          util::printable(text) + "' by its name, which no other machine has",
                      "name its release instead (" + key + " = \"" + release + "\"), then run 'cudnnenv lock' again",
                      ExitCode::usage);
  }
  if (const LockedTree* pinned = sources.previous ? sources.previous->tree_for(row.kind, platform) : nullptr;
      pinned && !upgrading(sources, key) && release_fits(pinned->release, text)) {
    return std::optional<LockedTree>(*pinned);
  }
  const TreeRecord* best = nullptr;
  for (const auto& tree : sources.installed) {
    if (tree.kind != row.kind || official_platform(tree.platform) != platform || tree.source.sha256.empty() ||
        !release_fits(tree.version.str(), text)) {
      continue;
    }
    if (!best || best->version < tree.version) best = &tree;
  }
  if (!best) {
    return make_error("for " + platform + ": no " + std::string(row.noun) + " tree installed here is " + text +
                          " from an archive or a wheel, and no index lists " + std::string(row.noun) +
                          "'s archives: a lock names the file such a tree came from",
                      "cudnnenv install " + key + " FILE  (NVIDIA's archive or wheel of " + std::string(row.noun) +
                          " " + text + " for " + platform + "), then 'cudnnenv lock' again",
                      ExitCode::not_found);
  }
  LockedTree locked;
  locked.kind = row.kind;
  locked.platform = platform;
  locked.release = best->version.str();
  if (best->cuda) locked.cuda = best->cuda->str();
  locked.file = util::to_utf8(util::path_from_utf8(best->source.path).filename());
  if (row.trees->archive_url) locked.url = row.trees->archive_url(locked.file);
  std::error_code ec;
  const auto size = std::filesystem::file_size(util::path_from_utf8(best->source.path), ec);
  locked.size = ec ? 0 : size;
  locked.sha256 = best->source.sha256;
  return std::optional<LockedTree>(std::move(locked));
}

}  // namespace

std::vector<std::string> lock_packages() {
  std::vector<std::string> packages{"cudnn", "cuda"};
  for (const ComponentRow* row : named_rows()) packages.emplace_back(row->json_key);
  return packages;
}

Result<LockFile> make_lock(const ProjectFile& project, const LockSources& sources) {
  LockFile lock;
  lock.file = lock_path_for(project.file);
  lock.input = lock_input_of(project);
  if (lock.input.platforms.empty()) {
    const std::string here = official_platform(sources.node ? sources.node->platform : host_platform());
    if (here.empty()) {
      return make_error(
          "NVIDIA ships no cuDNN archive for this platform",
          "name the platforms in " + util::to_utf8(project.file) + ": [lock] platforms = [\"linux-x86_64\"]",
          ExitCode::not_found);
    }
    lock.input.platforms.push_back(here);
  }
  for (const auto& platform : lock.input.platforms) {
    CUDNNENV_TRY_ASSIGN(runtime, project_runtime(project, platform, sources));
    if (*runtime) lock.runtime.push_back(std::move(**runtime));
    CUDNNENV_TRY_ASSIGN(archive, locked_archive(project, platform, sources));
    lock.cudnn.push_back(LockedArchive{platform, std::string((*archive)->version),
                                       std::string((*archive)->cuda_variant), std::string((*archive)->file_name),
                                       std::string((*archive)->url), (*archive)->size,
                                       std::string((*archive)->sha256)});
    for (const ComponentRow* row : named_rows()) {
      CUDNNENV_TRY_ASSIGN(tree, project_tree(project, *row, platform, sources));
      if (*tree) lock.trees.push_back(std::move(**tree));
    }
  }
  return lock;
}

std::vector<std::string> lock_updates(const LockFile& previous, const LockFile& now) {
  std::vector<std::string> lines;
  for (const auto& platform : now.input.platforms) {
    const LockedArchive* was = previous.for_platform(platform);
    const LockedArchive* is = now.for_platform(platform);
    if (is && was && was->sha256 != is->sha256) {
      lines.push_back("Updated cudnn " + was->version + " (" + was->cuda + ") -> " + is->version + " (" + is->cuda +
                      ") (" + platform + ")");
    } else if (is && !was) {
      lines.push_back("Added cudnn " + is->version + " (" + is->cuda + ") (" + platform + ")");
    }
    const LockedRuntime* runtime_was = previous.runtime_for(platform);
    const LockedRuntime* runtime_is = now.runtime_for(platform);
    if (runtime_was && runtime_is && runtime_was->manifest_sha256 != runtime_is->manifest_sha256) {
      lines.push_back("Updated cuda " + runtime_was->release + " -> " + runtime_is->release + " (" + platform + ")");
    } else if (runtime_is && !runtime_was) {
      lines.push_back("Added cuda " + runtime_is->release + " (" + platform + ")");
    } else if (runtime_was && !runtime_is) {
      lines.push_back("Removed cuda " + runtime_was->release + " (" + platform + ")");
    }
  }
  for (const ComponentRow* row : named_rows()) {
    const std::string key(row->json_key);
    for (const auto& is : now.trees) {
      const LockedTree* was = previous.tree_for(row->kind, is.platform);
      if (is.kind != row->kind) continue;
      if (was && was->sha256 != is.sha256) {
        lines.push_back("Updated " + key + " " + was->release + " -> " + is.release + " (" + is.platform + ")");
      } else if (!was) {
        lines.push_back("Added " + key + " " + is.release + " (" + is.platform + ")");
      }
    }
    for (const auto& was : previous.trees) {
      if (was.kind == row->kind && !now.tree_for(row->kind, was.platform)) {
        lines.push_back("Removed " + key + " " + was.release + " (" + was.platform + ")");
      }
    }
  }
  for (const auto& was : previous.cudnn) {
    if (!now.for_platform(was.platform)) {
      lines.push_back("Removed cudnn " + was.version + " (" + was.cuda + ") (" + was.platform + ")");
    }
  }
  return lines;
}

std::optional<std::string> lock_disagreement(const LockFile& lock) {
  std::vector<std::string> versions;
  std::string which;
  for (const auto& archive : lock.cudnn) {
    const std::string release = archive.version.substr(0, archive.version.rfind('.'));  // 9.20.0.48: 9.20.0
    if (std::find(versions.begin(), versions.end(), release) == versions.end()) versions.push_back(release);
    which += (which.empty() ? "" : ", ") + archive.version + " (" + archive.platform + ")";
  }
  if (versions.size() < 2) return std::nullopt;
  std::sort(versions.begin(), versions.end(),
            [](const std::string& a, const std::string& b) { return *parse_version(a) < *parse_version(b); });
  return "the platforms lock different cuDNN releases: " + which + "; to make them agree, name one in " +
         util::to_utf8(lock.file.parent_path() / k_project_file_name) + ": cudnn = \"" + versions.front() +
         "\" (one every platform has), then run 'cudnnenv lock'";
}

Result<SyncPlan> plan_sync(const fs::path& folder, SyncMode mode, const LockSources& sources, bool allow_unverified) {
  CUDNNENV_TRY_ASSIGN(project, lockable_project(folder));
  const fs::path lock_file = lock_path_for(project->file);
  const char* flag = mode == SyncMode::locked ? "--locked" : "--frozen";
  SyncPlan plan;
  std::error_code ec;
  if (fs::exists(lock_file, ec)) {
    CUDNNENV_TRY_ASSIGN(read, read_lock(lock_file));
    plan.lock = std::move(*read);
    if (mode != SyncMode::frozen) {
      if (const auto differences = lock_differences(plan.lock.input, lock_input_of(*project)); !differences.empty()) {
        if (mode == SyncMode::locked) {
          return make_error("'" + util::to_utf8(lock_file) + "' no longer matches '" + util::to_utf8(project->file) +
                                "': " + util::join(differences, "; "),
                            "cudnnenv lock  (then commit cudnnenv.lock)", ExitCode::failure);
        }
        LockSources kept = sources;
        kept.previous = &plan.lock;  // its pins stay where the project file still takes them, as `lock` keeps them
        CUDNNENV_TRY_ASSIGN(fresh, make_lock(*project, kept));
        CUDNNENV_TRY(write_lock(*fresh));
        plan.rewritten = util::join(differences, "; ");
        plan.lock = std::move(*fresh);
      }
    }
  } else if (mode != SyncMode::update) {
    return make_error(std::string(flag) + " needs a lock, and '" + util::to_utf8(lock_file) + "' does not exist",
                      "cudnnenv lock", ExitCode::not_found);
  } else {
    // No lock: what the project file selects, resolved as `lock` would, for this platform alone.
    CUDNNENV_TRY_ASSIGN(made, make_lock(*project, sources));
    plan.lock = std::move(*made);
  }
  const std::string here = official_platform(host_platform());
  const LockedArchive* locked = plan.lock.for_platform(here);
  if (!locked) {
    return make_error(
        "'" + util::to_utf8(lock_file) + "' locks no build for " + here,
        "add \"" + here + "\" to [lock] platforms in '" + util::to_utf8(project->file) + "', then run 'cudnnenv lock'",
        ExitCode::not_found);
  }
  CUDNNENV_TRY_ASSIGN(archive, locked_official_archive(*locked, allow_unverified));
  plan.archive = *archive;
  if (const LockedRuntime* runtime = plan.lock.runtime_for(here)) plan.runtime = *runtime;
  for (const auto& tree : plan.lock.trees) {
    if (tree.platform == here) plan.trees.push_back(tree);
  }
  return plan;
}

}  // namespace cudnnenv
