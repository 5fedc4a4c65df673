#include <chrono>
#include <random>
#include <system_error>

#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::util {

namespace fs = std::filesystem;

Result<std::string> read_file(const fs::path& path) {
  FilePtr file = open_file(path, "rb");
  if (!file) {
    return make_error("cannot read '" + to_utf8(path) + "'");
  }
  std::string content;
  char buffer[65536];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) {
    content.append(buffer, got);
  }
  if (std::ferror(file.get())) {
    return make_error("cannot read '" + to_utf8(path) + "'");
  }
  return content;
}

bool remove_tree(const fs::path& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  return !fs::exists(fs::symlink_status(path, ec));
}

namespace {

// What a killed writer of `path` left: `<name>.tmp<pid>-<n>` files over an
// hour old (a live writer renames its file within moments).
void sweep_stale_temporaries(const fs::path& path) {
  std::error_code ec;
  const fs::path::string_type prefix = path.filename().native() + fs::path(".tmp").native();
  const auto now = fs::file_time_type::clock::now();
  for (const auto& entry : fs::directory_iterator(path.parent_path(), ec)) {
    if (entry.path().filename().native().rfind(prefix, 0) != 0) continue;
    const auto written = entry.last_write_time(ec);
    if (!ec && now - written > std::chrono::hours(1)) {
      fs::remove(entry.path(), ec);
    }
  }
}

}  // namespace

Result<void> write_file_atomic(const fs::path& path, std::string_view content) {
  sweep_stale_temporaries(path);
  std::random_device random;
  const fs::path temporary =
      path.parent_path() /
      (path.filename().string() + ".tmp" + std::to_string(current_process_id()) + "-" + std::to_string(random()));
  {
    FilePtr file = open_file(temporary, "wb");
    if (!file) {
      return make_error("cannot write '" + to_utf8(temporary) + "'", "check that the folder exists and is writable");
    }
    if (std::fwrite(content.data(), 1, content.size(), file.get()) != content.size() || std::fflush(file.get()) != 0) {
      file.reset();
      std::error_code ec;
      fs::remove(temporary, ec);
      return make_error("cannot write '" + to_utf8(temporary) + "'", "check free disk space");
    }
    sync_file(file.get());
  }
  auto replaced = replace_file(temporary, path);
  if (!replaced) {
    std::error_code ec;
    fs::remove(temporary, ec);
  }
  return replaced;
}

}  // namespace cudnnenv::util
