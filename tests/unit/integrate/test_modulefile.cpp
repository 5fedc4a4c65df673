#include <doctest/doctest.h>

#include "integrate/modulefile.hpp"
#include "support.hpp"
#include "util/fs.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

TEST_SUITE("integrate/modulefile") {
  TEST_CASE("two trees that would be one module: refused before any file is written") {
    const Store store = test::make_selection_store();
    const auto trees = store.list().trees;
    const auto tree = test::pick(store, "8.1");
    REQUIRE(tree);
    const auto written = write_modulefiles(test::test_dir() / "modules", shell::ModuleFormat::lua,
                                           {{*tree, {}}, {*tree, {}}}, trees, {}, false);
    REQUIRE_FALSE(written);
    CHECK(written.error().message ==
          "two trees would both be module cudnn/8.1.0.77, and one file would replace the other");
    CHECK_FALSE(fs::exists(test::test_dir() / "modules"));
  }

  TEST_CASE("the whole store: a file an earlier --all wrote for a module now gone goes, a file of the user's stays") {
    const Store store = test::make_selection_store();
    const auto listing = store.list();
    const fs::path folder = test::test_dir() / "modules" / "cudnn";
    fs::create_directories(folder);
    REQUIRE(util::write_file_atomic(folder / "8.9.7.lua", "-- written by 'cudnnenv export modulefile'\n"));
    REQUIRE(util::write_file_atomic(folder / "7.6.lua", "-- the admin's own\n"));
    REQUIRE(util::write_file_atomic(folder / "8.1.0", "# written by 'cudnnenv export modulefile'\n"));  // Tcl
    const auto written = write_modulefiles(test::test_dir() / "modules", shell::ModuleFormat::lua,
                                           store_modules(listing), listing.trees, {}, true);
    REQUIRE(written);
    std::string lines;
    for (const auto& change : *written) {
      lines += (change.kind == FileChange::Kind::wrote ? "wrote " : "removed ") +
               util::to_utf8(change.path.filename()) + "\n";
    }
    // Two 8.9.7 trees (CUDA 11 and 12) are two modules with the CUDA in their names; the 8.9.7 of an
    // earlier --all goes.
    CHECK(lines ==
          "wrote 9.1.0.70.lua\nwrote 8.10.0.5.lua\nwrote 8.9.7.29-cuda11.lua\nwrote 8.9.7.29-cuda12.lua\n"
          "wrote 8.1.0.77.lua\nremoved 8.9.7.lua\n");
    CHECK(fs::exists(folder / "7.6.lua"));
    CHECK(fs::exists(folder / "8.1.0"));  // another format's, left to its own --all
  }
}

}  // namespace cudnnenv
