// The tar path (official Linux archives through libarchive and TarSource):
// headers, links, sparse maps. The sink stands in for extract's bounds.
#include "formats/archive.hpp"
#include "fuzz_support.hpp"
#include "store/extract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = cudnnenv::fuzz::scratch_file(data, size, ".tar");
  auto source = cudnnenv::open_tar_source(path);
  if (!source) {
    return 0;
  }
  std::uint64_t total = 0;
  cudnnenv::ArchiveEntry entry;
  for (int entries = 0; entries < 4096; ++entries) {
    auto more = (*source)->next(entry);
    if (!more || !*more) {
      break;
    }
    (void)cudnnenv::safe_entry_path(entry.name);
    if (entry.type == cudnnenv::EntryType::symlink) {
      (void)cudnnenv::resolve_link_target(entry.name, entry.link_target);
    }
    if (entry.type == cudnnenv::EntryType::file) {
      auto read = (*source)->read_data([&](std::string_view chunk) -> cudnnenv::Result<void> {
        total += chunk.size();
        if (total > (64u << 20)) {
          return cudnnenv::make_error("bounded");
        }
        return {};
      });
      if (!read) {
        break;
      }
    }
  }
  return 0;
}
