#include <doctest/doctest.h>

#include <string>

#include "store/component.hpp"
#include "store/nccl.hpp"
#include "support.hpp"

namespace cudnnenv {

using test::test_dir;
using test::write_binary;
namespace fs = std::filesystem;

TEST_SUITE("store/nccl") {
  TEST_CASE("NCCL's library by name, on Linux only") {
    for (const char* name : {"libnccl.so.2", "libnccl.so.2.27.5", "libnccl.so"})
      CHECK_MESSAGE(is_nccl_library_name(name, Os::linux), name);
    for (const char* name : {"libnccl.so.", "libnccl_static.a", "libnccl-net.so", "libnccl.so.x", "libcudart.so.13"}) {
      CHECK_FALSE_MESSAGE(is_nccl_library_name(name, Os::linux), name);
    }
    CHECK_FALSE(is_nccl_library_name("nccl64_2.dll", Os::windows));
    CHECK(std::string(component(TreeKind::nccl).trees->no_windows_build) == k_nccl_windows);
    // A folder to adopt or an archive to install as NCCL on Windows: said plainly.
    const auto on_windows = component(TreeKind::nccl).trees->locate_layout(test_dir(), Os::windows);
    REQUIRE_FALSE(on_windows);
    CHECK(on_windows.error().message == "NCCL has no Windows build: NVIDIA ships it for Linux only");
  }

  TEST_CASE("the build NCCL's version string says: its release and the CUDA it was built for") {
    const auto build = parse_nccl_build("2.27.5+cuda12.9");
    REQUIRE(build);
    CHECK(build->release.str() == "2.27.5");
    CHECK(build->cuda.str() == "12.9");
    CHECK(parse_nccl_build("2.28.3+cuda13.0 (a suffix)")->cuda.str() == "13.0");
    CHECK_FALSE(parse_nccl_build("2.27.5"));
    CHECK_FALSE(parse_nccl_build("x+cuda12.9"));
    CHECK_FALSE(parse_nccl_build("2.27.5+cudax"));
  }

  TEST_CASE("read from the library's bytes, wherever the string falls (a piece's edge too), past a false start") {
    const fs::path file = test_dir() / "libnccl.so.2";
    for (const std::size_t at : {std::size_t{0}, std::size_t{(1 << 20) - 20}, std::size_t{3 << 20}}) {
      std::string bytes(at, 'x');
      bytes += std::string("NCCL version %s\0", 16) + std::string("NCCL version 2.27.5+cuda12.9\0", 29) + "tail";
      write_binary(file, bytes);
      const auto build = read_nccl_build(file);
      REQUIRE_MESSAGE(build, at);
      CHECK(build->release.str() == "2.27.5");
    }
    write_binary(file, "no version here");
    CHECK_FALSE(read_nccl_build(file));
    CHECK_FALSE(read_nccl_build(test_dir() / "absent"));
  }

  TEST_CASE("a tree by its name or by the release it starts with, the newest that fits") {
    auto tree = [](std::string name, int minor, int patch) {
      TreeRecord record;
      record.kind = TreeKind::nccl;
      record.name = std::move(name);
      record.version = Version{2, minor, patch, std::nullopt};
      return record;
    };
    const std::vector<TreeRecord> trees{tree("nccl-2.26.2", 26, 2), tree("torch", 27, 5), tree("nccl-2.27.3", 27, 3)};
    CHECK(find_component(trees, "torch")->name == "torch");
    CHECK(find_component(trees, "2.27")->name == "torch");
    CHECK(find_component(trees, "2.27.3")->name == "nccl-2.27.3");
    CHECK(find_component(trees, "2")->name == "torch");
    CHECK(find_component(trees, "2.26")->name == "nccl-2.26.2");
    CHECK_FALSE(find_component(trees, "2.28"));
    CHECK_FALSE(find_component(trees, "nccl"));
  }

  TEST_CASE("the CUDA and the release an archive's or a wheel's name says") {
    CHECK(cuda_in_archive_name("nccl_2.27.5-1+cuda12.9_x86_64.txz")->str() == "12.9");
    CHECK(cuda_in_archive_name("TensorRT-10.13.3.9.Linux.x86_64-gnu.cuda-12.9.tar.gz")->str() == "12.9");
    CHECK(cuda_in_archive_name("tensorrt_cu12_libs-10.13.3.9-py2.py3-none-manylinux_2_28_x86_64.whl")->str() == "12");
    CHECK(cuda_in_archive_name("nvidia_nccl_cu13-2.27.7-py3-none-manylinux_2_18_x86_64.whl")->str() == "13");
    CHECK_FALSE(cuda_in_archive_name("renamed.txz"));
    CHECK(release_in_archive_name("nccl_2.27.5-1+cuda12.9_x86_64.txz")->str() == "2.27.5");
    CHECK(release_in_archive_name("nvidia_nccl_cu13-2.27.7-py3-none-manylinux_2_18_x86_64.whl")->str() == "2.27.7");
    CHECK(release_in_archive_name("TensorRT-10.13.3.9.Linux.x86_64-gnu.cuda-12.9.tar.gz")->str() == "10.13.3.9");
    CHECK(release_in_archive_name("tensorrt_cu12_libs-10.13.3.9-py2.py3-none-manylinux_2_28_x86_64.whl")->str() ==
          "10.13.3.9");
    CHECK_FALSE(release_in_archive_name("renamed.txz"));
  }

  TEST_CASE("NCCL pairs with a cuDNN tree of its CUDA major, the newest; none while either CUDA is unknown") {
    TreeRecord cudnn;
    cudnn.cuda = CudaVersion{12, 8};
    auto nccl = [](std::string name, int patch, std::optional<CudaVersion> cuda) {
      TreeRecord record;
      record.kind = TreeKind::nccl;
      record.name = std::move(name);
      record.version = Version{2, 27, patch, std::nullopt};
      record.cuda = cuda;
      return record;
    };
    const std::vector<TreeRecord> trees{nccl("a", 3, CudaVersion{12, 9}), nccl("b", 7, CudaVersion{13, 0}),
                                        nccl("c", 5, CudaVersion{12, 2}), nccl("d", 9, std::nullopt)};
    CHECK(paired_tree(TreeKind::nccl, cudnn, trees)->name == "c");
    cudnn.cuda->major = 11;
    CHECK_FALSE(paired_tree(TreeKind::nccl, cudnn, trees));
    cudnn.cuda.reset();
    CHECK_FALSE(paired_tree(TreeKind::nccl, cudnn, trees));
  }
}

}  // namespace cudnnenv
