// A mirror folder made by `cudnnenv mirror create`: official archives, CUDA
// manifests and component archives at their paths on NVIDIA's host (what
// `install --mirror FOLDER` and `sync --mirror FOLDER` read), and an index,
// cudnnenv-mirror.json, naming each file with its size and SHA-256:
//
//   {"format": 1, "files": [
//     {"path": "compute/cudnn/redist/cudnn/linux-x86_64/cudnn-...-archive.tar.xz",
//      "size": 870000000, "sha256": "...", "what": "cuDNN 9.19.0.56 (cuda13) for linux-x86_64",
//      "platform": "linux-x86_64"},
//     {"path": "compute/cuda/redist/redistrib_13.0.2.json", ..., "cuda_release": "13.0.2"}]}
//
// A mirror may come from anywhere (a USB disk, a share): its index is
// untrusted input, bounded and checked field by field, and `mirror verify`
// checks each file against it, and each cuDNN archive also against the
// official list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace cudnnenv {

inline constexpr const char* k_mirror_index = "cudnnenv-mirror.json";
inline constexpr int k_mirror_format = 1;
// Each file takes a few hundred bytes: 4 MB is thousands of releases.
inline constexpr std::size_t k_max_mirror_index = 4 << 20;

struct MirrorFile {
  std::string path;  // relative, '/'-separated: "compute/cudnn/redist/..."
  std::uint64_t size = 0;
  std::string sha256;
  std::string what;          // for people: "cuDNN 9.19.0.56 (cuda13) for linux-x86_64"
  std::string platform;      // the official list's platform name, empty for a CUDA manifest
  std::string cuda_release;  // the CUDA release a manifest or component archive belongs to; empty for cuDNN
  bool operator==(const MirrorFile&) const = default;
};

struct MirrorIndex {
  std::vector<MirrorFile> files;  // sorted by path, each path once

  // Adds `file`, in place of one at the same path.
  void add(MirrorFile file);
  // Into path order at once (what add keeps).
  void sort();
};

std::string serialize_mirror_index(const MirrorIndex& index);
Result<MirrorIndex> parse_mirror_index(std::string_view text, const std::filesystem::path& file);
// The index of the mirror `folder`; none there: an error with exit code 3.
Result<MirrorIndex> read_mirror_index(const std::filesystem::path& folder);

// One file of the index as `mirror verify` found it: `problem` empty when
// its size and SHA-256 are the index's (and, for a cuDNN archive, the
// official list's); else what is wrong, in words.
struct MirrorCheck {
  MirrorFile file;
  std::string problem;
};
// `progress` (may be empty) hears each path before it is hashed.
std::vector<MirrorCheck> verify_mirror(const std::filesystem::path& folder, const MirrorIndex& index,
                                       const std::function<void(const std::string&)>& progress = {});

// The regular files under `folder` its index does not list, '/'-separated and
// sorted: a file a create fetched whose entry was lost. Not the index itself,
// nor work in progress (a download's `.part`, write_file_atomic's temporaries).
std::vector<std::string> unlisted_mirror_files(const std::filesystem::path& folder, const MirrorIndex& index);

}  // namespace cudnnenv
