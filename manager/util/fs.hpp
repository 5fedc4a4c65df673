// File-system helpers with the platform differences behind them.
// Knows nothing about cuDNN.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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

// Files the tool writes into a folder another user may be able to write (a
// shared mirror, a store's downloads folder, its cache): never through a
// link, never into another user's file.
// A new empty file at `path`, to write: whatever has the name (a stale file,
// a planted link) is removed first (unlink removes a link, never what it
// leads to), then the file is made O_CREAT|O_EXCL|O_NOFOLLOW, mode 0644
// (Windows: CREATE_NEW, which fails on a reparse point too), so the file
// written is this call's own.
Result<FilePtr> create_new_file(const std::filesystem::path& path);
// `path` opened to read and append ("a+b") when it is a regular file of
// this user's with no other name (POSIX: O_NOFOLLOW, then fstat of the
// descriptor: owner, kind, one link; Windows: no reparse point, one link);
// nothing when it is missing or anything else.
FilePtr open_own_file(const std::filesystem::path& path);
// Makes the folders from `base` (which exists, or is made as
// fs::create_directories would) down to `folder`, never through a link
// below `base` (POSIX: mkdirat and openat with O_NOFOLLOW from a descriptor;
// Windows: a reparse point on the way is refused): an error names the link.
Result<void> create_directories_below(const std::filesystem::path& base, const std::filesystem::path& folder);

// Opens `path` for reading when it is a regular file (after links), without
// blocking on a FIFO or reading a device such as /dev/zero: an error says
// what it is instead.
Result<FilePtr> open_regular_file(const std::filesystem::path& path);

// Opens `path` as open_regular_file does, to read bytes that are checked
// (hashed) and then used (unpacked, copied): every later read of that file
// goes through this one handle, never the name again, so whoever can write
// the folder cannot swap the file between the check and the use. Windows:
// also opened without sharing write or delete access, so that while it is
// open nobody can write, rename or delete it (a second open by name then
// reaches the same bytes).
Result<FilePtr> open_held_file(const std::filesystem::path& path);

// Whole file as bytes: a regular file only (open_regular_file), of at most
// k_max_read_file bytes (a header, ld.so.cache, a framework's version.py).
inline constexpr std::size_t k_max_read_file = 64 * 1024 * 1024;
Result<std::string> read_file(const std::filesystem::path& path);

// POSIX: this account's home folder from /etc/passwd (read directly: the
// program is static, and NSS modules cannot be loaded into it), for when HOME
// is unset; none when the account is not there; Windows: none.
std::optional<std::filesystem::path> account_home_folder();
// The same, refusing a file of more than `max_bytes`, counted as read (a
// link to /proc/self/pagemap or a FIFO says nothing true to stat): the
// error names the file and the limit.
Result<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes);

// Whether `a` and `b` are one file (through links or another spelling of the
// path); false when either is empty or missing.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

// Writes `content` to a temporary file beside `path` (a name of its own per
// call, so parallel writers never share one), flushes it to disk and renames
// it over `path`, then flushes the folder: readers see the old file or the
// new one, the last writer wins, and once it returns a power cut cannot bring
// the old file back. A failed write or flush leaves `path` as it was and
// says so.
Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view content);

// A name beside `path` for a file that will replace it, unique to this call
// (`<name>.tmp<pid>-<random>`, the form remove_stale_temporaries clears once
// its writer is gone).
std::filesystem::path temporary_beside(const std::filesystem::path& path);

// Replaces the file `to` with the file `from` in one step (rename(2) /
// MoveFileExW with MOVEFILE_REPLACE_EXISTING).
Result<void> replace_file(const std::filesystem::path& from, const std::filesystem::path& to);

// 64-bit seek from the start and size of an open file.
bool seek_file(std::FILE* file, std::uint64_t offset);
std::uint64_t file_size(std::FILE* file);

// Flushes an open file's data to disk; fails when the device reports an
// error (the data may then never reach the disk).
Result<void> sync_file(std::FILE* file);

// Starts writing an open file's data to disk and returns at once, so that a
// later sync_entry of it waits for less (an install writes every file, then
// syncs them all). Linux: sync_file_range(SYNC_FILE_RANGE_WRITE); elsewhere
// nothing. Durability still comes from sync_entry alone.
void start_writeback(std::FILE* file);

// Puts every file below `folder` on disk, data and names, before a rename
// makes them visible (a power cut then leaves the old state or a whole tree,
// never empty or short files): sync_entry on each file and folder (links are
// their folder's entries), `folder` last.
Result<void> sync_tree(const std::filesystem::path& folder);

// One file's data, or one folder's entries, on disk. POSIX: fsync(2), which
// every file system (a FUSE one too) receives, where syncfs(2) is not passed
// on to FUSE servers; Windows: FlushFileBuffers on a file, nothing for a
// folder (NTFS journals the names).
Result<void> sync_entry(const std::filesystem::path& path, bool folder);

// Puts a folder's entries on disk (after a rename into it). Linux: fsync(2)
// of the folder; Windows: nothing (MoveFileExW's MOVEFILE_WRITE_THROUGH does it).
Result<void> sync_directory(const std::filesystem::path& folder);

// Why someone other than this user and root could replace `file` (and so
// choose code that loading it would run), in words; nullopt when no one can.
// POSIX: `file` and every folder above it must be owned by this user or
// root, writable by no one else (a group write only for root's group or
// this user's own), where a folder with the sticky bit (/tmp) may be
// writable by all, since only an entry's owner may replace it. Windows:
// always nullopt (access lists are not read; README, security model).
std::optional<std::string> changeable_by_others(const std::filesystem::path& file);

// Whether this process runs as root (POSIX: effective uid 0); false on
// Windows, where access lists are not read.
bool running_as_root();

// The owner of `file` (a link followed) when it is neither this user nor
// root: a file another user put in a shared folder (/tmp). POSIX only;
// Windows: always nullopt.
std::optional<unsigned long> foreign_owner(const std::filesystem::path& file);

// The first entry on the way from `base` (not itself) down to `target` that
// is a link (Windows: any reparse point, a junction too), or nothing: a file
// written there would land wherever the link points (a cloned repository's
// `.vscode` linked to another folder, its settings.json to a secret file).
// Entries that do not exist yet are no links.
std::optional<std::filesystem::path> link_on_the_way(const std::filesystem::path& base,
                                                     const std::filesystem::path& target);

// A new folder in `parent` named `prefix` + "<pid>-<random>", made by this
// call alone, as mkdtemp does: it fails when the name exists (a planted
// folder or link is never used; another name is tried, 100 times at most),
// and only this user can enter it (POSIX: mode 0700; Windows: an access
// list granting this user alone, protected from the parent's).
Result<std::filesystem::path> make_private_directory(const std::filesystem::path& parent, const std::string& prefix);
// Creates `folder` itself for this user alone (make_private_directory's
// step): true when this call made it, false when the name exists.
Result<bool> create_private_directory(const std::filesystem::path& folder);

// Renames a directory (same volume) so that it appears at `to` at once;
// fails if `to` exists. Retries briefly on Windows, where a virus scanner
// holding a file open makes a rename fail for a moment.
Result<void> rename_directory(const std::filesystem::path& from, const std::filesystem::path& to);

// One entry of a folder, as list_directory read it.
struct DirectoryEntry {
  std::filesystem::path path;
  bool is_symlink = false;       // the entry itself is a link (Windows: a reparse point)
  bool is_directory = false;     // a folder, or a link to one
  bool is_regular_file = false;  // a file, or a link to one
  std::uint64_t size = 0;        // a regular file's size
};

// The entries of `folder`, sorted by name ('.' and '..' left out), or why it
// cannot be read. Every listing of the store goes through here: on Windows
// FindFirstFileExW, with the `\\?\` form for a folder past MAX_PATH, where
// libstdc++'s directory_iterator fails (mingw-w64's _wopendir builds its
// search pattern in a MAX_PATH buffer, so a store root of 250 characters
// could not list its own trees, whatever the manifest says).
Result<std::vector<DirectoryEntry>> list_directory(const std::filesystem::path& folder);

// list_directory for callers that read a missing or unreadable folder as empty.
std::vector<DirectoryEntry> directory_entries(const std::filesystem::path& folder);

// A walk below `root` one entry at a time, each folder's entries right after
// it: `next` lists `root` on its first call; `enter` goes into the folder (or
// link to one) `next` returned last, whose entries come next.
class DirectoryWalk {
 public:
  explicit DirectoryWalk(std::filesystem::path root) : m_root(std::move(root)) {}
  // The next entry; nothing after the last; why `root` cannot be listed.
  Result<std::optional<DirectoryEntry>> next();
  // Why the folder cannot be listed, if it cannot.
  Result<void> enter();
  // How deep the entry `next` returned last lies: 0 for `root`'s own.
  int depth() const { return m_depth; }

 private:
  struct Level {
    std::vector<DirectoryEntry> entries;
    std::size_t next = 0;
  };
  std::filesystem::path m_root;
  std::vector<Level> m_levels;  // the folders being read, innermost last
  std::filesystem::path m_last;
  int m_depth = 0;
  bool m_started = false;
};

// Every entry below `root` (a DirectoryWalk; a folder that cannot be listed
// reads as empty); for a folder (or a link to one) `visit` returns whether to
// go into it. `depth`: 0 for `root`'s own entries.
void walk_directory(const std::filesystem::path& root,
                    const std::function<bool(const DirectoryEntry& entry, int depth)>& visit);

// One entry at a time, past MAX_PATH on Windows too: whether `path` is a
// folder itself (not a link to one), whether anything (a link too) is there,
// and removing one file, link or empty folder (a read-only file too).
bool is_plain_directory(const std::filesystem::path& path);
// Whether `path` itself is a link (Windows: any reparse point: a symbolic
// link or a junction).
bool is_link(const std::filesystem::path& path);
bool entry_exists(const std::filesystem::path& path);
bool remove_entry(const std::filesystem::path& path);

// Removes `path` recursively, ignoring errors (links removed, not followed);
// true if nothing is left. Past MAX_PATH on Windows too.
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

// The account name of the owner of `path` (POSIX); nothing on Windows or
// when it cannot be told.
std::optional<std::string> owner_name(const std::filesystem::path& path);
// Whether `path` belongs to this process's user (POSIX: its owner is the
// effective user); false on Windows and when it cannot be told.
bool owned_by_this_user(const std::filesystem::path& path);

// The running program's own file.
std::filesystem::path current_executable();

// Where the running program's helpers (cudnnenv-probe, the shim launcher, the
// audit modules, selftest/) find it, as a path of the program's name in
// their folder: the program itself where they lie beside it (the tarball's
// lib/cudnnenv/, the .deb's, the zip's folder, a build folder), else
// ../lib/cudnnenv/ from the program's folder where the probe is there (a
// wheel puts the program in a Python environment's bin/ or Scripts/ and its
// helpers in that environment's lib/cudnnenv/).
std::filesystem::path installed_program();

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

// How long ago the entry `path` itself (a link, not what it names) was last
// written; nothing when it cannot be read.
std::optional<std::chrono::seconds> entry_age(const std::filesystem::path& path);

// "size:mtime:file id" of the file `path` names (links followed; POSIX: the
// inode and device, Windows: the volume serial and file index), or nothing
// when it cannot be read: a file replaced (a rename over it) changes its id
// even with its size and time kept.
std::optional<std::string> file_stamp(const std::filesystem::path& path);

// Whether a process of that id runs now (a reused id reads as running).
bool process_is_running(unsigned long process_id);

// Removes what killed writers of `path` left (write_file_atomic's
// `<name>.tmp<pid>-<n>`): each whose writer no longer runs (and that is over
// ten seconds old), and any over an hour old. Returns how many went.
// write_file_atomic and add_shim call it first.
std::size_t remove_stale_temporaries(const std::filesystem::path& path);

}  // namespace cudnnenv::util
