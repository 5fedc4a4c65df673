// The version-header parser (cudnn_version.h, cudnn.h) and the version
// strings of names, specs and records.
#include "formats/version.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto version = cudnnenv::parse_version_header(text)) {
    (void)cudnnenv::encode_cudnn_version(*version);
  }
  if (auto version = cudnnenv::parse_version(text)) {
    (void)version->str();
  }
  (void)cudnnenv::parse_cuda_version(text);
  return 0;
}
