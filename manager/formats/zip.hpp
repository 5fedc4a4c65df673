// A zip reader of the project's own over zlib: stored and deflated entries,
// zip64, Unix modes (symbolic links) from the central directory. Every
// Windows archive and every wheel is a zip, and no zip library is packaged
// for mingw-w64.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/fs.hpp"
#include "util/result.hpp"

namespace cudnnenv {

struct ZipEntry {
  std::string name;  // as stored, '\\' turned into '/'
  std::uint64_t compressed_size = 0;
  std::uint64_t size = 0;
  std::uint32_t crc32 = 0;
  std::uint16_t method = 0;  // 0 stored, 8 deflate
  std::uint16_t flags = 0;
  std::uint64_t local_header_offset = 0;
  std::uint32_t external_attributes = 0;
  std::uint8_t made_by_system = 0;  // 3: Unix, so the high 16 bits of the attributes are st_mode
  // Where the next entry's local header (or the central directory) starts:
  // this entry's header and data must end there, so no two entries share
  // bytes (the "overlapping entries" zip bomb).
  std::uint64_t span_end = 0;

  bool is_directory() const;
  // Unix file type bits when the entry carries a Unix mode, else 0.
  std::uint32_t unix_file_type() const;
};

using DataSink = std::function<Result<void>(std::string_view chunk)>;

class ZipReader {
 public:
  // Reads the central directory; fails on a file that is not a zip, whose
  // end is missing (a truncated download), whose records point outside the
  // file, or whose entries overlap. Nothing is allocated from a size the
  // archive claims before that size is checked against the file's.
  static Result<ZipReader> open(const std::filesystem::path& path);
  // The same from `file`, open and positioned anywhere, which the caller
  // keeps open for the reader's life; `path` names it in errors.
  static Result<ZipReader> open(std::FILE* file, const std::filesystem::path& path);

  const std::vector<ZipEntry>& entries() const { return m_entries; }

  // Streams the entry's uncompressed bytes to `sink`, then checks its size
  // and CRC-32; stops at the first error the sink returns.
  Result<void> read(const ZipEntry& entry, const DataSink& sink);

 private:
  ZipReader() = default;
  Error corrupt(const std::string& what) const;

  std::filesystem::path m_path;
  util::FilePtr m_owned;  // when open(path) opened it
  std::FILE* m_file = nullptr;
  std::uint64_t m_file_size = 0;
  std::vector<ZipEntry> m_entries;
};

}  // namespace cudnnenv
