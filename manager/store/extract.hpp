// Extracting an archive source into a staging folder, refusing every entry
// that could write outside it: absolute names, drive letters, '..', links
// leading out, device files, duplicates. Hashes each file as it is written.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/archive.hpp"
#include "formats/binfmt.hpp"
#include "store/tree.hpp"
#include "util/result.hpp"

namespace cudnnenv {

struct ExtractedFile {
  FileRecord record;
  BinaryInfo binary;  // of the file, or of a link's target
};

struct Extraction {
  std::vector<ExtractedFile> files;           // regular files and links, in archive order
  std::optional<std::string> wheel_metadata;  // *.dist-info/METADATA, when present
};

// The entry name as a safe relative path ('/'-separated, no '.' or '..'
// components), or an error naming it.
Result<std::string> safe_entry_path(std::string_view name);

// Where a link at `link_path` (a safe relative path) with text `target`
// points, as a safe relative path inside the tree, or an error when it
// leads out (absolute, or too many '..').
Result<std::string> resolve_link_target(std::string_view link_path, std::string_view target);

// Bounds on what an archive may unpack to, checked as bytes are written
// (never from sizes the archive announces). The largest official cuDNN
// archive (about 1 GB, xz) unpacks to a few GB at a ratio under 5.
struct ExtractLimits {
  static constexpr std::uint64_t k_default_max_bytes = std::uint64_t{16} << 30;  // 16 GiB
  static constexpr std::uint64_t k_default_max_ratio = 50;

  static constexpr std::uint64_t k_default_ratio_floor = std::uint64_t{256} << 20;  // 256 MiB

  std::uint64_t max_bytes = k_default_max_bytes;  // all files together, links copied included
  std::uint64_t max_ratio = k_default_max_ratio;  // unpacked bytes per byte of the source file
  // The ratio is enforced only past this many bytes: a bomb is a danger
  // for its size, and small archives of repetitive files (test trees,
  // headers only) compress far better than cuDNN's libraries.
  std::uint64_t ratio_floor = k_default_ratio_floor;
  std::uint64_t source_size = 0;  // the archive's size; 0 (a folder): no ratio
};

// Bytes unpacked so far, for a progress display; `done` once, at the end.
using UnpackProgress = std::function<void(std::uint64_t unpacked, bool done)>;

// Extracts all of `source` under `destination`, an existing empty folder.
// `label` names the source in messages. Fails as soon as the bytes written
// pass a bound of `limits`. `progress` (may be empty) hears of each write.
Result<Extraction> extract(ArchiveSource& source, const std::filesystem::path& destination, const std::string& label,
                           const ExtractLimits& limits = {}, const UnpackProgress& progress = {});

}  // namespace cudnnenv
