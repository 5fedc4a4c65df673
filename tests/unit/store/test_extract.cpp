#include <doctest/doctest.h>

#include "store/extract.hpp"

namespace cudnnenv {

TEST_SUITE("extract") {
  TEST_CASE("entry names that stay inside the tree are normalised") {
    CHECK(*safe_entry_path("cuda/bin/cudnn64_8.dll") == "cuda/bin/cudnn64_8.dll");
    CHECK(*safe_entry_path("./cuda//bin/./x.dll") == "cuda/bin/x.dll");
    CHECK(*safe_entry_path("库/文件.h") == "库/文件.h");
  }

  TEST_CASE("names that could write outside the tree are refused, each with its reason") {
    struct Case {
      const char* name;
      const char* reason;
    };
    for (const Case& c : {Case{"/etc/passwd", "absolute path"}, Case{"\\Windows\\x.dll", "absolute path"},
                          Case{"C:/Windows/x.dll", "names a drive"}, Case{"../evil.dll", "climbs out"},
                          Case{"cuda/../../evil.dll", "climbs out"}, Case{"cuda/bin/x.dll:stream", "names a drive"},
                          Case{"cuda/con.h", "not a valid Windows file name"},
                          Case{"cuda/bin/trailing. ", "not a valid Windows file name"}, Case{"./", "names the tree"}}) {
      CAPTURE(c.name);
      auto result = safe_entry_path(c.name);
      REQUIRE_FALSE(result);
      CHECK(result.error().message.find(c.reason) != std::string::npos);
    }
  }

  TEST_CASE("link targets resolve inside the tree or are refused") {
    CHECK(*resolve_link_target("lib/libcudnn.so.9", "libcudnn.so.9.1.0") == "lib/libcudnn.so.9.1.0");
    CHECK(*resolve_link_target("lib/x/libcudnn.so", "../libcudnn.so.9") == "lib/libcudnn.so.9");
    CHECK_FALSE(resolve_link_target("lib/libcudnn.so.9", "/usr/lib/libcudnn.so.9"));
    CHECK_FALSE(resolve_link_target("lib/libcudnn.so.9", "../../etc/passwd"));
    CHECK(resolve_link_target("lib/libcudnn.so.9", "../../etc/passwd").error().message.find("leads out of the tree") !=
          std::string::npos);
  }
}

}  // namespace cudnnenv
