// The version-header parser (cudnn_version.h, cudnn.h) and the version
// strings of names, specs and records; the release and CUDA an archive's or
// a wheel's name says, NCCL's version string, and each component row's
// library names (all read from untrusted file names and library bytes).
#include "formats/version.hpp"
#include "store/component.hpp"
#include "store/nccl.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto version = cudnnenv::parse_version_header(text)) {
    (void)cudnnenv::encode_cudnn_version(*version);
  }
  if (auto version = cudnnenv::parse_version(text)) {
    (void)version->str();
  }
  (void)cudnnenv::parse_cuda_version(text);
  if (auto release = cudnnenv::release_in_archive_name(text)) (void)release->str();
  if (auto cuda = cudnnenv::cuda_in_archive_name(text)) (void)cuda->str();
  if (auto build = cudnnenv::parse_nccl_build(text)) (void)build->release.str();
  for (const auto& row : cudnnenv::components()) {
    for (const auto os : {cudnnenv::Os::linux, cudnnenv::Os::windows}) (void)row.library_name(text, os);
  }
  return 0;
}
