#include "select/lock_build.hpp"

#include <algorithm>

#include "download/runtime.hpp"
#include "formats/version.hpp"
#include "select/profile.hpp"
#include "store/official.hpp"
#include "store/runtime.hpp"
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

}  // namespace

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

}  // namespace cudnnenv
