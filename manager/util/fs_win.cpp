#include <windows.h>

#include <fcntl.h>
#include <io.h>
#include <sddl.h>
#include <share.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <system_error>
#include <thread>
#include <vector>

#include "util/fs.hpp"
#include "util/text.hpp"
#include "util/win.hpp"

namespace cudnnenv::util {

namespace fs = std::filesystem;

namespace {

// `path` as the wide-character functions take it past MAX_PATH: absolute,
// with backslashes, under \\?\ (which also turns off the parsing of '.' and
// '..', done here first by GetFullPathNameW). Shorter paths stay as they are.
// 248: CreateDirectoryW's own limit (MAX_PATH less an 8.3 name).
std::wstring long_form(const fs::path& path) {
  std::wstring text = path.wstring();
  std::replace(text.begin(), text.end(), L'/', L'\\');
  if (text.size() < MAX_PATH - 12 || text.rfind(L"\\\\?\\", 0) == 0) {
    return text;
  }
  std::wstring full(::GetFullPathNameW(text.c_str(), 0, nullptr, nullptr), L'\0');
  const DWORD length = ::GetFullPathNameW(text.c_str(), static_cast<DWORD>(full.size()), full.data(), nullptr);
  if (length == 0 || length >= full.size()) {
    return text;
  }
  full.resize(length);
  return full.rfind(L"\\\\", 0) == 0 ? L"\\\\?\\UNC\\" + full.substr(2) : L"\\\\?\\" + full;
}

}  // namespace

Result<std::vector<DirectoryEntry>> list_directory(const fs::path& folder) {
  WIN32_FIND_DATAW data{};
  const std::wstring pattern = long_form(folder) + L"\\*";
  HANDLE find = ::FindFirstFileExW(pattern.c_str(), FindExInfoBasic, &data, FindExSearchNameMatch, nullptr,
                                   FIND_FIRST_EX_LARGE_FETCH);
  if (find == INVALID_HANDLE_VALUE) {
    return make_error("cannot list '" + to_utf8(folder) + "': " + last_error_message());
  }
  std::vector<DirectoryEntry> entries;
  do {
    const std::wstring name = data.cFileName;
    if (name == L"." || name == L"..") continue;
    DirectoryEntry entry;
    entry.path = folder / name;
    DWORD attributes = data.dwFileAttributes;
    std::uint64_t size = (static_cast<std::uint64_t>(data.nFileSizeHigh) << 32) | data.nFileSizeLow;
    if (attributes & FILE_ATTRIBUTE_REPARSE_POINT) {
      // A link or junction: what it leads to, as a program opening it would see.
      entry.is_symlink = true;
      attributes = INVALID_FILE_ATTRIBUTES;
      HANDLE target = ::CreateFileW(long_form(entry.path).c_str(), FILE_READ_ATTRIBUTES,
                                    FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                                    FILE_FLAG_BACKUP_SEMANTICS, nullptr);
      BY_HANDLE_FILE_INFORMATION info{};
      if (target != INVALID_HANDLE_VALUE) {
        if (::GetFileInformationByHandle(target, &info)) {
          attributes = info.dwFileAttributes;
          size = (static_cast<std::uint64_t>(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
        }
        ::CloseHandle(target);
      }
    }
    if (attributes != INVALID_FILE_ATTRIBUTES) {
      entry.is_directory = (attributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
      entry.is_regular_file = !entry.is_directory && (attributes & FILE_ATTRIBUTE_DEVICE) == 0;
      entry.size = entry.is_regular_file ? size : 0;
    }
    entries.push_back(std::move(entry));
  } while (::FindNextFileW(find, &data));
  const DWORD error = ::GetLastError();
  ::FindClose(find);
  if (error != ERROR_NO_MORE_FILES) {
    return make_error("cannot list '" + to_utf8(folder) + "': " + last_error_message(error));
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return entries;
}

bool is_plain_directory(const fs::path& path) {
  const DWORD attributes = ::GetFileAttributesW(long_form(path).c_str());
  return attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY) &&
         !(attributes & FILE_ATTRIBUTE_REPARSE_POINT);
}

std::optional<std::string> file_stamp(const fs::path& path) {
  HANDLE file = ::CreateFileW(long_form(path).c_str(), FILE_READ_ATTRIBUTES,
                              FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                              FILE_FLAG_BACKUP_SEMANTICS, nullptr);
  if (file == INVALID_HANDLE_VALUE) return std::nullopt;
  BY_HANDLE_FILE_INFORMATION info{};
  const bool read = ::GetFileInformationByHandle(file, &info) != 0;
  ::CloseHandle(file);
  if (!read) return std::nullopt;
  const auto wide = [](DWORD high, DWORD low) { return (static_cast<std::uint64_t>(high) << 32) | low; };
  return std::to_string(wide(info.nFileSizeHigh, info.nFileSizeLow)) + ":" +
         std::to_string(wide(info.ftLastWriteTime.dwHighDateTime, info.ftLastWriteTime.dwLowDateTime)) + ":" +
         std::to_string(info.dwVolumeSerialNumber) + "." +
         std::to_string(wide(info.nFileIndexHigh, info.nFileIndexLow));
}

std::optional<std::chrono::seconds> entry_age(const fs::path& path) {
  // GetFileAttributesExW reads a reparse point itself, not what it names.
  WIN32_FILE_ATTRIBUTE_DATA data{};
  if (!::GetFileAttributesExW(long_form(path).c_str(), GetFileExInfoStandard, &data)) return std::nullopt;
  FILETIME now{};
  ::GetSystemTimeAsFileTime(&now);
  const auto ticks = [](const FILETIME& time) {
    return (static_cast<std::uint64_t>(time.dwHighDateTime) << 32) | time.dwLowDateTime;
  };
  const std::uint64_t written = ticks(data.ftLastWriteTime);
  const std::uint64_t current = ticks(now);
  return std::chrono::seconds(current > written ? (current - written) / 10000000 : 0);
}

bool is_link(const fs::path& path) {
  const DWORD attributes = ::GetFileAttributesW(long_form(path).c_str());
  return attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_REPARSE_POINT);
}

bool entry_exists(const fs::path& path) {
  return ::GetFileAttributesW(long_form(path).c_str()) != INVALID_FILE_ATTRIBUTES;
}

bool remove_entry(const fs::path& path) {
  const std::wstring name = long_form(path);
  const DWORD attributes = ::GetFileAttributesW(name.c_str());
  if (attributes == INVALID_FILE_ATTRIBUTES) return false;
  if (attributes & FILE_ATTRIBUTE_READONLY) {
    ::SetFileAttributesW(name.c_str(), attributes & ~static_cast<DWORD>(FILE_ATTRIBUTE_READONLY));
  }
  // A folder, a junction or a link to a folder: RemoveDirectoryW removes the link, not what it leads to.
  return (attributes & FILE_ATTRIBUTE_DIRECTORY) ? ::RemoveDirectoryW(name.c_str()) != 0
                                                 : ::DeleteFileW(name.c_str()) != 0;
}

bool remove_tree(const fs::path& path) {
  // Depth first by hand (fs::remove_all lists through directory_iterator):
  // a folder's entries, then the folder. Reparse points (links, junctions)
  // are removed as entries, never entered. By path: an entry swapped for a
  // junction between its check and its listing is entered (POSIX removes by
  // descriptor; README, security model).
  std::vector<std::pair<fs::path, bool>> pending{{path, false}};
  while (!pending.empty()) {
    auto [current, listed] = pending.back();
    if (listed || !is_plain_directory(current)) {
      remove_entry(current);
      pending.pop_back();
      continue;
    }
    pending.back().second = true;
    for (const auto& entry : directory_entries(current)) {
      pending.emplace_back(entry.path, false);
    }
  }
  return !entry_exists(path);
}

namespace {

// A C stream over a handle this file opened (the handle passes to it).
FilePtr stream_of(HANDLE handle, int flags, const char* mode) {
  const int fd = ::_open_osfhandle(reinterpret_cast<std::intptr_t>(handle), flags);
  if (fd < 0) {
    ::CloseHandle(handle);
    return nullptr;
  }
  std::FILE* file = ::_fdopen(fd, mode);
  if (!file) ::_close(fd);
  return FilePtr(file);
}

}  // namespace

Result<FilePtr> create_new_file(const fs::path& path) {
  const std::wstring name = long_form(path);
  for (int attempt = 0; attempt < 3; ++attempt) {
    remove_entry(path);  // a file or a link itself, never what a link leads to
    HANDLE handle = ::CreateFileW(name.c_str(), GENERIC_WRITE, FILE_SHARE_READ, nullptr, CREATE_NEW,
                                  FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
    if (handle != INVALID_HANDLE_VALUE) {
      if (FilePtr file = stream_of(handle, _O_BINARY, "wb")) return file;
      break;
    }
    if (::GetLastError() != ERROR_FILE_EXISTS && ::GetLastError() != ERROR_ALREADY_EXISTS) break;
  }
  const DWORD code = ::GetLastError();
  Error failed = make_error("cannot create '" + to_utf8(path) + "': " + last_error_message(code));
  // errno as _wfopen sets it, for a caller that names the folder's error itself.
  errno = code == ERROR_ACCESS_DENIED ? EACCES : code == ERROR_PATH_NOT_FOUND ? ENOENT : EIO;
  return failed;
}

FilePtr open_own_file(const fs::path& path) {
  HANDLE handle = ::CreateFileW(long_form(path).c_str(), GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ, nullptr,
                                OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
  if (handle == INVALID_HANDLE_VALUE) return nullptr;
  BY_HANDLE_FILE_INFORMATION info{};
  if (!::GetFileInformationByHandle(handle, &info) || (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) ||
      (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) || info.nNumberOfLinks != 1) {
    ::CloseHandle(handle);
    return nullptr;
  }
  return stream_of(handle, _O_BINARY | _O_APPEND, "a+b");
}

Result<void> create_directories_below(const fs::path& base, const fs::path& folder) {
  std::error_code ec;
  fs::create_directories(base, ec);
  fs::path reached = base;
  for (const auto& part : folder.lexically_relative(base)) {
    if (part == "." || part.empty()) continue;
    reached /= part;
    if (part == "..") return make_error("'" + to_utf8(folder) + "' is not below '" + to_utf8(base) + "'");
    if (is_link(reached)) {
      return make_error("'" + to_utf8(reached) + "' is a link or not a folder: cudnnenv does not write through it",
                        "remove it (whoever can write '" + to_utf8(reached.parent_path()) + "' may have put it there)");
    }
    if (!::CreateDirectoryW(long_form(reached).c_str(), nullptr) && ::GetLastError() != ERROR_ALREADY_EXISTS) {
      return make_error("cannot create '" + to_utf8(reached) + "': " + last_error_message());
    }
    if (!is_plain_directory(reached)) {
      return make_error("'" + to_utf8(reached) + "' is a link or not a folder: cudnnenv does not write through it",
                        "remove it (whoever can write '" + to_utf8(reached.parent_path()) + "' may have put it there)");
    }
  }
  return {};
}

FilePtr open_file(const fs::path& path, const char* mode) {
  const std::wstring wide_mode(mode, mode + std::strlen(mode));
  return FilePtr(::_wfopen(path.c_str(), wide_mode.c_str()));
}

Result<FilePtr> open_regular_file(const fs::path& path) {
  FilePtr file(::_wfopen(path.c_str(), L"rb"));
  if (!file) return make_error("cannot read '" + to_utf8(path) + "'");
  // A named pipe or a device (NUL, CON) is no file to read to its end.
  if (::GetFileType(reinterpret_cast<HANDLE>(::_get_osfhandle(::_fileno(file.get())))) != FILE_TYPE_DISK) {
    return make_error("'" + to_utf8(path) + "' is not a regular file");
  }
  return file;
}

Result<FilePtr> open_held_file(const fs::path& path) {
  // _SH_DENYWR: FILE_SHARE_READ alone, so no writer, rename or delete while it is open.
  FilePtr file(::_wfsopen(path.c_str(), L"rb", _SH_DENYWR));
  if (!file) {
    return make_error("cannot read '" + to_utf8(path) + "'",
                      "check that it exists and that no program has it open for writing");
  }
  if (::GetFileType(reinterpret_cast<HANDLE>(::_get_osfhandle(::_fileno(file.get())))) != FILE_TYPE_DISK) {
    return make_error("'" + to_utf8(path) + "' is not a regular file");
  }
  return file;
}

Result<bool> create_private_directory(const fs::path& folder) {
  // An access list of one entry, this user's full control, inherited by what is made inside, and
  // protected from the parent's (P): as mode 0700.
  std::wstring sddl;
  HANDLE token = nullptr;
  if (::OpenProcessToken(::GetCurrentProcess(), TOKEN_QUERY, &token)) {
    DWORD size = 0;
    ::GetTokenInformation(token, TokenUser, nullptr, 0, &size);
    std::vector<unsigned char> buffer(size);
    LPWSTR sid = nullptr;
    if (size && ::GetTokenInformation(token, TokenUser, buffer.data(), size, &size) &&
        ::ConvertSidToStringSidW(reinterpret_cast<TOKEN_USER*>(buffer.data())->User.Sid, &sid)) {
      sddl = L"D:P(A;OICI;FA;;;" + std::wstring(sid) + L")";
      ::LocalFree(sid);
    }
    ::CloseHandle(token);
  }
  if (sddl.empty()) return make_error("cannot read this user's identity: " + last_error_message());
  PSECURITY_DESCRIPTOR descriptor = nullptr;
  if (!::ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl.c_str(), SDDL_REVISION_1, &descriptor, nullptr)) {
    return make_error("cannot make an access list: " + last_error_message());
  }
  SECURITY_ATTRIBUTES attributes{sizeof(SECURITY_ATTRIBUTES), descriptor, FALSE};
  const bool made = ::CreateDirectoryW(long_form(folder).c_str(), &attributes);
  const DWORD code = ::GetLastError();
  ::LocalFree(descriptor);
  if (made) return true;
  if (code == ERROR_ALREADY_EXISTS) return false;
  return make_error("cannot create '" + to_utf8(folder) + "': " + last_error_message(code));
}

bool seek_file(std::FILE* file, std::uint64_t offset) {
  return ::_fseeki64(file, static_cast<__int64>(offset), SEEK_SET) == 0;
}

std::uint64_t file_size(std::FILE* file) {
  LARGE_INTEGER size{};
  return ::GetFileSizeEx(reinterpret_cast<HANDLE>(::_get_osfhandle(::_fileno(file))), &size)
             ? static_cast<std::uint64_t>(size.QuadPart)
             : 0;
}

Result<void> sync_file(std::FILE* file) {
  if (!::FlushFileBuffers(reinterpret_cast<HANDLE>(::_get_osfhandle(::_fileno(file))))) {
    return make_error("FlushFileBuffers failed: " + last_error_message());
  }
  return {};
}

void start_writeback(std::FILE*) {}  // FlushFileBuffers is the only way, and it waits

Result<void> sync_entry(const fs::path& path, bool folder) {
  if (folder) return {};  // NTFS journals the names
  const HANDLE file =
      ::CreateFileW(long_form(path).c_str(), GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                    nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (file == INVALID_HANDLE_VALUE) {
    return make_error("cannot open '" + to_utf8(path) + "' to flush it: " + last_error_message());
  }
  const bool flushed = ::FlushFileBuffers(file);
  const DWORD code = ::GetLastError();
  ::CloseHandle(file);
  if (!flushed) return make_error("cannot flush '" + to_utf8(path) + "': " + last_error_message(code));
  return {};
}

Result<void> sync_directory(const fs::path&) {
  return {};
}

bool running_as_root() {
  return false;
}

std::optional<unsigned long> foreign_owner(const fs::path&) {
  return std::nullopt;
}

std::optional<std::string> changeable_by_others(const fs::path&) {
  return std::nullopt;
}

namespace {

// MoveFileExW(from, to, flags), retried for about two seconds while it fails
// with ERROR_ACCESS_DENIED or ERROR_SHARING_VIOLATION: a virus scanner or an
// indexer that opened a freshly written file, or a reader (Jupyter reading
// kernel.json) that opened the file being replaced without FILE_SHARE_DELETE,
// holds it for a moment. 0 when moved, else the last error.
DWORD move_with_retry(const fs::path& from, const fs::path& to, DWORD flags) {
  for (int attempt = 0;; ++attempt) {
    if (::MoveFileExW(from.c_str(), to.c_str(), flags)) return 0;
    const DWORD code = ::GetLastError();
    if (attempt >= 20 || (code != ERROR_ACCESS_DENIED && code != ERROR_SHARING_VIOLATION)) return code;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

Result<void> replace_file(const fs::path& from, const fs::path& to) {
  if (const DWORD code = move_with_retry(from, to, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH); code != 0) {
    return make_error("cannot rename '" + to_utf8(from) + "' to '" + to_utf8(to) + "': " + last_error_message(code));
  }
  return {};
}

Result<void> rename_directory(const fs::path& from, const fs::path& to) {
  // Without MOVEFILE_REPLACE_EXISTING the move fails when `to` exists.
  const DWORD code = move_with_retry(from, to, MOVEFILE_WRITE_THROUGH);
  if (code == 0) return {};
  if (code == ERROR_ALREADY_EXISTS || code == ERROR_FILE_EXISTS) {
    return make_error("'" + to_utf8(to) + "' already exists");
  }
  return make_error("cannot move '" + to_utf8(from) + "' to '" + to_utf8(to) + "': " + last_error_message(code));
}

Result<void> create_link_or_copy(const fs::path& target_in_tree, const std::string& /*link_text*/,
                                 const fs::path& path) {
  // Symbolic links need SeCreateSymbolicLinkPrivilege (or developer mode);
  // a copy behaves the same for every loader.
  std::error_code ec;
  if (!fs::is_regular_file(target_in_tree, ec)) {
    return make_error("link '" + to_utf8(path) + "' points to '" + to_utf8(target_in_tree) +
                      "', which is not a file in the archive");
  }
  fs::copy_file(target_in_tree, path, fs::copy_options::overwrite_existing, ec);
  if (ec) {
    return make_error("cannot copy '" + to_utf8(target_in_tree) + "' to '" + to_utf8(path) + "': " + ec.message());
  }
  return {};
}

Result<FileLock> FileLock::acquire(const fs::path& path) {
  HANDLE handle = ::CreateFileW(
      path.c_str(), GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
      OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);  // a link itself, never its target
  if (handle == INVALID_HANDLE_VALUE) {
    return make_error("cannot open lock file '" + to_utf8(path) + "': " + last_error_message(),
                      "check that the store folder is writable");
  }
  OVERLAPPED overlapped{};
  if (!::LockFileEx(handle, LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &overlapped)) {
    const std::string message = last_error_message();
    ::CloseHandle(handle);
    return make_error("cannot lock '" + to_utf8(path) + "': " + message);
  }
  FileLock lock;
  lock.m_handle = reinterpret_cast<std::intptr_t>(handle);
  return lock;
}

std::optional<FileLock> FileLock::try_acquire(const fs::path& path) {
  HANDLE handle = ::CreateFileW(
      path.c_str(), GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
      OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);  // a link itself, never its target
  if (handle == INVALID_HANDLE_VALUE) {
    return std::nullopt;
  }
  OVERLAPPED overlapped{};
  if (!::LockFileEx(handle, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &overlapped)) {
    ::CloseHandle(handle);
    return std::nullopt;
  }
  FileLock lock;
  lock.m_handle = reinterpret_cast<std::intptr_t>(handle);
  return lock;
}

FileLock::FileLock(FileLock&& other) noexcept : m_handle(other.m_handle) {
  other.m_handle = -1;
}

FileLock::~FileLock() {
  if (m_handle != -1) {
    ::CloseHandle(reinterpret_cast<HANDLE>(m_handle));
  }
}

fs::path current_executable() {
  std::wstring buffer(MAX_PATH, L'\0');
  while (true) {
    const DWORD length = ::GetModuleFileNameW(nullptr, buffer.data(), static_cast<DWORD>(buffer.size()));
    if (length < buffer.size()) {
      buffer.resize(length);
      return fs::path(buffer);
    }
    buffer.resize(buffer.size() * 2);
  }
}

fs::path final_path(const fs::path& path) {
  HANDLE file = ::CreateFileW(path.c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                              OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
  if (file != INVALID_HANDLE_VALUE) {
    std::wstring resolved = final_path_of(file);
    ::CloseHandle(file);
    if (!resolved.empty()) return fs::path(resolved);
  }
  std::error_code ec;
  return fs::weakly_canonical(path, ec);
}

std::optional<std::string> short_path(const fs::path& path) {
  const DWORD size = ::GetShortPathNameW(path.c_str(), nullptr, 0);
  if (size == 0) return std::nullopt;
  std::wstring buffer(size, L'\0');
  const DWORD length = ::GetShortPathNameW(path.c_str(), buffer.data(), size);
  if (length == 0 || length >= size) return std::nullopt;
  buffer.resize(length);
  return to_utf8(fs::path(buffer));
}

unsigned long current_process_id() {
  return ::GetCurrentProcessId();
}

bool process_is_running(unsigned long process_id) {
  const HANDLE process = ::OpenProcess(SYNCHRONIZE, FALSE, static_cast<DWORD>(process_id));
  if (!process) return ::GetLastError() == ERROR_ACCESS_DENIED;  // another user's: it runs
  const bool running = ::WaitForSingleObject(process, 0) == WAIT_TIMEOUT;
  ::CloseHandle(process);
  return running;
}

bool is_writable_directory(const std::filesystem::path& path) {
  return ::_waccess(path.c_str(), 2) == 0;
}

bool owned_by_this_user(const std::filesystem::path&) {
  return false;
}

std::optional<std::string> owner_name(const std::filesystem::path&) {
  return std::nullopt;
}

std::optional<fs::path> account_home_folder() {
  return std::nullopt;
}

}  // namespace cudnnenv::util
