// libarchive is loaded at run time, on the first tarball: linked, it would
// bring libxml2 and ICU into every start of cudnnenv (11 ms measured here),
// and only tarball installs need it. The header gives the types.
#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>

#include <type_traits>

#include "archive.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace {

struct LibArchive {
  decltype(&::archive_read_new) read_new;
  decltype(&::archive_read_support_filter_all) support_filter_all;
  decltype(&::archive_read_support_format_tar) support_format_tar;
  decltype(&::archive_read_support_format_gnutar) support_format_gnutar;
  decltype(&::archive_read_open_filename) open_filename;
  decltype(&::archive_read_next_header) next_header;
  decltype(&::archive_read_data_block) data_block;
  decltype(&::archive_read_free) read_free;
  decltype(&::archive_error_string) error_string;
  decltype(&::archive_entry_pathname_utf8) pathname_utf8;
  decltype(&::archive_entry_pathname) pathname;
  decltype(&::archive_entry_size) size;
  decltype(&::archive_entry_hardlink) hardlink;
  decltype(&::archive_entry_filetype) filetype;
  decltype(&::archive_entry_symlink) symlink;
};

// The loaded library, or the reason it could not be loaded.
const LibArchive* load_libarchive(std::string& error) {
  static LibArchive api{};
  static std::string failure;
  static const bool loaded = [] {
    void* handle = ::dlopen("libarchive.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* reason = ::dlerror();
      failure = reason ? reason : "libarchive.so.13 not found";
      return false;
    }
    bool complete = true;
    auto bind = [&](auto& slot, const char* name) {
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(::dlsym(handle, name));
      complete = complete && slot != nullptr;
    };
    bind(api.read_new, "archive_read_new");
    bind(api.support_filter_all, "archive_read_support_filter_all");
    bind(api.support_format_tar, "archive_read_support_format_tar");
    bind(api.support_format_gnutar, "archive_read_support_format_gnutar");
    bind(api.open_filename, "archive_read_open_filename");
    bind(api.next_header, "archive_read_next_header");
    bind(api.data_block, "archive_read_data_block");
    bind(api.read_free, "archive_read_free");
    bind(api.error_string, "archive_error_string");
    bind(api.pathname_utf8, "archive_entry_pathname_utf8");
    bind(api.pathname, "archive_entry_pathname");
    bind(api.size, "archive_entry_size");
    bind(api.hardlink, "archive_entry_hardlink");
    bind(api.filetype, "archive_entry_filetype");
    bind(api.symlink, "archive_entry_symlink");
    if (!complete) {
      failure = "libarchive.so.13 lacks a function cudnnenv needs";
    }
    return complete;
  }();
  error = failure;
  return loaded ? &api : nullptr;
}

class TarSource final : public ArchiveSource {
 public:
  TarSource(const LibArchive& api, std::filesystem::path path, struct archive* handle)
      : m_api(api), m_path(std::move(path)), m_archive(handle) {}
  ~TarSource() override { m_api.read_free(m_archive); }

  Result<bool> next(ArchiveEntry& entry) override {
    struct archive_entry* header = nullptr;
    const int status = m_api.next_header(m_archive, &header);
    if (status == ARCHIVE_EOF) {
      return false;
    }
    if (status < ARCHIVE_WARN) {
      return corrupt();
    }
    entry = ArchiveEntry{};
    const char* name = m_api.pathname_utf8(header);
    entry.name = name ? name : m_api.pathname(header);
    entry.size = static_cast<std::uint64_t>(m_api.size(header));
    if (const char* hardlink = m_api.hardlink(header)) {
      entry.type = EntryType::hardlink;
      entry.link_target = hardlink;
      return true;
    }
    switch (m_api.filetype(header)) {
      case AE_IFREG: entry.type = EntryType::file; break;
      case AE_IFDIR: entry.type = EntryType::directory; break;
      case AE_IFLNK:
        entry.type = EntryType::symlink;
        entry.link_target = m_api.symlink(header) ? m_api.symlink(header) : "";
        break;
      case AE_IFCHR: entry.type = EntryType::special; entry.special_kind = "character device"; break;
      case AE_IFBLK: entry.type = EntryType::special; entry.special_kind = "block device"; break;
      case AE_IFIFO: entry.type = EntryType::special; entry.special_kind = "fifo"; break;
      default: entry.type = EntryType::special; entry.special_kind = "special file"; break;
    }
    return true;
  }

  Result<void> read_data(const DataSink& sink) override {
    const void* block = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    la_int64_t expected = 0;
    while (true) {
      const int status = m_api.data_block(m_archive, &block, &size, &offset);
      if (status == ARCHIVE_EOF) {
        return {};
      }
      if (status < ARCHIVE_WARN) {
        return corrupt();
      }
      if (offset != expected) {
        // A sparse entry: write the hole as zeros so the stream stays sequential.
        const std::string zeros(static_cast<std::size_t>(offset - expected), '\0');
        if (auto sent = sink(zeros); !sent) {
          return sent;
        }
      }
      expected = offset + static_cast<la_int64_t>(size);
      if (auto sent = sink(std::string_view(static_cast<const char*>(block), size)); !sent) {
        return sent;
      }
    }
  }

 private:
  Error corrupt() const {
    const char* reason = m_api.error_string(m_archive);
    return make_error("'" + util::to_utf8(m_path) + "' is damaged: " + (reason ? reason : "unreadable"),
                      "the file is truncated or damaged: download it again and compare its SHA-256");
  }

  const LibArchive& m_api;
  std::filesystem::path m_path;
  struct archive* m_archive;
};

}  // namespace

Result<std::unique_ptr<ArchiveSource>> open_tar_source(const std::filesystem::path& path) {
  std::string load_error;
  const LibArchive* api = load_libarchive(load_error);
  if (!api) {
    return make_error("cannot read tarballs: " + load_error,
                      "install libarchive (Debian: apt-get install libarchive13), or use a zip or a folder");
  }
  struct archive* handle = api->read_new();
  api->support_filter_all(handle);
  api->support_format_tar(handle);
  api->support_format_gnutar(handle);
  if (api->open_filename(handle, path.c_str(), 1 << 20) != ARCHIVE_OK) {
    const std::string reason = api->error_string(handle) ? api->error_string(handle) : "unreadable";
    api->read_free(handle);
    return make_error("cannot open '" + util::to_utf8(path) + "': " + reason,
                      "the file is truncated or damaged: download it again");
  }
  return std::unique_ptr<ArchiveSource>(std::make_unique<TarSource>(*api, path, handle));
}

}  // namespace cudnnenv
