#include "formats/archive.hpp"

#include <system_error>

#include "formats/archive_name.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

class ZipSource final : public ArchiveSource {
 public:
  explicit ZipSource(ZipReader reader) : m_reader(std::move(reader)) {}

  Result<bool> next(ArchiveEntry& entry) override {
    if (m_index >= m_reader.entries().size()) {
      return false;
    }
    const ZipEntry& zip_entry = m_reader.entries()[m_index++];
    entry = ArchiveEntry{};
    entry.name = zip_entry.name;
    entry.size = zip_entry.size;
    const std::uint32_t type = zip_entry.unix_file_type();
    if (zip_entry.is_directory() || type == 0040000) {
      entry.type = EntryType::directory;
    } else if (type == 0120000) {
      // Info-ZIP stores a symbolic link's target as the entry's data.
      entry.type = EntryType::symlink;
      std::string target;
      auto read = m_reader.read(zip_entry, [&](std::string_view chunk) -> Result<void> {
        target.append(chunk);
        if (target.size() > 4096) {
          return make_error("symbolic link '" + zip_entry.name + "' has an overlong target");
        }
        return {};
      });
      if (!read) {
        return std::move(read).error();
      }
      entry.link_target = std::move(target);
    } else if (type != 0 && type != 0100000) {
      entry.type = EntryType::special;
      entry.special_kind = "special file (mode " + std::to_string(type >> 12) + ")";
    } else {
      entry.type = EntryType::file;
    }
    return true;
  }

  Result<void> read_data(const DataSink& sink) override { return m_reader.read(m_reader.entries()[m_index - 1], sink); }

 private:
  ZipReader m_reader;
  std::size_t m_index = 0;
};

// A folder read like an archive, so that folder installs pass the same
// checks: links leading out, special files. Listed through util (past
// MAX_PATH on Windows too), a folder's entries right after it; links are
// entries, never followed.
class FolderSource final : public ArchiveSource {
 public:
  explicit FolderSource(fs::path root) : m_root(std::move(root)), m_walk(m_root) {}

  Result<bool> next(ArchiveEntry& entry) override {
    auto next_entry = m_walk.next();
    if (!next_entry) {
      return cannot_read(next_entry.error());
    }
    if (!*next_entry) {
      return false;
    }
    const util::DirectoryEntry& found = **next_entry;
    m_current = found.path;
    entry = ArchiveEntry{};
    entry.name = util::generic_utf8(found.path.lexically_relative(m_root));
    std::error_code ec;
    if (found.is_symlink) {
      entry.type = EntryType::symlink;
      entry.link_target = util::generic_utf8(fs::read_symlink(found.path, ec));
      if (ec) {
        return make_error("cannot read the link '" + util::to_utf8(found.path) + "': " + ec.message());
      }
    } else if (found.is_directory) {
      entry.type = EntryType::directory;
      if (auto entered = m_walk.enter(); !entered) {
        return cannot_read(entered.error());
      }
    } else if (found.is_regular_file) {
      entry.type = EntryType::file;
      entry.size = found.size;
    } else {
      const fs::file_status status = fs::symlink_status(found.path, ec);
      entry.type = EntryType::special;
      entry.special_kind = fs::is_character_file(status) ? "character device"
                           : fs::is_block_file(status)   ? "block device"
                           : fs::is_fifo(status)         ? "fifo"
                           : fs::is_socket(status)       ? "socket"
                                                         : "special file";
    }
    return true;
  }

  Result<void> read_data(const DataSink& sink) override {
    util::FilePtr file = util::open_file(m_current, "rb");
    if (!file) {
      return make_error("cannot read '" + util::to_utf8(m_current) + "'");
    }
    std::vector<char> buffer(1 << 20);
    std::size_t got = 0;
    while ((got = std::fread(buffer.data(), 1, buffer.size(), file.get())) > 0) {
      if (auto sent = sink(std::string_view(buffer.data(), got)); !sent) {
        return sent;
      }
    }
    if (std::ferror(file.get())) {
      return make_error("cannot read '" + util::to_utf8(m_current) + "'");
    }
    return {};
  }

 private:
  Error cannot_read(const Error& error) const {
    return Error{"cannot read folder '" + util::to_utf8(m_root) + "': " + error.message, error.hint, error.code};
  }

  fs::path m_root;
  util::DirectoryWalk m_walk;
  fs::path m_current;
};

}  // namespace

Result<SourceKind> detect_source_kind(const fs::path& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    return make_error("'" + util::to_utf8(path) + "' does not exist",
                      "pass an archive (.zip, .tar.xz, .whl) or a folder", ExitCode::not_found);
  }
  if (fs::is_directory(status)) {
    return SourceKind::folder;
  }
  util::FilePtr file = util::open_file(path, "rb");
  char magic[4] = {};
  if (!file || std::fread(magic, 1, sizeof magic, file.get()) != sizeof magic) {
    return make_error("'" + util::to_utf8(path) + "' is empty or unreadable",
                      "the download is incomplete: download it again");
  }
  if (std::string_view(magic, 4) == std::string_view("PK\3\4", 4) ||
      std::string_view(magic, 4) == std::string_view("PK\5\6", 4)) {
    return SourceKind::zip;
  }
  const std::string name = util::to_lower(util::to_utf8(path.filename()));
  if (has_tar_extension(name)) {
    return SourceKind::tar;
  }
  if (has_zip_extension(name)) {
    return make_error("'" + util::to_utf8(path) + "' is not a valid zip archive: no zip signature",
                      "the file is truncated or damaged: download it again and compare its SHA-256");
  }
  return make_error("'" + util::to_utf8(path) + "' is not an archive cudnnenv reads",
                    "pass an official .zip or .tar.xz archive, an nvidia_cudnn wheel (.whl) or a folder",
                    ExitCode::usage);
}

Result<std::unique_ptr<ArchiveSource>> open_source(const fs::path& path, SourceKind kind) {
  switch (kind) {
    case SourceKind::zip: {
      CUDNNENV_TRY_ASSIGN(reader, ZipReader::open(path));
      return std::unique_ptr<ArchiveSource>(std::make_unique<ZipSource>(std::move(*reader)));
    }
    case SourceKind::tar:
      return open_tar_source(path);
    case SourceKind::folder:
      return std::unique_ptr<ArchiveSource>(std::make_unique<FolderSource>(path));
  }
  return make_error("unknown source kind");
}

Result<std::unique_ptr<ArchiveSource>> open_source(std::FILE* file, const fs::path& path, SourceKind kind) {
  if (!util::seek_file(file, 0)) return make_error("cannot read '" + util::to_utf8(path) + "'");
  switch (kind) {
    case SourceKind::zip: {
      CUDNNENV_TRY_ASSIGN(reader, ZipReader::open(file, path));
      return std::unique_ptr<ArchiveSource>(std::make_unique<ZipSource>(std::move(*reader)));
    }
    case SourceKind::tar:
      return open_tar_source(path, file);
    case SourceKind::folder:
      break;
  }
  return make_error("'" + util::to_utf8(path) + "' is a folder, not an archive");
}

}  // namespace cudnnenv
