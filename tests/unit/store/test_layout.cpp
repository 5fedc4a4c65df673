#include <doctest/doctest.h>

#include "store/layout.hpp"
#include "support.hpp"

namespace cudnnenv {

TEST_SUITE("store/layout") {
  TEST_CASE("expected sets match the facts page") {
    const auto windows8 = expected_set({8, 1, 0, {}}, Os::windows);
    CHECK(windows8.libraries.size() == 7);
    CHECK(windows8.headers.size() == 9);
    CHECK(windows8.import_libs.size() == 14);
    CHECK(windows8.libraries.front() == "cudnn64_8.dll");
    const auto windows9 = expected_set({9, 1, 0, {}}, Os::windows);
    CHECK(windows9.libraries.size() == 8);
    CHECK(windows9.import_libs.size() == 16);
    const auto linux9 = expected_set({9, 19, 0, {}}, Os::linux);
    CHECK(linux9.libraries.size() == 8);
    CHECK(linux9.libraries.back() == "libcudnn_engines_runtime_compiled.so.9");
    CHECK(linux9.note.empty());
    CHECK(expected_set({7, 6, 5, {}}, Os::linux).libraries == std::vector<std::string>{"libcudnn.so.7"});
  }

  TEST_CASE("the libraries of each release: data/cudnn-libraries.tsv") {
    const std::vector<std::string> core = {"libcudnn.so.9",
                                           "libcudnn_graph.so.9",
                                           "libcudnn_ops.so.9",
                                           "libcudnn_cnn.so.9",
                                           "libcudnn_adv.so.9",
                                           "libcudnn_heuristic.so.9",
                                           "libcudnn_engines_precompiled.so.9",
                                           "libcudnn_engines_runtime_compiled.so.9"};
    auto with = [&](std::vector<std::string> extra) {
      std::vector<std::string> set = core;
      set.insert(set.end(), extra.begin(), extra.end());
      return set;
    };
    CHECK(expected_set({9, 20, 0, 48}, Os::linux).libraries == core);
    CHECK(expected_set({9, 21, 0, {}}, Os::linux).libraries == with({"libcudnn_engines_tensor_ir.so.9"}));
    CHECK(expected_set({9, 24, 1, {}}, Os::linux).libraries == with({"libcudnn_engines_tensor_ir.so.9"}));
    CHECK(expected_set({9, 25, 0, 15}, Os::linux).libraries ==
          with({"libcudnn_engines_tensor_ir.so.9", "libcudnn_ext.so.9"}));
    const auto windows = expected_set({9, 25, 1, {}}, Os::windows);
    CHECK(windows.libraries.size() == 10);
    CHECK(windows.libraries[8] == "cudnn_engines_tensor_ir64_9.dll");
    CHECK(windows.libraries[9] == "cudnn_ext64_9.dll");
    CHECK(windows.import_libs.size() == 16);  // the new libraries' import libraries are not known
    CHECK(windows.note.empty());
    // Newer than the table checks: the newest set it knows, and a note saying so.
    const auto newer = expected_set({9, 27, 0, 42}, Os::linux);
    CHECK(newer.libraries == with({"libcudnn_engines_tensor_ir.so.9", "libcudnn_ext.so.9"}));
    CHECK(newer.note ==
          "cuDNN 9.27.0.42 is newer than the releases whose files cudnnenv knows (through 9.25.1): 9.25.1's "
          "libraries are expected");
    const auto major10 = expected_set({10, 0, 0, {}}, Os::windows);
    CHECK(major10.libraries == std::vector<std::string>{"cudnn64_10.dll"});
    CHECK(major10.note ==
          "cuDNN 10 is newer than the releases whose files cudnnenv knows (through 9.25.1): only cudnn64_10.dll is "
          "expected");
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
    CHECK(missing_files("tree", *layout, {8, 1, 0, {}}, Os::windows, RequireImportLibs::yes).empty());
  }
}

}  // namespace cudnnenv
