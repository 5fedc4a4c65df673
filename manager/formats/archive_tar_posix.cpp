// libarchive, linked statically with only the filters official archives
// use (xz, gzip, bzip2): the shared library would bring libxml2 and ICU into
// every start of cudnnenv.
#include <algorithm>

#include <archive.h>
#include <archive_entry.h>

#include "formats/archive.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace {

class TarSource final : public ArchiveSource {
 public:
  TarSource(std::filesystem::path path, struct archive* handle) : m_path(std::move(path)), m_archive(handle) {}
  ~TarSource() override { archive_read_free(m_archive); }

  Result<bool> next(ArchiveEntry& entry) override {
    struct archive_entry* header = nullptr;
    const int status = archive_read_next_header(m_archive, &header);
    if (status == ARCHIVE_EOF) {
      return false;
    }
    // ARCHIVE_RETRY too: libarchive skipped a damaged header, and the entry it
    // then offers may have no name at all (found by fuzz_tar); official
    // archives are never damaged.
    if (status != ARCHIVE_OK && status != ARCHIVE_WARN) {
      return corrupt();
    }
    entry = ArchiveEntry{};
    const char* name = archive_entry_pathname_utf8(header);
    if (!name) {
      name = archive_entry_pathname(header);
    }
    if (!name) {
      return corrupt_entry("an entry has no name");  // found by fuzz_tar: a header libarchive reads without one
    }
    entry.name = name;
    entry.size = static_cast<std::uint64_t>(archive_entry_size(header));
    m_entry_size = archive_entry_size(header);
    if (const char* hardlink = archive_entry_hardlink(header)) {
      entry.type = EntryType::hardlink;
      entry.link_target = hardlink;
      return true;
    }
    switch (archive_entry_filetype(header)) {
      case AE_IFREG:
        entry.type = EntryType::file;
        break;
      case AE_IFDIR:
        entry.type = EntryType::directory;
        break;
      case AE_IFLNK:
        entry.type = EntryType::symlink;
        entry.link_target = archive_entry_symlink(header) ? archive_entry_symlink(header) : "";
        break;
      case AE_IFCHR:
        entry.type = EntryType::special;
        entry.special_kind = "character device";
        break;
      case AE_IFBLK:
        entry.type = EntryType::special;
        entry.special_kind = "block device";
        break;
      case AE_IFIFO:
        entry.type = EntryType::special;
        entry.special_kind = "fifo";
        break;
      default:
        entry.type = EntryType::special;
        entry.special_kind = "special file";
        break;
    }
    return true;
  }

  Result<void> read_data(const DataSink& sink) override {
    const void* block = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    la_int64_t expected = 0;
    while (true) {
      const int status = archive_read_data_block(m_archive, &block, &size, &offset);
      if (status == ARCHIVE_EOF) {
        // A sparse file's trailing hole has no block: up to the entry's size.
        return m_entry_size > expected ? zeros(sink, m_entry_size - expected) : Result<void>();
      }
      if (status != ARCHIVE_OK && status != ARCHIVE_WARN) {
        return corrupt();
      }
      if (offset < expected) {
        return corrupt_entry("its sparse map goes backwards");
      }
      if (auto sent = zeros(sink, offset - expected); !sent) {
        return sent;
      }
      expected = offset + static_cast<la_int64_t>(size);
      if (auto sent = sink(std::string_view(static_cast<const char*>(block), size)); !sent) {
        return sent;
      }
    }
  }

 private:
  // A sparse entry's hole as zeros, so the stream stays sequential, in
  // chunks: the hole's size is the archive's claim, and the sink (which
  // bounds the total) sees every chunk before the next is made.
  static Result<void> zeros(const DataSink& sink, la_int64_t hole) {
    static const std::string chunk(1 << 20, '\0');
    while (hole > 0) {
      const auto part = static_cast<std::size_t>(std::min<la_int64_t>(hole, static_cast<la_int64_t>(chunk.size())));
      if (auto sent = sink(std::string_view(chunk.data(), part)); !sent) {
        return sent;
      }
      hole -= static_cast<la_int64_t>(part);
    }
    return {};
  }

  Error corrupt_entry(const std::string& why) const {
    return make_error("'" + util::to_utf8(m_path) + "' is damaged: " + why,
                      "the file is truncated or damaged: download it again and compare its SHA-256");
  }

  Error corrupt() const {
    const char* reason = archive_error_string(m_archive);
    return make_error("'" + util::to_utf8(m_path) + "' is damaged: " + (reason ? reason : "unreadable"),
                      "the file is truncated or damaged: download it again and compare its SHA-256");
  }

  std::filesystem::path m_path;
  struct archive* m_archive;
  la_int64_t m_entry_size = 0;
};

}  // namespace

Result<std::unique_ptr<ArchiveSource>> open_tar_source(const std::filesystem::path& path, std::FILE* file) {
  struct archive* handle = archive_read_new();
  archive_read_support_filter_xz(handle);
  archive_read_support_filter_gzip(handle);
  archive_read_support_filter_bzip2(handle);
  archive_read_support_format_tar(handle);
  archive_read_support_format_gnutar(handle);
  const int opened =
      file ? archive_read_open_FILE(handle, file) : archive_read_open_filename(handle, path.c_str(), 1 << 20);
  if (opened != ARCHIVE_OK) {
    const std::string reason = archive_error_string(handle) ? archive_error_string(handle) : "unreadable";
    archive_read_free(handle);
    return make_error("cannot open '" + util::to_utf8(path) + "': " + reason,
                      "the file is truncated or damaged: download it again");
  }
  return std::unique_ptr<ArchiveSource>(std::make_unique<TarSource>(path, handle));
}

}  // namespace cudnnenv
