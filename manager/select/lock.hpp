// cudnnenv.lock, beside a project's .cudnnenv.toml: the exact cuDNN build
// its selection resolves to on each platform the project targets, with the
// official archive's file name, URL, size and SHA-256. `cudnnenv lock`
// writes it, `cudnnenv sync` installs what it names, and resolution takes
// the locked build (by its archive's SHA-256) where the project file decides.
//
//   # cudnnenv.lock: written by 'cudnnenv lock' from .cudnnenv.toml; ...
//   format = 1
//
//   [input]                      # what .cudnnenv.toml said when it was written
//   cudnn = "9.19"
//   platforms = ["linux-x86_64", "windows-x86_64"]
//
//   [[cudnn]]                    # one per platform, in the order of `platforms`
//   platform = "linux-x86_64"
//   version = "9.19.0.56"
//   cuda = "cuda13"
//   file = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"
//   url = "https://developer.download.nvidia.com/..."
//   size = 760123456
//   sha256 = "..."
//
//   [[runtime]]                  # a profile's CUDA runtime, per platform where its framework opens one
//   platform = "windows-x86_64"
//   release = "11.8.0"
//   manifest = "https://developer.download.nvidia.com/compute/cuda/redist/redistrib_11.8.0.json"
//   manifest_sha256 = "..."
//
//   [[runtime.component]]        # each archive of the runtime, as the manifest names it
//   name = "cuda_cudart"
//   version = "11.8.89"
//   path = "cuda_cudart/windows-x86_64/cuda_cudart-windows-x86_64-11.8.89-archive.zip"
//   size = 2900000
//   sha256 = "..."
//
//   [[nccl]]                     # a tree of another row beside cuDNN (its JSON key: nccl, tensorrt), per platform
//   platform = "linux-x86_64"    # where the row has a build; the archive or wheel its tree here came from
//   release = "2.28.9"
//   cuda = "13.0"
//   file = "nccl_2.28.9-1+cuda13.0_x86_64.txz"
//   url = "https://developer.download.nvidia.com/compute/redist/nccl/v2.28.9/nccl_2.28.9-1+cuda13.0_x86_64.txz"
//   size = 201234567
//   sha256 = "..."
//
// A lock comes with any cloned repository: it is read as untrusted input
// (bounded, every field checked, never an abort), and what it names is
// installed only when it is an official archive (sync checks the SHA-256
// against the official list) unless --allow-unverified.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "download/download.hpp"
#include "download/runtime.hpp"
#include "select/project.hpp"
#include "store/component.hpp"
#include "store/official.hpp"
#include "util/result.hpp"

namespace cudnnenv {

inline constexpr const char* k_lock_file_name = layout::k_lock_file;
inline constexpr int k_lock_format = 1;
// A lock holds a few entries per platform; anything larger is not one.
inline constexpr std::size_t k_max_lock_file = 256 * 1024;

// What the project file said when the lock was written; `sync --locked`
// compares it with what the file says now.
struct LockInput {
  std::optional<std::string> cudnn;
  std::optional<std::string> cuda;
  std::optional<std::string> profile;
  std::optional<std::string> runtime;  // the project's runtime = "13.0.2"
  // nccl = "2.28", tensorrt = "10": the other rows beside cuDNN, by release (named_rows).
  std::map<TreeKind, std::string> components;
  std::vector<std::string> platforms;
  bool operator==(const LockInput&) const = default;
};

struct LockedArchive {
  std::string platform;  // "linux-x86_64", "linux-sbsa", "windows-x86_64"
  std::string version;   // "9.19.0.56"
  std::string cuda;      // the archive's CUDA variant: "cuda13", "cuda11.2"
  std::string file;      // the archive's file name
  std::string url;
  std::uint64_t size = 0;  // 0: the official list does not say
  std::string sha256;
};

// One archive of a CUDA runtime's, as the release's manifest names it.
struct LockedComponent {
  std::string name;     // "libcublas"
  std::string version;  // "13.1.0.3"
  std::string path;     // the manifest's relative_path: "libcublas/linux-x86_64/libcublas-...-archive.tar.xz"
  std::uint64_t size = 0;
  std::string sha256;
  bool operator==(const LockedComponent&) const = default;
};

// The CUDA runtime beside the cuDNN: a profile's (install PROFILE's second
// tree) or the one the project file names (runtime = "13.0.2"): the
// release, its manifest's SHA-256 (what a runtime tree records as its
// source) and each component archive's.
struct LockedRuntime {
  std::string platform;
  std::string release;   // "11.8.0"
  std::string manifest;  // the manifest's URL
  std::string manifest_sha256;
  std::vector<LockedComponent> components;  // in runtime_components' order
  bool operator==(const LockedRuntime&) const = default;
};

// A tree of a row with no index of its own (NCCL, TensorRT): the archive or
// wheel the tree the project resolves to was installed from, which `sync`
// installs again from the lock's URL or a mirror, checked by its SHA-256.
struct LockedTree {
  TreeKind kind = TreeKind::nccl;
  std::string platform;
  std::string release;  // "2.28.9"
  std::string cuda;     // the CUDA it was built for ("13.0"); empty when unknown
  std::string file;     // the archive's or wheel's file name
  std::string url;      // where NVIDIA serves it (ComponentTrees::archive_url); empty: a mirror or the file itself
  std::uint64_t size = 0;
  std::string sha256;
  bool operator==(const LockedTree&) const = default;
};

// Where a mirror holds `tree`: its URL's path on the host
// (compute/redist/nccl/v2.28.9/FILE), else components/<row's JSON key>/FILE.
std::string mirror_path(const LockedTree& tree);

// The file `tree` names, checked by its size and SHA-256, into
// options.folder (the downloads folder; with options.nvidia_layout, a
// mirror's folder, at mirror_path): copied from `local` when given (the file
// a tree here was installed from), else fetched from options.mirror
// (MIRROR/mirror_path), else from the lock's URL; else an error saying where
// to get it.
Result<Downloaded> fetch_locked_tree(const LockedTree& tree, const std::optional<std::filesystem::path>& local,
                                     DownloadOptions options);

struct LockFile {
  std::filesystem::path file;
  LockInput input;
  std::vector<LockedArchive> cudnn;
  // Per platform: a profile's runtime where its framework opens one, or the project file's runtime = "...".
  std::vector<LockedRuntime> runtime;
  // NCCL's and TensorRT's, per platform where the project names one (and the row has a build).
  std::vector<LockedTree> trees;

  // The entry for `platform`, or null.
  const LockedArchive* for_platform(std::string_view platform) const;
  const LockedRuntime* runtime_for(std::string_view platform) const;
  const LockedTree* tree_for(TreeKind kind, std::string_view platform) const;
};

// The lock's text: a header saying it is generated, then one line per field
// in a fixed order, so that a diff shows what changed.
std::string serialize_lock(const LockFile& lock);
Result<LockFile> parse_lock(std::string_view text, const std::filesystem::path& file);
// Writes `lock` to lock.file (atomically) unless the file already holds that
// text; whether it wrote.
Result<bool> write_lock(const LockFile& lock);
// A missing file: an error with exit code 3 (not_found).
Result<LockFile> read_lock(const std::filesystem::path& file);

// The archive `locked` names: the official list's entry of that SHA-256 and
// file name; with `allow_unverified`, the lock's own words (views into
// `locked`, which must outlive it). Else an error: no official archive.
Result<OfficialArchive> locked_official_archive(const LockedArchive& locked, bool allow_unverified);

// The lock beside a project file: <its folder>/cudnnenv.lock.
std::filesystem::path lock_path_for(const std::filesystem::path& project_file);

// What `project` says that a lock records; `platforms` empty when the file
// names none (then `cudnnenv lock` locks the platform it runs on).
LockInput lock_input_of(const ProjectFile& project);

// Each way `now` differs from what the lock was made from, as
// "cudnn: the lock was made for \"8.9\", .cudnnenv.toml now says \"9.1\"";
// empty when they agree. Platforms count only when `now` names them.
std::vector<std::string> lock_differences(const LockInput& locked, const LockInput& now);

// Each way the lock `locked` differs from `now`, the one `cudnnenv lock`
// would write: what .cudnnenv.toml says (lock_differences), then per
// platform the archive or the runtime it resolves to, as
// "linux-x86_64: the lock has cuDNN 9.1.0.70 (cuda12), .cudnnenv.toml now
// resolves to cuDNN 9.1.2.5 (cuda12)"; empty when the two would be written
// alike.
std::vector<std::string> lock_staleness(const LockFile& locked, const LockFile& now);

// The project file that decides in `folder` (or a folder above), when it
// names a cuDNN by version or profile (what lock and sync work from); else an
// error saying what to write.
Result<ProjectFile> lockable_project(const std::filesystem::path& folder);

// After an edit of `project_file` (use --local): when a lock beside it no
// longer matches it, what to say ("cudnnenv.lock no longer matches ...: run
// 'cudnnenv lock'"); nothing when there is no lock or it matches. A lock or a
// project file that cannot be read says so.
std::optional<std::string> stale_lock_note(const std::filesystem::path& project_file);

// Whether the manifest `release` found is the one `locked` names, and names
// each locked archive with the lock's SHA-256; else an error (exit 1) whose
// fix is writing the lock again.
Result<void> check_locked_runtime(const LockedRuntime& locked, const CudaRelease& release);

}  // namespace cudnnenv
