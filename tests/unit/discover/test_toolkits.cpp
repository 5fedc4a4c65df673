#include <doctest/doctest.h>

#include "discover/toolkits.hpp"
#include "support.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

TEST_SUITE("discover/toolkits") {
  TEST_CASE("one way to find CUDA toolkits: CUDA_HOME's is seen by activate's and install's questions too") {
    const fs::path home = test::test_dir() / "cuda home";
    fs::create_directories(home);
    test::write_binary(home / "version.json",
                       "{\n  \"cuda\" : {\n    \"name\" : \"CUDA SDK\",\n    \"version\" : \"12.2.140\"\n  }\n}\n");
    fs::create_directories(home / "bin");
    const fs::path installer = test::test_dir() / "cuda-12.4";
    fs::create_directories(installer / "bin");           // no version file: the variable's name says 12.4
    fs::create_directories(test::test_dir() / "empty");  // neither: not a toolkit
    util::Environment environment;
    environment.set("CUDA_HOME", util::to_utf8(home));
    environment.set("CUDA_PATH_V12_4", util::to_utf8(installer));
    environment.set("CUDA_ROOT", util::to_utf8(test::test_dir() / "empty"));

    std::vector<Toolkit> found;
    for (auto& toolkit : find_toolkits(environment, host_platform().os)) {
      if (util::starts_with(util::to_utf8(toolkit.root), util::to_utf8(test::test_dir()))) found.push_back(toolkit);
    }
    REQUIRE(found.size() == 2);
    CHECK(found[0].root == home);
    CHECK(found[0].via == "CUDA_HOME");
    CHECK(found[0].version_text == "12.2.140");
    CHECK(found[0].version->str() == "12.2");
    CHECK(found[1].via == "CUDA_PATH_V12_4");
    CHECK(found[1].version->str() == "12.4");

    CHECK(find_toolkit(*parse_cuda_version("12.2"), environment) == home);
    CHECK(find_toolkit(*parse_cuda_version("12.4"), environment) == installer);
    CHECK_FALSE(find_toolkit(*parse_cuda_version("12"), environment));  // a major names no one toolkit
    CHECK(toolkit_installed(*parse_cuda_version("12"), environment));
    CHECK(toolkit_installed(*parse_cuda_version("12.2"), environment));
    CHECK_FALSE(toolkit_installed(*parse_cuda_version("12.7"), environment));
  }
}

}  // namespace cudnnenv
