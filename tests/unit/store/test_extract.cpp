#include <doctest/doctest.h>

#include "store/extract.hpp"
#include "support.hpp"
#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

TEST_SUITE("store/extract") {
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

  TEST_CASE("under 256 MiB the ratio is not enforced: small archives of repetitive files install") {
    CHECK(ExtractLimits{}.ratio_floor == std::uint64_t{256} << 20);
  }

  TEST_CASE("unpacking stops at the ratio and at the total, counted from the bytes written") {
    test::FileMap files;
    files["zeros.bin"] = test::Item{std::string(4 << 20, '\0')};
    test::write_zip("zeros.zip", files);
    auto reader = open_source("zeros.zip", SourceKind::zip);
    REQUIRE(reader);
    fs::create_directories("out");
    ExtractLimits limits;
    limits.source_size = fs::file_size("zeros.zip");
    limits.ratio_floor = 0;
    SUBCASE("ratio") {
      auto extracted = extract(**reader, "out", "zeros.zip", limits);
      REQUIRE_FALSE(extracted);
      CHECK(extracted.error().message == "'zeros.zip' unpacks to more than 50 times its size (" +
                                             util::human_size(limits.source_size) +
                                             "): refused as a decompression bomb");
    }
    SUBCASE("total") {
      limits.max_ratio = 0;
      limits.max_bytes = 1 << 20;
      auto extracted = extract(**reader, "out", "zeros.zip", limits);
      REQUIRE_FALSE(extracted);
      CHECK(extracted.error().message == "'zeros.zip' unpacks to more than 1 MiB, the limit for one tree");
    }
    SUBCASE("within both") {
      limits.max_ratio = 0;
      CHECK(extract(**reader, "out", "zeros.zip", limits));
    }
  }

  TEST_CASE("each file's recorded SHA-256 is its bytes' own, a small file's and a large one's (on a second core)") {
    test::FileMap files;
    std::string large(3 << 20, '\0');
    for (std::size_t i = 0; i < large.size(); ++i) large[i] = static_cast<char>((i * 7919) >> 5);
    files["small.txt"] = test::Item{"a small file\n"};
    files["large.bin"] = test::Item{large};
    test::write_zip("two.zip", files);
    auto reader = open_source("two.zip", SourceKind::zip);
    REQUIRE(reader);
    fs::create_directories("out");
    auto extracted = extract(**reader, "out", "two.zip", ExtractLimits{});
    REQUIRE(extracted);
    REQUIRE(extracted->files.size() == 2);
    for (const auto& file : extracted->files) {
      CAPTURE(file.record.path);
      CHECK(file.record.sha256 == *util::sha256_file(fs::path("out") / file.record.path));
    }
  }

  TEST_CASE("a './' folder entry is the tree itself, not an error") {
    test::FileMap files;
    files["./"] = test::Item{};
    files["./lib/x.so"] = test::Item{"x"};
    test::write_zip("dot.zip", files);
    auto reader = open_source("dot.zip", SourceKind::zip);
    REQUIRE(reader);
    fs::create_directories("out");
    auto extracted = extract(**reader, "out", "dot.zip");
    REQUIRE_MESSAGE(extracted, (extracted ? std::string() : extracted.error().message));
    CHECK(fs::is_regular_file("out/lib/x.so"));
  }
}

}  // namespace cudnnenv
