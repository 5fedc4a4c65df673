// Building a lock: the exact cuDNN archive, and the CUDA runtime's manifest
// and archives, that a project file resolves to on each platform it targets,
// from the official list and the CUDA manifests alone (nothing installed
// here counts, and no toolkit: every machine resolves alike). `lock` writes
// it; `sync` builds one where the project has none, or its lock is stale.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "download/download.hpp"
#include "formats/platform.hpp"
#include "select/lock.hpp"
#include "store/spec.hpp"
#include "util/result.hpp"

namespace cudnnenv {

// A node a snapshot describes (lock --facts): the platform a project that
// names none locks, and on it the archive that runs there (its driver and
// toolkits), chosen by `choose`.
struct LockNode {
  Platform platform;
  std::function<Result<const OfficialArchive*>(const Spec& spec)> choose;
};

// Where a lock's entries come from.
struct LockSources {
  std::vector<std::filesystem::path> config_files;  // whose [profiles] apply (config_files)
  std::optional<std::filesystem::path> cuda_index;  // CUDNNENV_CUDA_INDEX
  DownloadOptions download;                         // how a CUDA manifest not built in is fetched
  std::optional<LockNode> node;
  // The lock as it is (none: there is none): each pin it holds that still
  // satisfies the project file is kept (uv's and pixi's rule), unless upgraded.
  const LockFile* previous = nullptr;
  // lock --upgrade (all: every package) or --upgrade-package cudnn|cuda|nccl|...: resolved afresh.
  bool upgrade_all = false;
  std::vector<std::string> upgrade_packages;
  // The trees installed here of the rows that have no index (named_rows:
  // NCCL, TensorRT): a lock names the archive or wheel the one the project
  // selects came from.
  std::vector<TreeRecord> installed;
};

// The packages --upgrade-package takes: "cudnn", "cuda" (the runtime), then
// each named row (named_rows)'s JSON key ("nccl", "tensorrt").
std::vector<std::string> lock_packages();

// The lock for `project`: each platform it targets (none: this machine's,
// or the node's) resolved from `sources`, keeping sources.previous's pins.
Result<LockFile> make_lock(const ProjectFile& project, const LockSources& sources);

// What changed from `previous` to `now`, a line each:
// "Updated cudnn 9.20.0.48 -> 9.21.0.82 (linux-x86_64)", "Added ...", "Removed ...".
std::vector<std::string> lock_updates(const LockFile& previous, const LockFile& now);

// When the platforms of `lock` lock different cuDNN versions, what to say:
// which locks which, and the line of .cudnnenv.toml that makes them agree.
std::optional<std::string> lock_disagreement(const LockFile& lock);

// What `sync` installs on this platform, read from the project in `folder`
// and its lock: the lock as it is (`frozen`); refused, naming each
// difference, when it no longer matches the project file (`locked`); else
// written again first when it does not (keeping the pins that still hold).
// Without a lock file (refused with `locked` or `frozen`), what the project
// resolves to, written nowhere.
enum class SyncMode { update, locked, frozen };
struct SyncPlan {
  LockFile lock;
  std::optional<std::string> rewritten;  // the differences, when the lock was written again
  OfficialArchive archive;               // cuDNN's, as the lock names it
  std::optional<LockedRuntime> runtime;  // this platform's
  std::vector<LockedTree> trees;         // this platform's NCCL, TensorRT...
};
Result<SyncPlan> plan_sync(const std::filesystem::path& folder, SyncMode mode, const LockSources& sources,
                           bool allow_unverified);

}  // namespace cudnnenv
