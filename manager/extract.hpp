// Extracting an archive source into a staging folder, refusing every entry
// that could write outside it: absolute names, drive letters, '..', links
// leading out, device files, duplicates. Hashes each file as it is written.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "archive.hpp"
#include "binfmt.hpp"
#include "result.hpp"
#include "tree.hpp"

namespace cudnnenv {

struct ExtractedFile {
  FileRecord record;
  BinaryInfo binary;  // of the file, or of a link's target
};

struct Extraction {
  std::vector<ExtractedFile> files;  // regular files and links, in archive order
  std::optional<std::string> wheel_metadata;  // *.dist-info/METADATA, when present
};

// The entry name as a safe relative path ('/'-separated, no '.' or '..'
// components), or an error naming it.
Result<std::string> safe_entry_path(std::string_view name);

// Where a link at `link_path` (a safe relative path) with text `target`
// points, as a safe relative path inside the tree, or an error when it
// leads out (absolute, or too many '..').
Result<std::string> resolve_link_target(std::string_view link_path, std::string_view target);

// Extracts all of `source` under `destination`, an existing empty folder.
// `label` names the source in messages.
Result<Extraction> extract(ArchiveSource& source, const std::filesystem::path& destination, const std::string& label);

}  // namespace cudnnenv
