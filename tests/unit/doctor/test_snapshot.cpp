#include <doctest/doctest.h>

#include "doctor/snapshot.hpp"

namespace cudnnenv {

TEST_SUITE("snapshot") {
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
}

}  // namespace cudnnenv
