#include <doctest/doctest.h>

#include <fstream>

#include "support.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::util {

namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

// A folder whose own path is past 260 characters (MAX_PATH), below the test's folder.
fs::path deep_folder() {
  fs::path deep = test::test_dir();
  while (deep.native().size() < 300) deep /= "a-folder-of-30-characters-xxxx";
  fs::create_directories(deep);
  return deep;
}

std::vector<std::string> names(const std::vector<DirectoryEntry>& entries) {
  std::vector<std::string> result;
  for (const auto& entry : entries) result.push_back(to_utf8(entry.path.filename()));
  return result;
}

}  // namespace

TEST_SUITE("util/fs") {
  TEST_CASE("a private folder is made by the call alone: a name that exists is never taken") {
    fs::create_directories("planted");
    const auto taken = create_private_directory("planted");
    REQUIRE(taken);
    CHECK_FALSE(*taken);
    const auto made = create_private_directory("mine");
    REQUIRE(made);
    CHECK(*made);
    auto folder = make_private_directory(fs::current_path(), "tmp ");
    REQUIRE(folder);
    CHECK(fs::is_directory(*folder));
    CHECK(starts_with(to_utf8(folder->filename()), "tmp " + std::to_string(current_process_id()) + "-"));
#ifndef _WIN32
    CHECK((fs::status(*folder).permissions() & fs::perms::all) == fs::perms::owner_all);
#endif
    auto second = make_private_directory(fs::current_path(), "tmp ");
    REQUIRE(second);
    CHECK(*second != *folder);
  }

  TEST_CASE("list_directory: the entries sorted, with their kinds and sizes") {
    const fs::path folder = test::test_dir() / "listed";
    write(folder / "b.dll", "12345");
    write(folder / "a" / "inner.h", "x");
    write(folder / fs::path(u8"c 库 é & (x).h"), "");
    auto entries = list_directory(folder);
    REQUIRE(entries);
    CHECK(names(*entries) == std::vector<std::string>{"a", "b.dll", "c 库 é & (x).h"});
    CHECK((*entries)[0].is_directory);
    CHECK_FALSE((*entries)[0].is_regular_file);
    CHECK((*entries)[1].is_regular_file);
    CHECK((*entries)[1].size == 5);
    CHECK_FALSE((*entries)[1].is_symlink);
    CHECK((*entries)[1].path == folder / "b.dll");
  }

  TEST_CASE("list_directory: a missing folder is an error naming it; directory_entries reads it as empty") {
    const fs::path missing = test::test_dir() / "missing";
    auto entries = list_directory(missing);
    REQUIRE_FALSE(entries);
    CHECK(entries.error().message.rfind("cannot list '" + to_utf8(missing) + "': ", 0) == 0);
    CHECK(directory_entries(missing).empty());
  }

  TEST_CASE("past 260 characters: listed, walked and removed") {
    const fs::path deep = deep_folder();
    write(deep / "store" / "t81" / "bin" / "cudnn64_8.dll", "dll");
    write(deep / "store" / "t81" / "include" / "cudnn_version.h", "h");
    auto entries = list_directory(deep / "store" / "t81");
    REQUIRE(entries);
    CHECK(names(*entries) == std::vector<std::string>{"bin", "include"});
    std::vector<std::string> walked;
    walk_directory(deep / "store", [&](const DirectoryEntry& entry, int depth) {
      walked.push_back(std::to_string(depth) + " " + generic_utf8(entry.path.lexically_relative(deep / "store")));
      return true;
    });
    CHECK(walked == std::vector<std::string>{"0 t81", "1 t81/bin", "2 t81/bin/cudnn64_8.dll", "1 t81/include",
                                             "2 t81/include/cudnn_version.h"});
    CHECK(remove_tree(deep / "store"));
    CHECK_FALSE(entry_exists(deep / "store"));
    CHECK(entry_exists(deep));
  }

  TEST_CASE("walk_directory goes into a folder only when asked") {
    const fs::path root = test::test_dir() / "walked";
    write(root / "skip" / "hidden.txt", "");
    write(root / "keep" / "seen.txt", "");
    std::vector<std::string> walked;
    walk_directory(root, [&](const DirectoryEntry& entry, int) {
      walked.push_back(generic_utf8(entry.path.lexically_relative(root)));
      return entry.path.filename() != "skip";
    });
    CHECK(walked == std::vector<std::string>{"keep", "keep/seen.txt", "skip"});
  }

  TEST_CASE("DirectoryWalk: one entry at a time, into a folder only when entered; what cannot be listed is said") {
    const fs::path root = test::test_dir() / "stepped";
    write(root / "a" / "inner.h", "");
    write(root / "b.dll", "");
    DirectoryWalk walk(root);
    auto first = walk.next();
    REQUIRE(first);
    REQUIRE(*first);
    CHECK((*first)->path == root / "a");
    CHECK(walk.enter());
    auto second = walk.next();
    REQUIRE((second && *second));
    CHECK((*second)->path == root / "a" / "inner.h");
    CHECK(walk.depth() == 1);
    auto entered_file = walk.enter();  // a file is no folder
    REQUIRE_FALSE(entered_file);
    CHECK(entered_file.error().message.rfind("cannot list '" + to_utf8(root / "a" / "inner.h") + "': ", 0) == 0);
    auto third = walk.next();
    REQUIRE((third && *third));
    CHECK((*third)->path == root / "b.dll");
    CHECK(walk.depth() == 0);
    auto end = walk.next();
    REQUIRE(end);
    CHECK_FALSE(*end);
    DirectoryWalk missing(test::test_dir() / "missing");
    CHECK_FALSE(missing.next());
  }

  TEST_CASE("remove_tree: a read-only file goes too; a link is removed, not what it leads to") {
    const fs::path root = test::test_dir() / "removed";
    write(root / "locked.dll", "x");
    fs::permissions(root / "locked.dll", fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                    fs::perm_options::remove);
    const fs::path outside = test::test_dir() / "outside";
    write(outside / "keep.txt", "kept");
    std::error_code ec;
    fs::create_directory_symlink(outside, root / "link", ec);  // Windows without the privilege: no link, no check
    CHECK(remove_tree(root));
    CHECK_FALSE(entry_exists(root));
    CHECK(entry_exists(outside / "keep.txt"));
  }
}

}  // namespace cudnnenv::util
