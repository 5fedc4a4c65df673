// snapshot diff reads two files anyone can hand over: any bytes (the two
// halves split at the first NUL) end in a list of changes or the refusal,
// never a crash; a snapshot compared with itself has no change.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "doctor/snapshot.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto split = text.find('\0');
  const std::string before = text.substr(0, split);
  const std::string after = split == std::string::npos ? std::string() : text.substr(split + 1);
  auto changes = cudnnenv::diff_snapshots(before, after, "a", "b");
  if (!changes && changes.error().code != cudnnenv::ExitCode::usage) std::abort();
  auto same = cudnnenv::diff_snapshots(before, before, "a", "a");
  if (same && !same->empty()) std::abort();
  return 0;
}
