// File-system helpers with the platform differences behind them.
// Knows nothing about cuDNN.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "util/result.hpp"

namespace cudnnenv::util {

struct FileCloser {
  void operator()(std::FILE* file) const {
    if (file) {
      std::fclose(file);
    }
  }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// fopen with a wide path on Windows; `mode` as for fopen ("rb", "wb").
FilePtr open_file(const std::filesystem::path& path, const char* mode);

// Whole file as bytes.
Result<std::string> read_file(const std::filesystem::path& path);

// Writes `content` to a temporary file beside `path`, flushes it to disk and
// renames it over `path`: readers see the old file or the new one.
Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view content);

// Replaces the file `to` with the file `from` in one step (rename(2) /
// MoveFileExW with MOVEFILE_REPLACE_EXISTING).
Result<void> replace_file(const std::filesystem::path& from, const std::filesystem::path& to);

// 64-bit seek from the start and size of an open file.
bool seek_file(std::FILE* file, std::uint64_t offset);
std::uint64_t file_size(std::FILE* file);

// Flushes an open file's data to disk.
void sync_file(std::FILE* file);

// Renames a directory (same volume) so that it appears at `to` at once;
// fails if `to` exists. Retries briefly on Windows, where a virus scanner
// holding a file open makes a rename fail for a moment.
Result<void> rename_directory(const std::filesystem::path& from, const std::filesystem::path& to);

// Removes `path` recursively, ignoring errors; true if nothing is left.
bool remove_tree(const std::filesystem::path& path);

// Makes `path` a symbolic link to `target`; on Windows, where creating links
// needs a privilege, copies the target file instead.
Result<void> create_link_or_copy(const std::filesystem::path& target_in_tree, const std::string& link_text,
                                 const std::filesystem::path& path);

// An exclusive lock held on a lock file for the object's lifetime
// (flock on POSIX, LockFileEx on Windows). The OS drops it when the process
// dies, so a killed holder never leaves a stale lock.
class FileLock {
 public:
  static Result<FileLock> acquire(const std::filesystem::path& path);
  // Without waiting: an empty optional when another process holds it.
  static std::optional<FileLock> try_acquire(const std::filesystem::path& path);
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&&) = delete;
  ~FileLock();

 private:
  FileLock() = default;
  std::intptr_t m_handle = -1;
};

// Whether this process may create files in the folder `path` (access(2)
// W_OK, which also says no on a read-only mount; on Windows the read-only
// attribute only). False when it does not exist.
bool is_writable_directory(const std::filesystem::path& path);

// The running program's own file.
std::filesystem::path current_executable();

// The path the file system resolves `path` to, as loaders and the debug API
// name loaded files: links followed; on Windows also junctions, subst and
// mapped drives (GetFinalPathNameByHandleW). weakly_canonical when it cannot
// be opened.
std::filesystem::path final_path(const std::filesystem::path& path);

// The 8.3 short form of an existing path (Windows, on a volume that makes
// short names; UTF-8), or nothing.
std::optional<std::string> short_path(const std::filesystem::path& path);

// Process id, for unique temporary names.
unsigned long current_process_id();

}  // namespace cudnnenv::util
