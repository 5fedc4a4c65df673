#include <doctest/doctest.h>

#include "store/layout.hpp"
#include "support.hpp"

namespace cudnnenv {

TEST_SUITE("store/layout") {
  TEST_CASE("expected sets match the facts page") {
    const auto windows8 = expected_set(8, Os::windows);
    CHECK(windows8.libraries.size() == 7);
    CHECK(windows8.headers.size() == 9);
    CHECK(windows8.import_libs.size() == 14);
    CHECK(windows8.libraries.front() == "cudnn64_8.dll");
    const auto windows9 = expected_set(9, Os::windows);
    CHECK(windows9.libraries.size() == 8);
    CHECK(windows9.import_libs.size() == 16);
    const auto linux9 = expected_set(9, Os::linux);
    CHECK(linux9.libraries.size() == 8);
    CHECK(linux9.libraries.back() == "libcudnn_engines_runtime_compiled.so.9");
    CHECK(expected_set(7, Os::linux).libraries == std::vector<std::string>{"libcudnn.so.7"});
  }

  TEST_CASE("main library names and cuDNN name patterns") {
    CHECK(main_library_major("cudnn64_8.dll", Os::windows) == 8);
    CHECK(main_library_major("CUDNN64_9.DLL", Os::windows) == 9);
    CHECK(main_library_major("libcudnn.so.9", Os::linux) == 9);
    CHECK_FALSE(main_library_major("libcudnn.so.9.1.0", Os::linux));
    CHECK_FALSE(main_library_major("cudnn_ops_infer64_8.dll", Os::windows));
    CHECK(is_cudnn_library_name("cudnn_ops_infer64_8.dll", Os::windows));
    CHECK(is_cudnn_library_name("libcudnn_graph.so.9", Os::linux));
    CHECK_FALSE(is_cudnn_library_name("libcublas.so.12", Os::linux));
  }

  TEST_CASE("a legacy Windows tree is found under cuda/") {
    test::FakeTree spec;
    spec.library = "fake-pe64-8.1.0.dll";
    test::write_folder("tree", test::fake_tree(spec));
    const auto layout = locate_layout("tree", Os::windows);
    REQUIRE(layout);
    CHECK(layout->major == 8);
    CHECK(layout->library_dir == "cuda/bin");
    CHECK(layout->main_library == "cuda/bin/cudnn64_8.dll");
    CHECK(layout->include_dir == "cuda/include");
    CHECK(layout->import_lib_dir == "cuda/lib/x64");
    CHECK(missing_files("tree", *layout, Os::windows, RequireImportLibs::yes).empty());
  }
}

}  // namespace cudnnenv
