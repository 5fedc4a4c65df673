// The shim's own parsers, run before every pinned python: the NAME.shim
// sidecar and the cached launch decision, both parsed in place.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "launch_key.hpp"
#include "sidecar.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // As the launcher reads them: into a buffer with one byte to spare.
  std::vector<char> text(size + 1);
  std::memcpy(text.data(), data, size);
  cudnnenv::shim::Sidecar sidecar;
  char error[256];
  (void)cudnnenv::shim::parse_sidecar(text.data(), size, sidecar, error, sizeof error, "fuzz");
  std::memcpy(text.data(), data, size);
  cudnnenv::shim::LaunchDecision decision;
  (void)cudnnenv::shim::read_decision(text.data(), size, "k", decision);
  return 0;
}
