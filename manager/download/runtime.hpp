// A CUDA release's runtime from NVIDIA's redistributable manifests: the
// manifest (pinned by SHA-256 in data/cuda-manifests.tsv, or read from a
// folder the user names), then each component archive of this platform,
// fetched and checked against the manifest's SHA-256 and size like a cuDNN
// archive (resumed, cached, through the same mirror).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "download/download.hpp"
#include "formats/redist.hpp"
#include "store/store.hpp"
#include "util/environment.hpp"

namespace cudnnenv {

struct CudaRelease {
  Version release;              // 11.8.0
  std::string manifest_source;  // the URL or file it was read from
  std::string manifest_sha256;  // of its bytes
  bool pinned = false;          // its SHA-256 is the embedded one
  RedistManifest manifest;      // for the platform asked
  // A manifest the user has: the folder its archives are read from (by file
  // name, or at their relative_path under it), never fetched.
  std::optional<std::filesystem::path> archives_folder;
};

// The folder of manifests CUDNNENV_CUDA_INDEX names in `environment`, if any.
std::optional<std::filesystem::path> cuda_index(const util::Environment& environment);

// The releases there are: those of `index` (a folder of
// redistrib_<release>.json: CUDNNENV_CUDA_INDEX), else the pinned list.
std::vector<Version> known_cuda_releases(const std::optional<std::filesystem::path>& index);

// The CUDA release whose runtime `install PROFILE` installs for a framework
// built against CUDA `asked`, of `known` (newest first): `asked`'s own
// release when one is known, else the newest of its major (`newest_of_major`
// set: the caller says so). No release of that major: an error naming what
// to run.
struct RuntimeReleaseChoice {
  std::string release;  // "11.2.2"
  bool newest_of_major = false;
};
Result<RuntimeReleaseChoice> runtime_release_for(const CudaVersion& asked, const std::vector<Version>& known,
                                                 const std::string& framework);

// The manifest of the newest release `asked` names ("11.8", "11.8.0", "13"),
// for `platform`: read from `index` when given, else downloaded into
// options.folder and checked against the pinned SHA-256. A release that is
// not pinned is fetched only with options.allow_unverified (and then only
// by its full number), saying so. With `urls_only` (for the URLs to download
// elsewhere), a pinned release whose archives are in the embedded table
// (data/cuda-archives.tsv) is answered from it, nothing fetched. A manifest
// out of reach: the error's offline hint names every URL (with its size) the
// table knows, else the manifest's and the commands that list the rest.
Result<CudaRelease> find_cuda_release(const std::string& asked, const Platform& platform,
                                      const std::optional<std::filesystem::path>& index, const DownloadOptions& options,
                                      bool urls_only = false);

// The manifest the user has, `given` (redistrib_<release>.json, or a folder
// holding one), for `platform`, its archives to be read from its folder. A
// pinned release's manifest must have the pinned SHA-256, and a release that
// is not pinned is read only with `allow_unverified`: otherwise an error
// naming the manifest's URL.
Result<CudaRelease> read_local_cuda_release(const std::filesystem::path& given, const Platform& platform,
                                            bool allow_unverified);

// The URLs to download elsewhere for an offline install of `components`:
// the manifest's first, then each archive's, with its file name and size
// (0 for the manifest). A missing component: as fetch_runtime_archives.
struct DownloadUrl {
  std::string url;
  std::string file_name;
  std::uint64_t size = 0;
};
Result<std::vector<DownloadUrl>> runtime_download_urls(const CudaRelease& release,
                                                       const std::vector<std::string>& components);

// The archives of `components` (runtime_components: a missing one is an
// error naming it, before anything is fetched), fetched and checked (or,
// for a manifest the user has, read from its folder: every one missing there
// named with its URL and size before anything is read);
// `starting` (may be empty) hears each file's name before its fetch.
Result<std::vector<ComponentArchive>> fetch_runtime_archives(
    const CudaRelease& release, const std::vector<std::string>& components, const DownloadOptions& options,
    const std::function<void(const std::string& file_name)>& starting = {});

}  // namespace cudnnenv
