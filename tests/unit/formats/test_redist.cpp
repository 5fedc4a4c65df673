#include <doctest/doctest.h>

#include "formats/redist.hpp"

namespace cudnnenv {

namespace {

// 11.8.0's cuda_cudart for Windows, as NVIDIA's manifest lists it
// (reference/cuda-runtime-facts.md section 2), and an invented Linux entry.
const char* const k_manifest = R"json({
  "release_date": "2022-10-03",
  "cuda_cudart": {
    "name": "CUDA Runtime (cudart)", "license": "CUDA Toolkit", "version": "11.8.89",
    "windows-x86_64": {
      "relative_path": "cuda_cudart/windows-x86_64/cuda_cudart-windows-x86_64-11.8.89-archive.zip",
      "sha256": "988cc9e7d3785d4b1975521f312c57c6814cbf15e73a2b7941d961835f2a945e",
      "md5": "00000000000000000000000000000000", "size": "2987306"},
    "linux-x86_64": {
      "relative_path": "cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-11.8.89-archive.tar.xz",
      "sha256": "1111111111111111111111111111111111111111111111111111111111111111", "size": 913876}
  },
  "libcublas": {"name": "CUDA cuBLAS", "version": "11.11.3.6",
    "linux-x86_64": {"relative_path": "libcublas/linux-x86_64/x.tar.xz",
      "sha256": "2222222222222222222222222222222222222222222222222222222222222222", "size": "1"}}
})json";

}  // namespace

TEST_SUITE("formats/redist") {
  TEST_CASE("a manifest gives each component's archive for the platform asked, size as a string or a number") {
    auto windows = parse_redist_manifest(k_manifest, "m.json", "windows-x86_64");
    REQUIRE(windows);
    CHECK(windows->release_date == "2022-10-03");
    REQUIRE(windows->archives.size() == 1);
    CHECK(windows->archives[0].component == "cuda_cudart");
    CHECK(windows->archives[0].version == "11.8.89");
    CHECK(windows->archives[0].size == 2987306);
    CHECK(windows->archives[0].sha256 == "988cc9e7d3785d4b1975521f312c57c6814cbf15e73a2b7941d961835f2a945e");
    CHECK(windows->platforms == std::vector<std::string>{"windows-x86_64", "linux-x86_64"});
    auto linux = parse_redist_manifest(k_manifest, "m.json", "linux-x86_64");
    REQUIRE(linux);
    REQUIRE(linux->archives.size() == 2);
    CHECK(linux->archives[0].size == 913876);
    CHECK(linux->archives[1].component == "libcublas");
  }

  TEST_CASE("a manifest without the platform names the ones it has") {
    auto sbsa = parse_redist_manifest(k_manifest, "m.json", "linux-sbsa");
    REQUIRE_FALSE(sbsa);
    CHECK(sbsa.error().message == "'m.json' has no archives for linux-sbsa");
    CHECK(sbsa.error().hint == "it has windows-x86_64, linux-x86_64");
    CHECK(sbsa.error().code == ExitCode::not_found);
  }

  TEST_CASE("unsafe paths, bad hashes and sizes, nesting and non-JSON are refused, naming what") {
    const auto refused = [](std::string text) {
      auto parsed = parse_redist_manifest(text, "m.json", "linux-x86_64");
      REQUIRE_FALSE(parsed);
      const std::string prefix = "'m.json' is not a usable CUDA redistributable manifest: ";
      REQUIRE(parsed.error().message.rfind(prefix, 0) == 0);
      return parsed.error().message.substr(prefix.size());
    };
    const auto with = [](const std::string& from, const std::string& to) {
      std::string text = k_manifest;
      text.replace(text.find(from), from.size(), to);
      return text;
    };
    CHECK(refused(with("libcublas/linux-x86_64/x.tar.xz", "libcublas/../../x")) ==
          "'libcublas' for linux-x86_64 has the relative_path 'libcublas/../../x', which is not a plain relative path");
    CHECK(refused(with("libcublas/linux-x86_64/x.tar.xz", "/etc/passwd")) ==
          "'libcublas' for linux-x86_64 has the relative_path '/etc/passwd', which is not a plain relative path");
    CHECK(refused(with("libcublas/linux-x86_64/x.tar.xz", "C:/x.zip")) ==
          "'libcublas' for linux-x86_64 has the relative_path 'C:/x.zip', which is not a plain relative path");
    CHECK(refused(with("libcublas/linux-x86_64/x.tar.xz", "a\\\\b")) ==
          "'libcublas' for linux-x86_64 has the relative_path 'a\\b', which is not a plain relative path");
    CHECK(refused(with("2222222222222222222222222222222222222222222222222222222222222222", "22")) ==
          "'libcublas' for linux-x86_64 has no SHA-256 of 64 hex digits");
    CHECK(refused(with("\"size\": \"1\"", "\"size\": \"-1\"")) == "'libcublas' for linux-x86_64 has no size in bytes");
    CHECK(refused(with("\"size\": \"1\"", "\"size\": \"0\"")) == "'libcublas' for linux-x86_64 has no size in bytes");
    CHECK(refused("[1, 2]") == "it is not a JSON object");
    CHECK(refused("{\"a\": ") == "it is not a JSON object");
    CHECK(refused("{\"x\": " + std::string(9, '[') + std::string(9, ']') + "}") == "it nests deeper than 8 levels");
    CHECK(refused(std::string(k_max_manifest_bytes + 1, ' ')) == "it is " + std::to_string(k_max_manifest_bytes + 1) +
                                                                     " bytes, past the limit of " +
                                                                     std::to_string(k_max_manifest_bytes));
  }

  TEST_CASE("NVIDIA's platform names") {
    CHECK(redist_platform({Os::linux, Arch::x86_64}) == "linux-x86_64");
    CHECK(redist_platform({Os::linux, Arch::arm64}) == "linux-sbsa");
    CHECK(redist_platform({Os::windows, Arch::x86_64}) == "windows-x86_64");
  }
}

}  // namespace cudnnenv
