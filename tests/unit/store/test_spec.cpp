#include <doctest/doctest.h>

#include "store/spec.hpp"
#include "store/store.hpp"
#include "support.hpp"

namespace cudnnenv {

using test::make_selection_store;
using test::pick;

TEST_SUITE("store/spec") {
  TEST_CASE("specs match whole components and pick the newest that fits") {
    const Store store = make_selection_store();
    CHECK(pick(store, "8.1")->version.str() == "8.1.0.77");
    CHECK(pick(store, "8.10")->version.str() == "8.10.0.5");
    CHECK(pick(store, "8.1.0.77")->version.str() == "8.1.0.77");
    CHECK(pick(store, "9")->version.str() == "9.1.0.70");
    CHECK(pick(store, "8+cuda11")->version.str() == "8.9.7.29");
    CHECK(pick(store, "8+cuda11")->cuda->str() == "11");
    CHECK(pick(store, "8.9", "12")->cuda->str() == "12");
    CHECK(pick(store, "8.1+cuda11.2")->version.str() == "8.1.0.77");
    CHECK(pick(store, "cudnn-linux-x86_64-8.9.7.29_cuda11-archive")->cuda->str() == "11");
  }

  TEST_CASE("a CUDA request matches what a tree serves, not the minor it was built with") {
    TreeRecord cuda13;  // a cuda13 archive whose library says it was built with CUDA 13.1
    cuda13.version = *parse_version("9.19.0.56");
    cuda13.cuda_variant = CudaVersion{13, std::nullopt};
    cuda13.cudart = CudaVersion{13, 1};
    cuda13.cuda = cuda13.cudart;
    for (const char* asked : {"13.0", "13.1", "13.2", "13"}) {
      CHECK_MESSAGE(serves_cuda(cuda13, *parse_cuda_version(asked)), asked);
    }
    CHECK_FALSE(serves_cuda(cuda13, *parse_cuda_version("12.9")));
    CHECK(describe_served_cuda(cuda13) == "CUDA 13.x (built with 13.1)");

    TreeRecord cuda11_2;  // 8.1's cuda11.2 archive: 11.2 and newer 11.x
    cuda11_2.version = *parse_version("8.1.0.77");
    cuda11_2.cuda_variant = CudaVersion{11, 2};
    CHECK(serves_cuda(cuda11_2, *parse_cuda_version("11.2")));
    CHECK(serves_cuda(cuda11_2, *parse_cuda_version("11.8")));
    CHECK(serves_cuda(cuda11_2, *parse_cuda_version("11")));
    CHECK_FALSE(serves_cuda(cuda11_2, *parse_cuda_version("11.1")));
    CHECK(describe_served_cuda(cuda11_2) == "CUDA 11.2 and newer 11.x");

    TreeRecord adopted;  // no variant known: the cudart's major, every minor
    adopted.cudart = CudaVersion{12, 9};
    CHECK(serves_cuda(adopted, *parse_cuda_version("12.5")));
    CHECK(describe_served_cuda(adopted) == "CUDA 12.x (built with 12.9)");

    auto spec = parse_spec("9.19", "13.0");
    REQUIRE(spec);
    CHECK(fits(*spec, cuda13));
    cuda13.name = "9.19.0.56-cuda13";
    auto none = select_tree({cuda13}, *parse_spec("9.19", "12.5"));
    REQUIRE_FALSE(none);
    CHECK(none.error().message == "no installed cuDNN matches '9.19' for CUDA 12.5");
    CHECK(none.error().hint.find("installed: '9.19.0.56-cuda13' (9.19.0.56, CUDA 13.x (built with 13.1)); ") == 0);
  }

  TEST_CASE("of one version built for two minors, the variant that serves the request and is newest") {
    TreeRecord older;
    older.name = "a-8.0.5-cuda11.0";
    older.version = *parse_version("8.0.5.39");
    older.cuda_variant = CudaVersion{11, 0};
    TreeRecord newer = older;
    newer.name = "b-8.0.5-cuda11.1";
    newer.cuda_variant = CudaVersion{11, 1};
    CHECK(select_tree({older, newer}, *parse_spec("8.0.5", "11.1"))->name == "b-8.0.5-cuda11.1");
    CHECK(select_tree({older, newer}, *parse_spec("8.0.5", "11.0"))->name == "a-8.0.5-cuda11.0");
  }

  TEST_CASE("a spec that fits trees for two CUDA majors is an error naming both") {
    const Store store = make_selection_store();
    auto both = pick(store, "8.9.7");
    REQUIRE_FALSE(both);
    CHECK(both.error().message ==
          "'8.9.7' fits trees for 2 CUDA versions: '8.9.7.29-cuda11' (CUDA 11) and "
          "'8.9.7.29-cuda12' (CUDA 12)");
    CHECK(both.error().hint == "say which: '8.9.7+cuda12' (or --cuda 12)");
    CHECK_FALSE(pick(store, "8"));
  }

  TEST_CASE("a spec that fits nothing says what is installed and how to get it, with exit code 3") {
    const Store store = make_selection_store();
    auto missing = pick(store, "7.6");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == ExitCode::not_found);
    CHECK(missing.error().message == "no installed cuDNN matches '7.6'");
    CHECK(missing.error().hint.find("installed: 9.1.0.70 (CUDA 12), 8.10.0.5 (CUDA 12)") == 0);
    CHECK(missing.error().hint.find("; 'cudnnenv install 7.6 --cuda 10.2' fetches cudnn-10.2-") != std::string::npos);
    CHECK(missing.error().hint.find("-v7.6.5.32.") != std::string::npos);  // an official 7.6.5 archive
    auto typo = pick(store, "cudnn-11.2-linux-x64-v8.1.0.7");
    REQUIRE_FALSE(typo);
    CHECK(typo.error().hint == "did you mean '8.1.0.77-cuda11.2'?");
    CHECK_FALSE(parse_spec("8.1+cudaX"));
    CHECK(parse_spec("8.1+cuda11", "12").error().message == "'8.1+cuda11' asks for CUDA 11 but CUDA 12 was given too");
  }

  TEST_CASE("a version written as a tag or a package name: the version alone is the hint") {
    const Store store = make_selection_store();
    const std::vector<std::pair<std::string, std::string>> cases = {{"v9.1", "9.1"},
                                                                    {"V9.1.0", "9.1.0"},
                                                                    {"cudnn9", "9"},
                                                                    {"cuDNN-8.9+cuda12", "8.9+cuda12"},
                                                                    {"cudnn_8.1", "8.1"}};
    for (const auto& pair : cases) {
      // CAPTURE takes a variable, not a structured binding (clang 14 cannot capture one).
      const std::string& written = pair.first;
      const std::string& meant = pair.second;
      CAPTURE(written);
      CHECK(version_without_prefix(written) == meant);
      // With +cuda it is no spec at all (exit 2); else no tree matches it (exit 3).
      auto spec = parse_spec(written);
      auto picked = spec ? select_tree(store.list().trees, *spec) : Result<TreeRecord>(spec.error());
      REQUIRE_FALSE(picked);
      CHECK(picked.error().hint == "write the version alone: " + meant);
    }
    for (const char* other : {"9.1", "vv9", "cudnn", "v9.1x", "tf2.5", "cudnn9.1.0.1.2"}) {
      CAPTURE(other);
      CHECK_FALSE(version_without_prefix(other));
    }
  }

  TEST_CASE("a CUDA qualifier may be a full release: its major and minor") {
    const Store store = make_selection_store();
    auto spec = parse_spec("8.9+cuda12.2.0");
    REQUIRE(spec);
    CHECK(spec->cuda->str() == "12.2");
    CHECK(pick(store, "8.9+cuda12.2.0")->cuda->str() == "12");
    CHECK(parse_spec("8.9+cuda12.2.x").error().message ==
          "'8.9+cuda12.2.x' has a CUDA qualifier that is not a version");
    CHECK_FALSE(parse_spec("8.9+cuda12.2.0.1"));
  }
}

}  // namespace cudnnenv
