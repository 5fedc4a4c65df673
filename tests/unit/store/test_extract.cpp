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
      const char* reason;  // the message: "the archive entry '<name>'" and this
    };
    for (const Case& c :
         {Case{"/etc/passwd", " has an absolute path"}, Case{"\\Windows\\x.dll", " has an absolute path"},
          Case{"C:/Windows/x.dll", " names a drive or a stream (':')"},
          Case{"../evil.dll", " climbs out of the tree with '..'"},
          Case{"cuda/../../evil.dll", " climbs out of the tree with '..'"},
          Case{"cuda/bin/x.dll:stream", " names a drive or a stream (':')"},
          Case{"cuda/con.h", " is not a valid Windows file name"},
          Case{"cuda/bin/trailing. ", " is not a valid Windows file name"}, Case{"./", " names the tree itself"}}) {
      CAPTURE(c.name);
      auto result = safe_entry_path(c.name);
      REQUIRE_FALSE(result);
      CHECK(result.error().message == "the archive entry '" + std::string(c.name) + "'" + c.reason);
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
