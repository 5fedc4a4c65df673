#include <doctest/doctest.h>

#include "store/tree.hpp"
#include "support.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

// A record with every field set, and text that TOML must escape.
TreeRecord full_example() {
  TreeRecord record;
  record.name = "cudnn-8.1.0.77-cuda-11.2";
  record.version = Version{8, 1, 0, 77};
  record.version_from = "header";
  record.cuda = CudaVersion{11, 2};
  record.cuda_from = "name";
  record.platform = Platform{Os::windows, Arch::x86_64};
  record.layout.library_dir = "cuda/bin";
  record.layout.main_library = "cuda/bin/cudnn64_8.dll";
  record.layout.include_dir = "cuda/include";
  record.layout.import_lib_dir = "cuda/lib/x64";
  record.installed_at = "2026-12-01T05:00:00Z";
  record.location = "C:\\Users\\李雷\\My \"cuDNN\" 8.1";
  record.source = SourceRecord{"zip",           "C:\\Downloads\\cudnn 'x' é.zip",       std::string(64, 'a'),
                               123456789012ull, "cudnn-11.2-windows-x64-v8.1.0.77.zip", "whole 't'"};
  record.files = {{"cuda/bin/cudnn64_8.dll", 221184, std::string(64, 'b'), ""},
                  {"cuda/include/cudnn.h", 2900, std::string(64, 'c'), ""},
                  {"lib/libcudnn.so", 5000000000ull, std::string(64, 'd'), "libcudnn.so.8"}};
  return record;
}

void check_same(const TreeRecord& read, const TreeRecord& written, bool with_files) {
  CHECK(read.name == written.name);
  CHECK(read.version == written.version);
  CHECK(read.version_from == written.version_from);
  CHECK(read.cuda == written.cuda);
  CHECK(read.cuda_from == written.cuda_from);
  CHECK(read.platform == written.platform);
  CHECK(read.layout.library_dir == written.layout.library_dir);
  CHECK(read.layout.main_library == written.layout.main_library);
  CHECK(read.layout.include_dir == written.layout.include_dir);
  CHECK(read.layout.import_lib_dir == written.layout.import_lib_dir);
  CHECK(read.installed_at == written.installed_at);
  CHECK(read.location == written.location);
  CHECK(read.source.kind == written.source.kind);
  CHECK(read.source.path == written.source.path);
  CHECK(read.source.sha256 == written.source.sha256);
  CHECK(read.source.size == written.source.size);
  CHECK(read.source.official == written.source.official);
  CHECK(read.source.healed_from == written.source.healed_from);
  if (!with_files) {
    CHECK(read.files.empty());
    return;
  }
  REQUIRE(read.files.size() == written.files.size());
  for (std::size_t i = 0; i < read.files.size(); ++i) {
    CAPTURE(i);
    CHECK(read.files[i].path == written.files[i].path);
    CHECK(read.files[i].size == written.files[i].size);
    CHECK(read.files[i].sha256 == written.files[i].sha256);
    CHECK(read.files[i].link == written.files[i].link);
  }
}

}  // namespace

TEST_SUITE("store/tree") {
  TEST_CASE("what serialize writes, parse_record reads back field for field") {
    const TreeRecord written = full_example();
    auto read = parse_record(serialize(written), "store/tree", "store/tree/.cudnnenv/tree.toml");
    REQUIRE_MESSAGE(read, (read ? "" : read.error().message));
    check_same(*read, written, true);
    CHECK(read->root == util::path_from_utf8(*written.location));  // adopted: the files are where they were
  }

  TEST_CASE("a record without CUDA, location or official name reads back without them") {
    TreeRecord written = full_example();
    written.cuda.reset();
    written.cuda_from.clear();
    written.location.reset();
    written.source.official.clear();
    written.layout.import_lib_dir.clear();
    auto read = parse_record(serialize(written), "store/tree", "store/tree/.cudnnenv/tree.toml");
    REQUIRE_MESSAGE(read, (read ? "" : read.error().message));
    check_same(*read, written, true);
    CHECK(read->root == fs::path("store/tree"));
  }

  TEST_CASE("read_record from disk: everything, or the identity without the file list") {
    const TreeRecord written = full_example();
    const fs::path tree = test::test_dir() / written.name;
    fs::create_directories(record_path(tree).parent_path());
    test::write_binary(record_path(tree), serialize(written));
    auto everything = read_record(tree);
    REQUIRE_MESSAGE(everything, (everything ? "" : everything.error().message));
    check_same(*everything, written, true);
    auto identity = read_record(tree, RecordPart::identity);
    REQUIRE_MESSAGE(identity, (identity ? "" : identity.error().message));
    check_same(*identity, written, false);
  }

  TEST_CASE("a record that names another folder than its own is refused (remove builds paths from the name)") {
    TreeRecord written = full_example();
    written.name = "../victim";
    const fs::path tree = test::test_dir() / "tree";
    fs::create_directories(record_path(tree).parent_path());
    test::write_binary(record_path(tree), serialize(written));
    auto read = read_record(tree, RecordPart::identity);
    REQUIRE_FALSE(read);
    CHECK(read.error().message ==
          "'" + util::to_utf8(record_path(tree)) +
              "' is not a valid tree record: it names the tree '../victim', not its folder's name");
  }

  TEST_CASE("a record of another format is refused with the fix") {
    std::string text = serialize(full_example());
    text.replace(text.find("format = 1"), 10, "format = 2");
    auto read = parse_record(text, "t", "t/.cudnnenv/tree.toml");
    REQUIRE_FALSE(read);
    CHECK(read.error().message == "'t/.cudnnenv/tree.toml' is not a valid tree record: unknown format");
    CHECK(read.error().hint == "remove the tree and install it again");
  }

  TEST_CASE("install times read back; anything else is no time") {
    const auto time = parse_utc_timestamp("2026-12-01T15:19:50Z");
    REQUIRE(time);
    CHECK(std::chrono::duration_cast<std::chrono::seconds>(time->time_since_epoch()).count() == 1796138390);
    CHECK(std::chrono::duration_cast<std::chrono::seconds>(
              parse_utc_timestamp("1970-01-01T00:00:00Z")->time_since_epoch())
              .count() == 0);
    CHECK_FALSE(parse_utc_timestamp("2026-13-01T15:19:50Z"));
    CHECK_FALSE(parse_utc_timestamp("2026-12-01 15:19:50"));
    CHECK_FALSE(parse_utc_timestamp(""));
  }
}

}  // namespace cudnnenv
