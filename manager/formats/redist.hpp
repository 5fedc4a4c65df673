// NVIDIA's redistributable manifests (redistrib_<release>.json): one object
// per component (cuda_cudart, libcublas, ...), each with a version and one
// archive per platform (relative_path from the manifest's folder, sha256,
// size as a string). Manifests come from a download or a folder a user
// names: untrusted text, parsed with limits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/platform.hpp"
#include "util/result.hpp"

namespace cudnnenv {

// One component's archive for one platform.
struct RedistArchive {
  std::string component;      // "libcublas"
  std::string name;           // "CUDA cuBLAS"
  std::string version;        // "13.1.0.3"
  std::string relative_path;  // "libcublas/linux-x86_64/libcublas-linux-x86_64-13.1.0.3-archive.tar.xz"
  std::string sha256;         // 64 lower-case hex digits
  std::uint64_t size = 0;
};

struct RedistManifest {
  std::string release_date;             // "2025-08-04", as given
  std::string release_label;            // "13.0.2" (12.x and later), as given
  std::vector<RedistArchive> archives;  // for the platform asked, in the manifest's order
  std::vector<std::string> platforms;   // every platform any component has
};

// NVIDIA's name of a platform: "linux-x86_64", "linux-sbsa", "windows-x86_64".
std::string redist_platform(const Platform& platform);

inline constexpr std::size_t k_max_manifest_bytes = 4 << 20;  // the largest real one is ~60 kB

// Parses a manifest's `text` for `platform` (redist_platform's form);
// `origin` names it in errors. Refused: not JSON, nested past 8 levels, over
// k_max_manifest_bytes, an entry without a safe relative_path (relative,
// '/'-separated, no '.', '..', '\', ':' or control characters), a sha256
// that is not 64 hex digits, a size that is not a number of bytes. A
// component without an archive for `platform` is left out; a manifest with
// none is an error naming the platforms it has.
Result<RedistManifest> parse_redist_manifest(std::string_view text, const std::string& origin,
                                             std::string_view platform);

// Whether `path` is a safe relative path of a manifest (as above).
bool is_safe_relative_path(std::string_view path);

}  // namespace cudnnenv
