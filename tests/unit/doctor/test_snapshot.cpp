#include <doctest/doctest.h>

#include "doctor/snapshot.hpp"

namespace cudnnenv {

TEST_SUITE("doctor/snapshot") {
  TEST_CASE("snapshot diff: key by key, list elements by identity; what is not a snapshot is refused") {
    const std::string before =
        R"({"format": 1, "taken_at": "a", "selection": {"version": "9.4.0"}, "copies": [{"library": "/x", "size": 1}]})";
    const std::string after =
        R"({"format": 1, "taken_at": "b", "selection": {"version": "9.1.0"}, "copies": [{"library": "/y", "size": 1}, {"library": "/x", "size": 1}]})";
    auto changes = diff_snapshots(before, after, "a.json", "b.json");
    REQUIRE(changes);
    REQUIRE(changes->size() == 3);
    CHECK((*changes)[0].change == "changed");
    CHECK((*changes)[0].key == "selection.version");
    CHECK((*changes)[1].key == "copies[/y].library");
    CHECK((*changes)[2].key == "copies[/y].size");
    CHECK((*changes)[2].change == "added");
    CHECK(diff_snapshots(before, before, "a", "a")->empty());
    const auto deep = "{\"format\": 1, \"x\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
    auto refused = diff_snapshots(before, deep, "a.json", "deep.json");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message == "'deep.json' is not a cudnnenv snapshot");
    CHECK(refused.error().code == ExitCode::usage);
    CHECK_FALSE(diff_snapshots("[1]", before, "list.json", "a.json"));
  }

  TEST_CASE("snapshot diff bounds its work by the input's size (#28 item 7: a path repeats in every line below it)") {
    // Seven levels of one-element lists, each element named by a 100-byte id, above a list of 50,000
    // numbers: ~100 kB of text whose every number's line carries a 700-byte path (~37 MB flattened).
    std::string element = "[" + std::string(50000 * 2 - 1, ',') + "]";
    for (std::size_t at = 1; at + 1 < element.size(); at += 2) element[at] = '1';
    for (int level = 0; level < 7; ++level) {
      element = "[{\"id\": \"" + std::string(100, static_cast<char>('a' + level)) + "\", \"x\": " + element + "}]";
    }
    const std::string hostile = "{\"format\": 1, \"k\": " + element + "}";
    REQUIRE(hostile.size() < 200000);
    auto refused = diff_snapshots(hostile, "{\"format\": 1}", "hostile.json", "b.json");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("'hostile.json' expands to more than ") == 0);
    CHECK(refused.error().code == ExitCode::usage);
  }
}

}  // namespace cudnnenv
