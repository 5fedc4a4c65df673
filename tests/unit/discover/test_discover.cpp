#include <doctest/doctest.h>

#include "discover/discover.hpp"
#include "store/layout.hpp"
#include "support.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

TEST_SUITE("discover/discover") {
  TEST_CASE("globs expand '*' in any component, sorted") {
    for (const char* dir : {"a/v11.2/bin", "a/v12.4/bin", "a/x/bin"}) {
      fs::create_directories(dir);
    }
    const auto found = expand_glob(test::test_dir() / "a" / "v*" / "bin");
    REQUIRE(found.size() == 2);
    CHECK(found[0] == test::test_dir() / "a" / "v11.2" / "bin");
    CHECK(found[1] == test::test_dir() / "a" / "v12.4" / "bin");
  }

  TEST_CASE("the copy a plain process loads follows the search path; every copy is listed with its version") {
    const Os os = host_platform().os;
    const std::string variable = os == Os::windows ? "PATH" : "LD_LIBRARY_PATH";
    const std::string library = main_library_name(9, os);
    for (const char* name : {"first", "second"}) {
      test::FakeTree spec;
      spec.os = os;
      spec.major = 9;
      spec.header_version = std::string(name) == "first" ? "9.1.0" : "9.1.0";
      spec.library = os == Os::windows ? "fake-pe64-9.1.0.dll" : "fake-elf64-9.1.0.so";
      spec.style = test::TreeStyle::archive;
      test::write_folder(name, test::fake_tree(spec));
    }
    const std::string first = util::to_utf8(test::test_dir() / "first" / (os == Os::windows ? "bin" : "lib"));
    const std::string second = util::to_utf8(test::test_dir() / "second" / (os == Os::windows ? "bin" : "lib"));

    DiscoverContext context;
    context.os = os;
    context.environment.set(variable, second + util::path_list_separator() + first);
    context.environment.set("SystemRoot", util::to_utf8(test::test_dir() / "no-windows"));
    CHECK(default_resolution(context, library) == util::path_from_utf8(second) / library);

    context.probe = test::child_probe();
    std::vector<FoundCopy> mine;
    for (auto& copy : discover(context)) {
      if (util::to_utf8(copy.library).find(util::to_utf8(test::test_dir())) != std::string::npos) {
        mine.push_back(copy);
      }
    }
    REQUIRE(mine.size() == 2);
    for (const auto& copy : mine) {
      CAPTURE(util::to_utf8(copy.library));
      CHECK(copy.version->str() == "9.1.0");
      CHECK(copy.version_from == "header");
      CHECK(copy.cuda->str() == "12.2");
      CHECK(copy.found_via == std::vector<std::string>{variable});
      CHECK(copy.loaded_by_name == (copy.library.parent_path() == fs::path(util::path_from_utf8(second))));
    }
  }
}

}  // namespace cudnnenv
