#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::util {

namespace fs = std::filesystem;

Result<std::vector<DirectoryEntry>> list_directory(const fs::path& folder) {
  std::error_code ec;
  std::vector<DirectoryEntry> entries;
  for (fs::directory_iterator it(folder, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    DirectoryEntry entry;
    entry.path = it->path();
    // The kinds from the listing itself (d_type), no stat(2) but for a link
    // (listing the store is on the way of `current`) or a file's size.
    std::error_code status_error;  // a broken link: neither a folder nor a file
    entry.is_symlink = it->is_symlink(status_error);
    entry.is_directory = it->is_directory(status_error);
    entry.is_regular_file = !entry.is_directory && it->is_regular_file(status_error);
    if (entry.is_regular_file) {
      const std::uintmax_t size = it->file_size(status_error);
      entry.size = status_error ? 0 : size;
    }
    entries.push_back(std::move(entry));
  }
  if (ec) {
    return make_error("cannot list '" + to_utf8(folder) + "': " + ec.message());
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return entries;
}

bool is_plain_directory(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(fs::symlink_status(path, ec));
}

std::optional<std::string> file_stamp(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return std::to_string(info.st_size) + ":" + std::to_string(info.st_mtim.tv_sec) + "." +
         std::to_string(info.st_mtim.tv_nsec) + ":" + std::to_string(info.st_dev) + "." + std::to_string(info.st_ino);
}

std::optional<std::chrono::seconds> entry_age(const fs::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return std::nullopt;
  return std::chrono::seconds(::time(nullptr) - info.st_mtime);
}

bool is_link(const fs::path& path) {
  std::error_code ec;
  return fs::is_symlink(fs::symlink_status(path, ec));
}

bool entry_exists(const fs::path& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

bool remove_entry(const fs::path& path) {
  std::error_code ec;
  return fs::remove(path, ec);
}

namespace {

// The names in the open folder `folder` ('.' and '..' left out); `folder`
// stays open.
std::vector<std::string> names_at(int folder) {
  std::vector<std::string> names;
  const int copy = ::fcntl(folder, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return names;
  DIR* listing = ::fdopendir(copy);
  if (!listing) {
    ::close(copy);
    return names;
  }
  ::rewinddir(listing);
  while (const dirent* entry = ::readdir(listing)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  ::closedir(listing);
  return names;
}

// How deep remove_tree goes (one descriptor open per level): a deeper
// folder is left, and remove_tree says so.
constexpr std::size_t k_max_removal_depth = 256;

}  // namespace

bool remove_tree(const fs::path& path) {
  // Every folder is opened from its parent's descriptor with O_NOFOLLOW and
  // every entry removed with unlinkat from there: an entry that someone who
  // can write a folder swaps for a link between the listing and the removal
  // is removed as a link, never followed (a path, re-read at each step,
  // would lead wherever the link points).
  const fs::path named = path.filename().empty() ? path.parent_path() : path;  // "a/b/" is "a/b"
  const fs::path parent = named.has_parent_path() ? named.parent_path() : fs::path(".");
  const int above = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (above < 0) return !entry_exists(path);
  const std::string top = named.filename().string();
  struct Level {
    int folder;
    std::vector<std::string> names;
    std::size_t next = 0;
  };
  std::vector<Level> levels;
  const auto enter = [&](int at, const std::string& name) {
    if (levels.size() >= k_max_removal_depth) return false;
    const int folder = ::openat(at, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (folder < 0) return false;
    levels.push_back({folder, names_at(folder)});
    return true;
  };
  // The entry itself: a file or a link goes at once; a folder is emptied first.
  const auto remove_at = [&](int at, const std::string& name) {
    if (::unlinkat(at, name.c_str(), 0) == 0 || errno == ENOENT) return;
    if (errno == EISDIR || errno == EPERM) enter(at, name);
  };
  remove_at(above, top);
  while (!levels.empty()) {
    Level& level = levels.back();
    if (level.next < level.names.size()) {
      const std::string name = level.names[level.next++];
      remove_at(level.folder, name);  // may enter it: `level` is not used again
      continue;
    }
    const int folder = level.folder;
    levels.pop_back();
    ::close(folder);
    const int at = levels.empty() ? above : levels.back().folder;
    const std::string& name = levels.empty() ? top : levels.back().names[levels.back().next - 1];
    ::unlinkat(at, name.c_str(), AT_REMOVEDIR);
  }
  ::close(above);
  return !entry_exists(path);
}

Result<FilePtr> create_new_file(const fs::path& path) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT && errno != EISDIR && errno != EPERM) break;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
      if (std::FILE* file = ::fdopen(fd, "wb")) return FilePtr(file);
      ::close(fd);
      break;
    }
    if (errno != EEXIST) break;  // made again between the unlink and the open: once more
  }
  const int error = errno;
  Error failed = make_error("cannot create '" + to_utf8(path) + "': " + std::strerror(error));
  errno = error;  // for a caller that names the folder's error itself
  return failed;
}

FilePtr open_own_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_uid != ::geteuid() || info.st_nlink != 1) {
    ::close(fd);
    return nullptr;
  }
  std::FILE* file = ::fdopen(fd, "a+b");
  if (!file) ::close(fd);
  return FilePtr(file);
}

Result<void> create_directories_below(const fs::path& base, const fs::path& folder) {
  std::error_code ec;
  fs::create_directories(base, ec);
  int at = ::open(base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (at < 0) return make_error("cannot open '" + to_utf8(base) + "': " + std::strerror(errno));
  fs::path reached = base;
  for (const auto& part : folder.lexically_relative(base)) {
    if (part == "." || part.empty()) continue;
    reached /= part;
    if (part == "..") {
      ::close(at);
      return make_error("'" + to_utf8(folder) + "' is not below '" + to_utf8(base) + "'");
    }
    if (::mkdirat(at, part.c_str(), 0755) != 0 && errno != EEXIST) {
      const int error = errno;
      ::close(at);
      return make_error("cannot create '" + to_utf8(reached) + "': " + std::strerror(error));
    }
    const int next = ::openat(at, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int error = errno;
    ::close(at);
    if (next < 0) {
      return make_error(error == ELOOP || error == ENOTDIR
                            ? "'" + to_utf8(reached) + "' is a link or not a folder: cudnnenv does not write through it"
                            : "cannot open '" + to_utf8(reached) + "': " + std::strerror(error),
                        "remove it (whoever can write '" + to_utf8(reached.parent_path()) + "' may have put it there)");
    }
    at = next;
  }
  ::close(at);
  return {};
}

FilePtr open_file(const fs::path& path, const char* mode) {
  return FilePtr(std::fopen(path.c_str(), mode));
}

Result<FilePtr> open_regular_file(const fs::path& path) {
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
  const int descriptor = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (descriptor < 0) return make_error("cannot read '" + to_utf8(path) + "': " + std::strerror(errno));
  struct stat info {};
  if (::fstat(descriptor, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(descriptor);
    return make_error("'" + to_utf8(path) + "' is not a regular file");
  }
  // O_NONBLOCK stays: it has no effect on a regular file's reads (open(2)), and clearing it cost two calls per file.
  std::FILE* file = ::fdopen(descriptor, "rb");
  if (file == nullptr) {
    ::close(descriptor);
    return make_error("cannot read '" + to_utf8(path) + "'");
  }
  return FilePtr(file);
}

Result<FilePtr> open_held_file(const fs::path& path) {
  return open_regular_file(path);  // the descriptor is the file, whatever its name becomes
}

Result<bool> create_private_directory(const fs::path& folder) {
  if (::mkdir(folder.c_str(), 0700) == 0) return true;
  if (errno == EEXIST) return false;
  return make_error("cannot create '" + to_utf8(folder) + "': " + std::strerror(errno));
}

bool seek_file(std::FILE* file, std::uint64_t offset) {
  return ::fseeko(file, static_cast<off_t>(offset), SEEK_SET) == 0;
}

std::uint64_t file_size(std::FILE* file) {
  struct stat info {};
  return ::fstat(::fileno(file), &info) == 0 ? static_cast<std::uint64_t>(info.st_size) : 0;
}

Result<void> sync_file(std::FILE* file) {
  if (::fsync(::fileno(file)) != 0) return make_error(std::string("fsync failed: ") + std::strerror(errno));
  return {};
}

void start_writeback(std::FILE* file) {
#ifdef __linux__
  ::sync_file_range(::fileno(file), 0, 0, SYNC_FILE_RANGE_WRITE);
#else
  (void)file;
#endif
}

namespace {

// Runs `sync` on `folder` opened as a folder.
Result<void> sync_folder_with(const fs::path& folder, int (*sync)(int), const char* what) {
  const int descriptor = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (descriptor < 0) return make_error("cannot open '" + to_utf8(folder) + "': " + std::strerror(errno));
  const int result = sync(descriptor);
  const int error = errno;
  ::close(descriptor);
  if (result != 0)
    return make_error(std::string(what) + " of '" + to_utf8(folder) + "' failed: " + std::strerror(error));
  return {};
}

}  // namespace

Result<void> sync_entry(const fs::path& path, bool folder) {
  const int descriptor = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | (folder ? O_DIRECTORY : 0));
  if (descriptor < 0) return make_error("cannot open '" + to_utf8(path) + "': " + std::strerror(errno));
  const int result = ::fsync(descriptor);
  const int error = errno;
  ::close(descriptor);
  if (result != 0) return make_error("fsync of '" + to_utf8(path) + "' failed: " + std::strerror(error));
  return {};
}

Result<void> sync_directory(const fs::path& folder) {
  return sync_folder_with(folder, ::fsync, "fsync");
}

bool running_as_root() {
  return ::geteuid() == 0;
}

std::optional<unsigned long> foreign_owner(const fs::path& file) {
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0 || info.st_uid == 0 || info.st_uid == ::geteuid()) return std::nullopt;
  return static_cast<unsigned long>(info.st_uid);
}

std::optional<std::string> changeable_by_others(const fs::path& file) {
  const uid_t user = ::geteuid();
  const gid_t group = ::getegid();
  // The file a load would map: links followed (a link in a safe folder may point anywhere).
  std::error_code ec;
  fs::path path = fs::weakly_canonical(fs::absolute(file, ec), ec);
  if (ec) return "'" + to_utf8(file) + "' cannot be resolved";
  for (bool first = true;; first = false) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) return "'" + to_utf8(path) + "' cannot be read";
    if (info.st_uid != user && info.st_uid != 0) {
      return "'" + to_utf8(path) + "' belongs to another user (uid " + std::to_string(info.st_uid) + ")";
    }
    const bool sticky_folder = !first && S_ISDIR(info.st_mode) && (info.st_mode & S_ISVTX) != 0;
    if ((info.st_mode & S_IWOTH) != 0 && !sticky_folder) return "'" + to_utf8(path) + "' is writable by everyone";
    if ((info.st_mode & S_IWGRP) != 0 && info.st_gid != 0 && info.st_gid != group && !sticky_folder) {
      return "'" + to_utf8(path) + "' is writable by its group (gid " + std::to_string(info.st_gid) + ")";
    }
    if (!path.has_relative_path()) return std::nullopt;  // the root folder, checked
    path = path.parent_path();
  }
}

Result<void> replace_file(const fs::path& from, const fs::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return make_error("cannot rename '" + to_utf8(from) + "' to '" + to_utf8(to) + "': " + std::strerror(errno));
  }
  return {};
}

Result<void> rename_directory(const fs::path& from, const fs::path& to) {
  // rename(2) replaces an empty directory silently; check first so that an
  // existing tree is never touched. The caller holds the tree's lock.
  std::error_code ec;
  if (fs::exists(fs::symlink_status(to, ec))) {
    return make_error("'" + to_utf8(to) + "' already exists");
  }
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return make_error("cannot move '" + to_utf8(from) + "' to '" + to_utf8(to) + "': " + std::strerror(errno));
  }
  return {};
}

Result<void> create_link_or_copy(const fs::path& /*target_in_tree*/, const std::string& link_text,
                                 const fs::path& path) {
  if (::symlink(link_text.c_str(), path.c_str()) != 0) {
    return make_error("cannot create link '" + to_utf8(path) + "': " + std::strerror(errno));
  }
  return {};
}

Result<FileLock> FileLock::acquire(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);  // a planted link: ELOOP
  if (fd < 0) {
    return make_error("cannot open lock file '" + to_utf8(path) + "': " +
                          (errno == ELOOP ? std::string("it is a symbolic link, which a lock file never is")
                                          : std::string(std::strerror(errno))),
                      errno == ELOOP ? "remove the link; cudnnenv makes the lock file itself"
                                     : "check that the store folder is writable");
  }
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      ::close(fd);
      return make_error("cannot lock '" + to_utf8(path) + "': " + std::strerror(errno));
    }
  }
  FileLock lock;
  lock.m_handle = fd;
  return lock;
}

std::optional<FileLock> FileLock::try_acquire(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);  // a planted link: ELOOP
  if (fd < 0) {
    return std::nullopt;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return std::nullopt;
  }
  FileLock lock;
  lock.m_handle = fd;
  return lock;
}

FileLock::FileLock(FileLock&& other) noexcept : m_handle(other.m_handle) {
  other.m_handle = -1;
}

FileLock::~FileLock() {
  if (m_handle >= 0) {
    ::close(static_cast<int>(m_handle));
  }
}

fs::path current_executable() {
  char buffer[PATH_MAX];
  const ssize_t length = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (length <= 0) {
    return {};
  }
  return fs::path(std::string(buffer, static_cast<std::size_t>(length)));
}

fs::path final_path(const fs::path& path) {
  std::error_code ec;
  return fs::weakly_canonical(path, ec);
}

std::optional<std::string> short_path(const fs::path&) {
  return std::nullopt;
}

bool is_writable_directory(const fs::path& path) {
  return ::access(path.c_str(), W_OK | X_OK) == 0;
}

bool owned_by_this_user(const fs::path& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && info.st_uid == ::geteuid();
}

std::optional<std::string> owner_name(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  std::vector<char> buffer(16384);
  struct passwd entry {};
  struct passwd* found = nullptr;
  if (::getpwuid_r(info.st_uid, &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
    return std::to_string(info.st_uid);
  }
  return std::string(found->pw_name);
}

unsigned long current_process_id() {
  return static_cast<unsigned long>(::getpid());
}

bool process_is_running(unsigned long process_id) {
  return process_id != 0 && (::kill(static_cast<pid_t>(process_id), 0) == 0 || errno == EPERM);
}

std::optional<fs::path> account_home_folder() {
  auto passwd = read_file("/etc/passwd", 16 << 20);
  if (!passwd) return std::nullopt;
  const std::string uid = std::to_string(::getuid());
  for (const auto& line : split(*passwd, '\n')) {
    const auto fields = split(line, ':');  // name:password:uid:gid:gecos:home:shell
    if (fields.size() >= 6 && fields[2] == uid && !fields[5].empty() && fields[5].front() == '/') {
      return fs::path(fields[5]);
    }
  }
  return std::nullopt;
}

}  // namespace cudnnenv::util
