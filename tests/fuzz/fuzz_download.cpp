// What install by version reads: an archive list (CUDNNENV_INDEX, a site's
// own file), the mirror it maps each URL to, and the lines cudnnenv-fetch
// writes. The first line is the mirror, the rest the list; the whole input is
// also read as the helper's start and failure lines. A start line read back
// from what format_transfer_start wrote must be the same start.
#include <cstdlib>

#include "download/download.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = text.find('\n');
  const std::string mirror = text.substr(0, newline);
  const std::string list = newline == std::string::npos ? std::string() : text.substr(newline + 1);
  if (auto archives = cudnnenv::parse_index(list, "fuzz")) {
    for (const auto& archive : *archives) {
      (void)cudnnenv::archive_url(archive, mirror);
    }
  }
  if (const auto start = cudnnenv::parse_transfer_start(text)) {
    const auto again = cudnnenv::parse_transfer_start(cudnnenv::format_transfer_start(*start));
    if (!again || again->status != start->status || again->offset != start->offset || again->length != start->length) {
      std::abort();
    }
  }
  (void)cudnnenv::parse_transfer_outcome(text);
  return 0;
}
