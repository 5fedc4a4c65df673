#include <doctest/doctest.h>

#include <algorithm>

#include "store/runtime.hpp"

namespace cudnnenv {

TEST_SUITE("store/runtime") {
  TEST_CASE("the runtime libraries frameworks open, by name, on each OS") {
    for (const char* name : {"libcudart.so.13", "libcudart.so.11.0", "libcublas.so.12", "libcublasLt.so.11",
                             "libcufft.so.10", "libcurand.so.10", "libcusolver.so.11", "libcusparse.so.12",
                             "libnvrtc.so.13", "libnvJitLink.so.13", "libcupti.so.13"}) {
      CHECK_MESSAGE(is_runtime_library_name(name, Os::linux), name);
    }
    for (const char* name :
         {"cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll", "cufft64_10.dll", "curand64_10.dll",
          "cusolver64_10.dll", "cusparse64_11.dll", "nvrtc64_112_0.dll", "nvJitLink_120_0.dll", "CUDART64_12.DLL"}) {
      CHECK_MESSAGE(is_runtime_library_name(name, Os::windows), name);
    }
    for (const char* name : {"libcudart.so", "libcudart_static.a", "libcudnn.so.9", "libcuda.so.1", "libcublas.so.x"}) {
      CHECK_FALSE_MESSAGE(is_runtime_library_name(name, Os::linux), name);
    }
    CHECK_FALSE(is_runtime_library_name("cudnn64_8.dll", Os::windows));
    CHECK_FALSE(is_runtime_library_name("cudart.lib", Os::windows));
  }

  TEST_CASE("a component archive keeps its shared libraries and LICENSE, never stubs, headers or static libraries") {
    CHECK(runtime_entry_path("lib/libcublas.so.13", "libcublas", Os::linux) == "lib/libcublas.so.13");
    CHECK(runtime_entry_path("lib/libcublas.so", "libcublas", Os::linux) == "lib/libcublas.so");
    CHECK(runtime_entry_path("LICENSE", "libcublas", Os::linux) == "licenses/libcublas.txt");
    CHECK_FALSE(runtime_entry_path("lib/stubs/libcuda.so", "cuda_cudart", Os::linux));
    CHECK_FALSE(runtime_entry_path("lib/libcublas_static.a", "libcublas", Os::linux));
    CHECK_FALSE(runtime_entry_path("include/cublas.h", "libcublas", Os::linux));
    CHECK(runtime_entry_path("bin/cublas64_11.dll", "libcublas", Os::windows) == "bin/cublas64_11.dll");
    CHECK(runtime_entry_path("bin/x64/cublas64_13.dll", "libcublas", Os::windows) == "bin/cublas64_13.dll");
    CHECK_FALSE(runtime_entry_path("lib/x64/cublas.lib", "libcublas", Os::windows));
  }

  TEST_CASE("the components of a runtime, by CUDA major") {
    CHECK(runtime_components(11) == std::vector<std::string>{"cuda_cudart", "libcublas", "libcufft", "libcurand",
                                                             "libcusolver", "libcusparse", "cuda_nvrtc"});
    CHECK(runtime_components(12).back() == "libnvjitlink");
  }

  TEST_CASE("the pinned manifests are those of data/cuda-manifests.tsv") {
    const auto& pinned = pinned_manifests();
    REQUIRE(pinned.size() >= 20);
    CHECK(pinned.front().release == "11.8.0");
    CHECK(pinned.front().sha256 == "941a950a4ab3b95311c50df7b3c8bca973e0cdda76fc2f4b456d2d5e4dac0281");
  }

  TEST_CASE("the runtime archives of data/cuda-archives.tsv: every component of a tabled release, as NVIDIA names it") {
    const auto cublas = pinned_runtime_archives("13.0.2", "windows-x86_64");
    REQUIRE(cublas.size() == 8);
    CHECK(cublas[1].component == "libcublas");
    CHECK(cublas[1].version == "13.1.0.3");
    CHECK(cublas[1].relative_path == "libcublas/windows-x86_64/libcublas-windows-x86_64-13.1.0.3-archive.zip");
    CHECK(cublas[1].size == 403672823);
    CHECK(cublas[1].sha256 == "4ac4847bbe4f7709b244956fcfc32197a2954ee70b155cb67eebd9ee26f7e339");
    CHECK(pinned_runtime_archives("13.0.2", "linux-ppc64le").empty());
    CHECK(pinned_runtime_archives("12.4.1", "linux-x86_64").empty());
    for (const std::string release : {"11.8.0", "13.0.2"}) {
      CHECK(std::any_of(pinned_manifests().begin(), pinned_manifests().end(),
                        [&](const PinnedManifest& pinned) { return pinned.release == release; }));
      for (const std::string platform : {"linux-x86_64", "linux-sbsa", "windows-x86_64"}) {
        CAPTURE(release);
        CAPTURE(platform);
        const auto archives = pinned_runtime_archives(release, platform);
        std::vector<std::string> components;
        for (const auto& archive : archives) {
          CAPTURE(archive.relative_path);
          components.push_back(archive.component);
          const std::string extension = platform == "windows-x86_64" ? ".zip" : ".tar.xz";
          CHECK(archive.relative_path == archive.component + "/" + platform + "/" + archive.component + "-" + platform +
                                             "-" + archive.version + "-archive" + extension);
          CHECK(is_safe_relative_path(archive.relative_path));
          CHECK(archive.sha256.size() == 64);
          CHECK(archive.sha256.find_first_not_of("0123456789abcdef") == std::string::npos);
          CHECK(archive.size > 10000);
        }
        CHECK(components == runtime_components(std::stoi(release)));
      }
    }
  }

  TEST_CASE("a runtime for a selection: the release asked, else the newest of the major") {
    auto runtime = [](const char* name, Version version, bool minor_known = true) {
      TreeRecord tree;
      tree.kind = TreeKind::cuda;
      tree.name = name;
      tree.version = version;
      tree.cuda = CudaVersion{version.major, minor_known ? std::optional(version.minor) : std::nullopt};
      return tree;
    };
    const std::vector<TreeRecord> runtimes = {
        runtime("cuda-12.8.1", {12, 8, 1, {}}), runtime("cuda-12.4.1", {12, 4, 1, {}}),
        runtime("cuda-11.8.0", {11, 8, 0, {}}), runtime("cuda-13", {13, 0, 0, {}}, false)};
    CHECK(choose_runtime(runtimes, CudaVersion{12, 4}, std::nullopt)->name == "cuda-12.4.1");
    CHECK(choose_runtime(runtimes, std::nullopt, 12)->name == "cuda-12.8.1");
    CHECK(choose_runtime(runtimes, CudaVersion{12, std::nullopt}, std::nullopt)->name == "cuda-12.8.1");
    CHECK_FALSE(choose_runtime(runtimes, CudaVersion{12, 2}, std::nullopt));
    CHECK_FALSE(choose_runtime(runtimes, std::nullopt, 10));
    CHECK(choose_runtime(runtimes, CudaVersion{13, 1}, std::nullopt)->name == "cuda-13");  // its minor unknown
    CHECK(default_runtime_name({11, 8, 0, {}}, false) == "cuda-11.8.0");
    CHECK(default_runtime_name({13, 0, 0, {}}, true) == "cuda-13");
  }
}

}  // namespace cudnnenv
