// One way to walk what an install reads, whatever it is: a zip (official
// Windows archives, wheels), a tarball (official Linux archives, through
// libarchive, POSIX only) or a folder. Entry names are as stored; checking
// them is the extractor's job.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "formats/zip.hpp"
#include "util/result.hpp"

namespace cudnnenv {

enum class EntryType { file, directory, symlink, hardlink, special };

struct ArchiveEntry {
  std::string name;  // '/'-separated, as stored
  EntryType type = EntryType::file;
  std::uint64_t size = 0;    // files only, as announced
  std::string link_target;   // symlink text, or the hard link's entry name
  std::string special_kind;  // "character device", "fifo", ... for EntryType::special
};

class ArchiveSource {
 public:
  virtual ~ArchiveSource() = default;
  // Moves to the next entry; false at the end.
  virtual Result<bool> next(ArchiveEntry& entry) = 0;
  // Streams the current file entry's data.
  virtual Result<void> read_data(const DataSink& sink) = 0;
};

enum class SourceKind { zip, tar, folder };

// Chooses by what `path` is: a folder, or a file by its content (zip
// signature) and name (.tar.xz, .tgz, .tar.gz, .tar).
Result<SourceKind> detect_source_kind(const std::filesystem::path& path);

Result<std::unique_ptr<ArchiveSource>> open_source(const std::filesystem::path& path, SourceKind kind);

// A zip or tar read from `file` alone (util::open_held_file; kept open by the
// caller for the source's life, read from its start), never from `path`
// again, which names it in errors.
Result<std::unique_ptr<ArchiveSource>> open_source(std::FILE* file, const std::filesystem::path& path, SourceKind kind);

// Implemented per platform: libarchive on POSIX; on Windows an error that
// says to use the Windows zip. `file`: as open_source's; null: open `path`.
Result<std::unique_ptr<ArchiveSource>> open_tar_source(const std::filesystem::path& path, std::FILE* file = nullptr);

}  // namespace cudnnenv
