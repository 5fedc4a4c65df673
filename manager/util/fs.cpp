#include <cerrno>
#include <chrono>
#include <random>
#include <system_error>

#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::util {

namespace fs = std::filesystem;

Result<std::string> read_file(const fs::path& path) {
  return read_file(path, k_max_read_file);
}

Result<std::string> read_file(const fs::path& path, std::size_t max_bytes) {
  CUDNNENV_TRY_ASSIGN(file, open_regular_file(path));
  std::string content;
  char buffer[65536];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, file->get())) > 0) {
    if (got > max_bytes - content.size()) {
      const std::string limit =
          max_bytes % 1024 == 0 ? std::to_string(max_bytes / 1024) + " KiB" : std::to_string(max_bytes) + " bytes";
      return make_error("'" + to_utf8(path) + "' is larger than " + limit + ": refused",
                        "a file cudnnenv reads as settings is a few lines; this one is something else");
    }
    content.append(buffer, got);
  }
  if (std::ferror(file->get())) {
    return make_error("cannot read '" + to_utf8(path) + "'");
  }
  return content;
}

std::vector<DirectoryEntry> directory_entries(const fs::path& folder) {
  auto entries = list_directory(folder);
  return entries ? std::move(*entries) : std::vector<DirectoryEntry>{};
}

Result<std::optional<DirectoryEntry>> DirectoryWalk::next() {
  if (!m_started) {
    m_started = true;
    CUDNNENV_TRY_ASSIGN(entries, list_directory(m_root));
    m_levels.push_back({std::move(*entries)});
  }
  // An explicit stack: a folder nested thousands deep must not exhaust the call stack.
  while (!m_levels.empty() && m_levels.back().next == m_levels.back().entries.size()) {
    m_levels.pop_back();
  }
  if (m_levels.empty()) {
    return std::optional<DirectoryEntry>();
  }
  m_depth = static_cast<int>(m_levels.size()) - 1;
  const DirectoryEntry& entry = m_levels.back().entries[m_levels.back().next++];
  m_last = entry.path;
  return std::optional<DirectoryEntry>(entry);
}

Result<void> DirectoryWalk::enter() {
  CUDNNENV_TRY_ASSIGN(entries, list_directory(m_last));
  m_levels.push_back({std::move(*entries)});
  return {};
}

void walk_directory(const fs::path& root, const std::function<bool(const DirectoryEntry&, int)>& visit) {
  DirectoryWalk walk(root);
  for (;;) {
    auto entry = walk.next();
    if (!entry || !*entry) return;
    if (visit(**entry, walk.depth()) && (*entry)->is_directory) {
      (void)walk.enter();  // a folder that cannot be listed: nothing in it
    }
  }
}

std::size_t remove_stale_temporaries(const fs::path& path) {
  std::error_code ec;
  const fs::path::string_type prefix = path.filename().native() + fs::path(".tmp").native();
  std::size_t removed = 0;
  for (const auto& entry : directory_entries(path.parent_path())) {
    const fs::path::string_type name = entry.path.filename().native();
    if (name.rfind(prefix, 0) != 0) continue;
    // <prefix><pid>-<n>: a writer that no longer runs renames nothing.
    const std::string rest = to_utf8(fs::path(name.substr(prefix.size())));
    const auto dash = rest.find('-');
    unsigned long writer = 0;
    for (std::size_t i = 0; i < dash && i < rest.size() && i < 10; ++i) {
      if (rest[i] < '0' || rest[i] > '9') {
        writer = 0;
        break;
      }
      writer = writer * 10 + static_cast<unsigned long>(rest[i] - '0');
    }
    // (A writer on another host of a shared store has an id that means
    // nothing here: a file of a few seconds is left to its writer.)
    // The entry's own age: a temporary that is a link (add_shim's) would otherwise have its target's.
    const auto age = entry_age(entry.path);
    const bool old = age && *age > std::chrono::hours(1);
    const bool orphan = age && *age > std::chrono::seconds(10) && writer != 0 && !process_is_running(writer);
    if ((old || orphan) && remove_entry(entry.path)) ++removed;
  }
  return removed;
}

std::optional<fs::path> link_on_the_way(const fs::path& base, const fs::path& target) {
  const fs::path relative = target.lexically_relative(base);
  if (relative.empty() || *relative.begin() == "..") return is_link(target) ? std::optional(target) : std::nullopt;
  fs::path path = base;
  for (const auto& part : relative) {
    if (part == ".") continue;
    path /= part;
    if (is_link(path)) return path;
    if (!entry_exists(path)) return std::nullopt;
  }
  return std::nullopt;
}

Result<fs::path> make_private_directory(const fs::path& parent, const std::string& prefix) {
  std::random_device random;
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::uint64_t salt = (static_cast<std::uint64_t>(random()) << 32) | random();
    const fs::path folder =
        parent / path_from_utf8(prefix + std::to_string(current_process_id()) + "-" + std::to_string(salt));
    CUDNNENV_TRY_ASSIGN(made, create_private_directory(folder));
    if (*made) return folder;
  }
  return make_error("cannot make a folder of its own in '" + to_utf8(parent) +
                        "': every name tried was taken (someone is creating them)",
                    "use a temporary folder only you can write (TMPDIR, TEMP)");
}

fs::path installed_program() {
  static const fs::path found = [] {
    const fs::path program = current_executable();
    const fs::path probe = program.extension() == ".exe" ? "cudnnenv-probe.exe" : "cudnnenv-probe";
    std::error_code ec;
    if (program.empty() || fs::exists(program.parent_path() / probe, ec)) return program;
    const fs::path helpers = program.parent_path().parent_path() / "lib" / "cudnnenv";
    return fs::exists(helpers / probe, ec) ? helpers / program.filename() : program;
  }();
  return found;
}

fs::path temporary_beside(const fs::path& path) {
  std::random_device random;
  const std::uint64_t salt = (static_cast<std::uint64_t>(random()) << 32) | random();
  return path.parent_path() / (path.filename().native() + fs::path(".tmp").native() +
                               fs::path(std::to_string(current_process_id()) + "-" + std::to_string(salt)).native());
}

Result<void> write_file_atomic(const fs::path& path, std::string_view content) {
  remove_stale_temporaries(path);
  const fs::path temporary = temporary_beside(path);
  const auto failed = [&](const std::string& why, const std::string& hint) -> Result<void> {
    std::error_code ec;
    fs::remove(temporary, ec);
    return make_error("cannot write '" + to_utf8(path) + "': " + why +
                          (fs::exists(path, ec) ? "; it was left as it was" : "; nothing was written"),
                      hint);
  };
  {
    auto created = create_new_file(temporary);  // never through a link planted under the name
    FilePtr file = created ? std::move(*created) : nullptr;
    if (!file) {
      // Named by the folder: the temporary file beside `path` is this function's own business.
      const int error = errno;
      const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
      return failed(
          "its folder '" + to_utf8(folder) + "' cannot be written (" + std::generic_category().message(error) + ")",
          "check that the folder exists and is yours to write");
    }
    if (std::fwrite(content.data(), 1, content.size(), file.get()) != content.size() || std::fflush(file.get()) != 0) {
      file.reset();
      return failed("the write failed", "check free disk space");
    }
    if (auto synced = sync_file(file.get()); !synced) {
      file.reset();
      return failed(synced.error().message, "check the disk: it reported an error writing the file");
    }
    if (std::fclose(file.release()) != 0) {
      return failed("the write failed", "check free disk space");
    }
  }
  if (auto replaced = replace_file(temporary, path); !replaced) {
    std::error_code ec;
    fs::remove(temporary, ec);
    return replaced;
  }
  // The rename is on disk only once the folder is.
  if (auto synced = sync_directory(path.parent_path().empty() ? fs::path(".") : path.parent_path()); !synced) {
    return make_error("'" + to_utf8(path) + "' was replaced, but its folder could not be flushed to disk (" +
                          synced.error().message + "): a power cut could still bring the old file back",
                      "check the disk: it reported an error");
  }
  return {};
}

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  return !a.empty() && !b.empty() && std::filesystem::equivalent(a, b, ec);
}

Result<void> sync_tree(const fs::path& folder) {
  DirectoryWalk walk(folder);
  for (;;) {
    CUDNNENV_TRY_ASSIGN(entry, walk.next());
    if (!*entry) break;
    if ((*entry)->is_symlink) continue;  // a link's name is its folder's entry; what it names is elsewhere
    if ((*entry)->is_directory) {
      CUDNNENV_TRY(walk.enter());
      CUDNNENV_TRY(sync_entry((*entry)->path, true));
    } else if ((*entry)->is_regular_file) {
      CUDNNENV_TRY(sync_entry((*entry)->path, false));
    }
  }
  return sync_entry(folder, true);
}

}  // namespace cudnnenv::util
