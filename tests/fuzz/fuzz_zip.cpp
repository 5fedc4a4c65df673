// The zip reader (official Windows archives, wheels, mirrors' copies): open,
// list, stream every entry with the extractor's name checks. A crafted zip
// must end in an error value, within a bounded amount of output.
#include "formats/archive.hpp"
#include "formats/zip.hpp"
#include "fuzz_support.hpp"
#include "store/extract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = cudnnenv::fuzz::scratch_file(data, size, ".zip");
  auto reader = cudnnenv::ZipReader::open(path);
  if (!reader) {
    return 0;
  }
  std::uint64_t total = 0;
  for (const auto& entry : reader->entries()) {
    (void)cudnnenv::safe_entry_path(entry.name);
    auto read = reader->read(entry, [&](std::string_view chunk) -> cudnnenv::Result<void> {
      total += chunk.size();
      if (total > (64u << 20)) {
        return cudnnenv::make_error("bounded");  // what extract's limits do
      }
      return {};
    });
    (void)read;
  }
  return 0;
}
