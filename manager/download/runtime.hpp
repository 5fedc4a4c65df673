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

namespace cudnnenv {

struct CudaRelease {
  Version release;              // 11.8.0
  std::string manifest_source;  // the URL or file it was read from
  std::string manifest_sha256;  // of its bytes
  bool pinned = false;          // its SHA-256 is the embedded one
  RedistManifest manifest;      // for the platform asked
};

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
// by its full number), saying so.
Result<CudaRelease> find_cuda_release(const std::string& asked, const Platform& platform,
                                      const std::optional<std::filesystem::path>& index,
                                      const DownloadOptions& options);

// The archives of `components` (runtime_components: a missing one is an
// error naming it, before anything is fetched), fetched and checked;
// `starting` (may be empty) hears each file's name before its fetch.
Result<std::vector<ComponentArchive>> fetch_runtime_archives(
    const CudaRelease& release, const std::vector<std::string>& components, const DownloadOptions& options,
    const std::function<void(const std::string& file_name)>& starting = {});

}  // namespace cudnnenv
