// snapshot diff reads two files anyone can hand over: any bytes (the two
// halves split at the first NUL) end in a list of changes or the refusal,
// never a crash; a snapshot compared with itself has no change. --facts reads
// one as another machine's facts (doctor/node's read_node_facts): node facts
// or the refusal (exit 2), with a GPU's compute capability in range, and a
// choice of archive for them that never throws.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "doctor/node.hpp"
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
  auto node = cudnnenv::read_node_facts(before, "a");
  if (!node) {
    if (node.error().code != cudnnenv::ExitCode::usage) std::abort();
    return 0;
  }
  for (const auto& gpu : node->driver.gpus) {
    if (gpu.cc_major < 0 || gpu.cc_major > 999 || gpu.cc_minor < 0 || gpu.cc_minor > 999) std::abort();
  }
  (void)node->describe();
  if (auto spec = cudnnenv::parse_spec("9")) (void)cudnnenv::choose_archive_for_node(*spec, std::nullopt, *node);
  return 0;
}
