// NVIDIA's redistributable manifests come from a mirror or a folder a user
// names: any bytes end in a manifest or a refusal, never a crash, and every
// archive a manifest yields has a safe relative path, a SHA-256 of 64 hex
// digits and a size; the URLs `install cuda --print-urls` writes from it, one
// a line, are NVIDIA's host's, with nothing that ends a line or a word.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "download/runtime.hpp"
#include "formats/redist.hpp"
#include "store/runtime.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* platform : {"linux-x86_64", "windows-x86_64"}) {
    auto manifest = cudnnenv::parse_redist_manifest(text, "fuzz.json", platform);
    if (!manifest) continue;
    if (manifest->archives.empty()) std::abort();
    for (const auto& archive : manifest->archives) {
      if (!cudnnenv::is_safe_relative_path(archive.relative_path) || archive.sha256.size() != 64 || archive.size == 0) {
        std::abort();
      }
    }
    cudnnenv::CudaRelease release;
    release.release = *cudnnenv::parse_version("13.0.2");
    release.manifest = *manifest;
    if (auto urls = cudnnenv::runtime_download_urls(release, cudnnenv::runtime_components(13))) {
      for (const auto& url : *urls) {
        if (url.url.rfind(std::string(cudnnenv::k_cuda_redist_url), 0) != 0) std::abort();
        for (const unsigned char c : url.url) {
          if (c <= ' ' || c == '"' || c == '\'' || c == 0x7f) std::abort();
        }
      }
    }
  }
  return 0;
}
