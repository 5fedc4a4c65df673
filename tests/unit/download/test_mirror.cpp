#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "download/mirror.hpp"
#include "support.hpp"
#include "util/sha256.hpp"

namespace cudnnenv {

namespace {

const std::string k_index_sha(64, 'a');

MirrorIndex two_files() {
  MirrorIndex index;
  index.add(
      {"compute/cuda/redist/redistrib_13.0.2.json", 60000, k_index_sha, "the manifest of CUDA 13.0.2", "", "13.0.2"});
  index.add({"compute/cudnn/redist/cudnn/linux-x86_64/a.tar.xz", 123, std::string(64, 'b'),
             "cuDNN 9.1.0.70 (cuda12) for linux-x86_64", "linux-x86_64", ""});
  return index;
}

std::string index_with(const std::string& entry) {
  return R"({"format": 1, "files": [)" + entry + "]}";
}

}  // namespace

TEST_SUITE("download/mirror") {
  TEST_CASE("an index written and read back is the same index, sorted by path") {
    const MirrorIndex index = two_files();
    REQUIRE(index.files.size() == 2);
    CHECK(index.files[0].path == "compute/cuda/redist/redistrib_13.0.2.json");
    const auto again = parse_mirror_index(serialize_mirror_index(index), "cudnnenv-mirror.json");
    REQUIRE(again);
    CHECK(again->files == index.files);
  }

  TEST_CASE("adding a file at a path the index has replaces it") {
    MirrorIndex index = two_files();
    index.add({"compute/cuda/redist/redistrib_13.0.2.json", 1, k_index_sha, "new", "", "13.0.2"});
    REQUIRE(index.files.size() == 2);
    CHECK(index.files[0].what == "new");
  }

  TEST_CASE("an index is untrusted: each field is checked, and the message names the entry") {
    const auto error_of = [](const std::string& text) {
      const auto parsed = parse_mirror_index(text, "m.json");
      REQUIRE_FALSE(parsed);
      return parsed.error().message;
    };
    CHECK(error_of(index_with(R"({"path": "../etc/passwd", "size": 1, "sha256": ")" + k_index_sha + R"("})")) ==
          "'m.json', file 1: the path '../etc/passwd' is not a plain relative path");
    CHECK(error_of(index_with(R"({"path": "/etc/passwd", "size": 1, "sha256": ")" + k_index_sha + R"("})")) ==
          "'m.json', file 1: the path '/etc/passwd' is not a plain relative path");
    CHECK(error_of(index_with(R"({"path": "a", "size": -1, "sha256": ")" + k_index_sha + R"("})")) ==
          "'m.json', file 1: 'size' is not a number of bytes");
    CHECK(error_of(index_with(R"({"path": "a", "size": 1, "sha256": "ABC"})")) ==
          "'m.json', file 1: 'ABC' is not a SHA-256 (64 hex digits)");
    CHECK(error_of(index_with(R"({"path": "a", "size": 1, "sha256": ")" + k_index_sha + R"(", "what": 5})")) ==
          "'m.json', file 1: 'what' is not a short string");
    CHECK(error_of(index_with(R"({"path": "a", "size": 1, "sha256": ")" + k_index_sha +
                              R"("}, {"path": "a", "size": 1, "sha256": ")" + k_index_sha + R"("})")) ==
          "'m.json' names 'a' twice");
    CHECK(
        error_of(index_with(R"({"path": "a", "size": 1, "sha256": ")" + k_index_sha + R"(", "platform": "plan9"})")) ==
        "'m.json', file 1: 'plan9' is no platform of the official list");
    CHECK(error_of(index_with(R"({"path": "a", "size": 1, "sha256": ")" + k_index_sha +
                              R"(", "cuda_release": "\u001b[2J"})")) ==
          "'m.json', file 1: '\\x1b[2J' is not a CUDA release");
    CHECK(error_of(R"({"format": 2, "files": []})") ==
          "'m.json' is not a mirror index of format 1 (a newer cudnnenv may have written it)");
    CHECK(error_of("[[[[[[[[]]]]]]]]") == "'m.json' nests deeper than a mirror index does");
    CHECK(error_of("not json") == "'m.json' is not a mirror index (not a JSON object)");
    CHECK(error_of(std::string(k_max_mirror_index + 1, ' ')) == "'m.json' is larger than any mirror index (4.2 MB)");
  }

  TEST_CASE("verify finds a missing file, another size and other bytes") {
    const auto folder = test::test_dir();
    std::filesystem::create_directories(folder / "a");
    std::ofstream(folder / "a" / "good") << "good";
    std::ofstream(folder / "a" / "long") << "longer";
    std::ofstream(folder / "a" / "other") << "ohno";
    const std::string good = *util::sha256_file(folder / "a" / "good");
    MirrorIndex index;
    index.add({"a/good", 4, good, "", "", ""});
    index.add({"a/long", 4, good, "", "", ""});
    index.add({"a/other", 4, good, "", "", ""});
    index.add({"a/gone", 4, good, "", "", ""});
    std::vector<std::string> problems;
    for (const auto& check : verify_mirror(folder, index)) problems.push_back(check.file.path + ": " + check.problem);
    const std::string other = *util::sha256_file(folder / "a" / "other");
    CHECK(problems == std::vector<std::string>{"a/gone: missing", "a/good: ", "a/long: 6 bytes, the index says 4",
                                               "a/other: its SHA-256 is " + other + ", the index says " + good});
  }
}

}  // namespace cudnnenv
