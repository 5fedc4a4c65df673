// A mirror's index (cudnnenv-mirror.json), from a folder anyone may hand
// over: what parses writes back to the same index, and every path it names
// stays inside the mirror.
#include <cstdlib>

#include "download/mirror.hpp"
#include "formats/redist.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto index = cudnnenv::parse_mirror_index(text, "cudnnenv-mirror.json");
  if (!index) return 0;
  for (const auto& file : index->files) {
    if (!cudnnenv::is_safe_relative_path(file.path)) std::abort();
  }
  auto again = cudnnenv::parse_mirror_index(cudnnenv::serialize_mirror_index(*index), "cudnnenv-mirror.json");
  if (!again || again->files != index->files) std::abort();
  return 0;
}
