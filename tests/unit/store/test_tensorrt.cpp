#include <doctest/doctest.h>

#include <string>

#include "store/component.hpp"
#include "support.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

TEST_SUITE("store/tensorrt") {
  TEST_CASE(
      "TensorRT's libraries by name: libnvinfer and its family, libnvonnxparser; nvinfer_10.dll and nvinfer.dll") {
    const ComponentRow& row = component(TreeKind::tensorrt);
    for (const char* name : {"libnvinfer.so.10", "libnvinfer.so.10.13.3", "libnvinfer.so.7", "libnvinfer.so",
                             "libnvinfer_plugin.so.10", "libnvinfer_builder_resource.so.10.13.3",
                             "libnvinfer_lean.so.10", "libnvinfer_vc_plugin.so.10", "libnvonnxparser.so.10"}) {
      CHECK_MESSAGE(row.library_name(name, Os::linux), name);
    }
    for (const char* name : {"libnvinfer_static.a", "libnvinfer.so.x", "libnvonnxparser_static.a", "libcudnn.so.9",
                             "libnvinfer10.so", "nvinfer_10.dll"}) {
      CHECK_FALSE_MESSAGE(row.library_name(name, Os::linux), name);
    }
    for (const char* name : {"nvinfer_10.dll", "NVINFER_10.DLL", "nvinfer.dll", "nvinfer_plugin_10.dll",
                             "nvinfer_builder_resource_10.dll", "nvonnxparser_10.dll", "nvinfer_plugin.dll"}) {
      CHECK_MESSAGE(row.library_name(name, Os::windows), name);
    }
    for (const char* name : {"nvinfer_10.lib", "nvinfer_10x.dll", "trtexec.exe", "libnvinfer.so.10"}) {
      CHECK_FALSE_MESSAGE(row.library_name(name, Os::windows), name);
    }
    CHECK_FALSE(row.trees->no_windows_build);
  }

  TEST_CASE("a tree's layout: the folder of libnvinfer.so.N or nvinfer_N.dll, its major from that name") {
    const fs::path root = test::test_dir();
    for (const char* folder : {"TensorRT-10.13.3.9/lib", "TensorRT-10.13.3.9/bin", "win/lib"}) {
      fs::create_directories(root / folder);
    }
    test::write_binary(root / "TensorRT-10.13.3.9" / "lib" / "libnvinfer.so.10", "x");
    test::write_binary(root / "TensorRT-10.13.3.9" / "lib" / "libnvinfer_plugin.so.10", "x");
    test::write_binary(root / "TensorRT-10.13.3.9" / "bin" / "trtexec", "x");
    const auto linux_layout = component(TreeKind::tensorrt).trees->locate_layout(root, Os::linux);
    REQUIRE(linux_layout);
    CHECK(linux_layout->main_library == "TensorRT-10.13.3.9/lib/libnvinfer.so.10");
    CHECK(linux_layout->major == 10);
    test::write_binary(root / "win" / "lib" / "nvinfer_10.dll", "x");
    test::write_binary(root / "win" / "lib" / "nvinfer_plugin_10.dll", "x");
    const auto windows_layout = component(TreeKind::tensorrt).trees->locate_layout(root / "win", Os::windows);
    REQUIRE(windows_layout);
    CHECK(windows_layout->main_library == "lib/nvinfer_10.dll");
    CHECK(windows_layout->major == 10);
    const auto none =
        component(TreeKind::tensorrt).trees->locate_layout(root / "TensorRT-10.13.3.9" / "bin", Os::linux);
    REQUIRE_FALSE(none);
    CHECK(none.error().message ==
          "'" + (root / "TensorRT-10.13.3.9" / "bin").string() + "' holds no TensorRT (no libnvinfer.so.*)");
  }
}

}  // namespace cudnnenv
