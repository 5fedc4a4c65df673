// What a framework probe's child prints (doctor/frameworks' apply_probe_output:
// anything the imported packages write to stdout comes before, or instead of,
// the probe's line) and a wheel's METADATA (cudnn_requirement,
// requirement_floor). Beyond not crashing or throwing: a need read from an
// answer is a version of a known major or none; what reaches a terminal from
// the answer holds no control byte; a requirement is one line.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "doctor/frameworks.hpp"

namespace {

bool printable(const std::string& text) {
  for (const unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  cudnnenv::CudnnNeed need;
  need.framework = "JAX";
  need.major = 9;
  need.minor = 1;
  if (cudnnenv::apply_probe_output(text, need)) {
    if (need.major < 0 || (need.minor && *need.minor < 0)) std::abort();
    if (!printable(need.version) || !printable(need.cuda) || !printable(need.load_error) || !printable(need.source)) {
      std::abort();
    }
    (void)need.wants();
    (void)cudnnenv::need_json(need).dump();
  }
  const std::string requirement = cudnnenv::cudnn_requirement(text);
  if (requirement.find('\n') != std::string::npos || requirement.size() > 200) std::abort();
  (void)cudnnenv::requirement_floor(text);
  (void)cudnnenv::requirement_floor(requirement);
  return 0;
}
