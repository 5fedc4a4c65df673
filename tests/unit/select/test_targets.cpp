#include <doctest/doctest.h>

#include <system_error>

#include "select/targets.hpp"
#include "store/spec.hpp"
#include "support.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

TEST_SUITE("select/targets") {
  TEST_CASE("verify's targets: --all of an empty store, a missing folder, the selection here asked once") {
    std::error_code ec;
    const fs::path root = test::test_dir() / "targets store";
    fs::remove_all(root, ec);
    Store store(root);
    std::vector<std::string> warnings;
    int asked = 0;
    const auto here = [&]() -> Result<Selection> {
      ++asked;
      return make_error("no tree is selected here", "cudnnenv use 9.1", ExitCode::not_found);
    };
    auto all = verify_targets(store, "", true, here, warnings);
    REQUIRE_FALSE(all);
    CHECK(all.error().message == "the store is empty");
    CHECK(all.error().hint == install_suggestion());
    CHECK(util::starts_with(all.error().hint, "'cudnnenv install 9."));  // a command that runs, no placeholder
    CHECK(asked == 1);  // with --all too: the selected tree keeps its runtime

    auto missing = verify_targets(store, "./no/such/folder", false, here, warnings);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message == "the folder './no/such/folder' does not exist");
    CHECK(asked == 1);  // a target given: the selection is not asked

    auto selection = verify_targets(store, "", false, here, warnings);
    REQUIRE_FALSE(selection);
    CHECK(selection.error().message == "no tree is selected here");
    CHECK(asked == 2);
    CHECK(warnings.empty());
  }

  TEST_CASE("verify's targets: a tree of the store by spec, with the newest runtime of its CUDA major") {
    std::error_code ec;
    const fs::path root = test::test_dir() / "targets store 2";
    fs::remove_all(root, ec);
    Store store(root);
    test::install_fake(store, "cudnn-linux-x86_64-9.1.0.70_cuda12-archive.zip", "9.1.0", 9);
    std::vector<std::string> warnings;
    auto targets = verify_targets(
        store, "9.1", false, [] { return Result<Selection>(make_error("unused")); }, warnings);
    REQUIRE(targets);
    REQUIRE(targets->size() == 1);
    CHECK(targets->front().tree.version.str() == "9.1.0.70");
    CHECK_FALSE(targets->front().runtime);  // no runtime tree installed
  }
}

}  // namespace cudnnenv
