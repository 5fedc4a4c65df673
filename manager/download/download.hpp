// Fetching an official archive into a downloads folder: resumed from a
// NAME.part file with range requests, hashed while it arrives, kept only when
// its size and SHA-256 are the official list's; a mirror changes where the
// bytes come from, never which bytes are accepted.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "download/transfer.hpp"
#include "store/official.hpp"
#include "store/tree.hpp"
#include "util/result.hpp"

namespace cudnnenv {

// Where `archive` lies on its host: "compute/cudnn/redist/cudnn/linux-x86_64/FILE"
// for an official URL; empty when that is no plain relative path ending in
// the archive's file name (nothing could be put there safely).
std::string host_path(const OfficialArchive& archive);

// Where `archive` is fetched from: its URL, or with `mirror` (a base URL or
// a folder) the mirror's base followed by the URL's path, whatever its host
// (https://developer.download.nvidia.com/compute/... becomes
// MIRROR/compute/...; a site index's https://site/pub/... MIRROR/pub/...),
// as a conda channel mirror replaces the channel's host. Errors: a mirror
// that is not an http(s) URL or a folder; a URL whose path does not end in
// the archive's file name (no mirror holds it).
Result<std::string> archive_url(const OfficialArchive& archive, const std::string& mirror);

// The URL of the file at `path` (a plain relative path) in `mirror`: a base
// URL, or a folder as a file:// URL. Errors as archive_url's.
Result<std::string> mirror_file_url(const std::string& mirror, const std::string& path);

struct DownloadProgress {
  std::uint64_t received = 0;                     // bytes in the part file, resumed ones included
  std::uint64_t total = 0;                        // 0 when unknown
  std::uint64_t resumed_from = 0;                 // bytes already there when this transfer began
  std::chrono::steady_clock::duration elapsed{};  // of this transfer
  bool done = false;
};

struct DownloadOptions {
  std::filesystem::path folder;  // <root>/.cudnnenv/downloads
  // A mirror's folder: each file goes to its path on NVIDIA's host under
  // `folder` (compute/cudnn/redist/...), as `--mirror FOLDER` reads it.
  bool nvidia_layout = false;
  // Where `folder`'s own folders start (a mirror's folder): none below it is
  // followed through a link (util::create_directories_below). Empty: `folder`.
  std::filesystem::path folder_base;
  // Where the lock each fetch holds on its file's name lives: empty, beside
  // the file in `folder` (the downloads folder); a mirror's writer sets the
  // store's downloads folder, so that the mirror holds no lock files.
  std::filesystem::path lock_folder;
  std::string mirror;  // empty: the official host
  std::filesystem::path ca_file;
  std::filesystem::path helper;  // Linux: cudnnenv-fetch
  int retries = 3;               // after a transient failure (a cut, a stall, 5xx), each from where it stopped
  std::chrono::milliseconds first_delay{1000};  // doubled after each retry
  std::chrono::seconds stall_time{60};          // under min_rate for this long: a stall
  // Below this many bytes a second over stall_time, a try gives up: a server
  // trickling just above nothing would otherwise hold an install for days.
  std::uint64_t min_rate = 16 * 1024;
  bool allow_unverified = false;  // an archive without a SHA-256 in the list
  // An archive the list gives no size for stops here (a mirror could send
  // without end): the largest official archive is about 1.2 GB.
  std::uint64_t max_unknown_size = std::uint64_t{4} << 30;
  std::function<void(const DownloadProgress&)> progress;
  std::function<void(const std::string&)> note;  // retries, a restart without ranges
  // What a failure's hint ends with, for a machine that cannot reach the
  // host; empty: "download URL elsewhere and run: cudnnenv install ./FILE".
  std::string offline_hint;
};

struct Downloaded {
  std::filesystem::path file;  // verified, in options.folder
  std::string url;             // what served it (after redirects); empty when it was already there
  std::string sha256;
  std::uint64_t bytes_fetched = 0;  // by this call
  bool resumed = false;             // a part file was continued
};

// The verified archive in options.folder: the one already there (checked
// again, by size and hash), or fetched. Errors in plain words with a hint:
// DNS, refused, TLS, 403/404 (moved: the mirror setting), 5xx after the
// retries, a stall, a full disk (nothing half-written left), a size or
// SHA-256 other than the list's (the part file deleted, the URL named).
Result<Downloaded> fetch_archive(const OfficialArchive& archive, const DownloadOptions& options);

// `archive` from a file the user has (an offline copy): copied into
// options.folder and checked like a download (size, then SHA-256, of the
// bytes copied), or the one already there when it is the archive.
Result<Downloaded> take_local_archive(const OfficialArchive& archive, const std::filesystem::path& file,
                                      const DownloadOptions& options);

// The archive `spec` names for `platform`: the newest release that fits
// (whole components: 8.1 never picks 8.10), with `cuda` when given. When
// that release comes for several CUDA versions, the one whose toolkit
// `has_toolkit` finds here, if exactly one; else an error listing them with
// the --cuda to add (exit 3). No fit: an error naming the newest releases
// there are (exit 3).
Result<const OfficialArchive*> choose_archive(const Platform& platform, const Spec& spec,
                                              const std::optional<CudaVersion>& cuda,
                                              const std::function<bool(const CudaVersion&)>& has_toolkit);

// What `cudnnenv install SOURCE [--cuda CUDA]` fetches: the official archive
// a version spec names for `platform` (choose_archive), or an archive's URL
// given by hand, taken only with `allow_unverified` (nothing says what its
// bytes should be: its SHA-256 is recorded, not checked). `installed`: a
// tree of `trees` that came from that archive, when one did (nothing to fetch).
// Whether `source` is an archive's URL (http:// or https://) rather than a version or a path.
bool is_archive_url(std::string_view source);

struct ArchiveToInstall {
  const OfficialArchive* official = nullptr;  // null for a URL given by hand
  std::string url;                            // the URL given by hand, and its file name
  std::string file_name;
  std::optional<TreeRecord> installed;
  // `official`, else one of `url` and `file_name` (no hash, no size), whose views point into this object.
  OfficialArchive archive() const;
};
Result<ArchiveToInstall> archive_to_install(const std::string& source, const std::string& cuda, bool allow_unverified,
                                            const Platform& platform, const std::vector<TreeRecord>& trees,
                                            const std::function<bool(const CudaVersion&)>& has_toolkit);

// What the downloads folder holds: verified archives and part files.
struct CachedFile {
  std::filesystem::path file;
  std::uint64_t size = 0;
  bool partial = false;                      // a .part file
  const OfficialArchive* archive = nullptr;  // by file name, when the list knows it
};
std::vector<CachedFile> cached_downloads(const std::filesystem::path& folder);

// Deletes what cached_downloads lists, but for a file a running install is
// fetching (its lock held); returns what was deleted.
std::vector<CachedFile> clean_downloads(const std::filesystem::path& folder);

}  // namespace cudnnenv
