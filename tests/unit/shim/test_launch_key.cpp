#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <thread>

#include "launch_key.hpp"
#include "support.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

TEST_SUITE("shim/launch_key") {
  TEST_CASE("a cached launch decision holds while nothing resolution reads has changed") {
    const std::string root = util::to_utf8(fs::absolute("store"));
    const std::string state = root + "/.cudnnenv";
    fs::create_directories("store/.cudnnenv");
    fs::create_directories("store/tree/lib");
    test::write_binary("store/tree/lib/lib.so", "library");
    test::write_binary("store/tree/lib/lib_ops.so", "sub-library");
    const std::string library_dir = util::to_utf8(fs::absolute("store/tree/lib"));
    char key[shim::k_key_max];
    REQUIRE(shim::launch_key(root.c_str(), state.c_str(), key, sizeof key));
    char text[shim::k_key_max + 3 * shim::k_path_max];
    std::string written;
    char identity[128];
    // What exec's slow path writes for this key with `changes`; whether it could.
    const char* const folders[] = {library_dir.c_str()};
    auto format = [&](std::initializer_list<shim::EnvironmentChange> changes) {
      REQUIRE(shim::decision_identity(folders, 1, "", identity, sizeof identity));
      shim::LaunchDecision decision;
      decision.library_dir = library_dir.c_str();
      decision.folders[decision.folder_count++] = library_dir.c_str();
      decision.identity = identity;
      for (const auto& change : changes) decision.changes[decision.change_count++] = change;
      return shim::format_decision(key, decision, text, sizeof text);
    };
    auto record = [&] {
      REQUIRE(format(
          {{'+', "LD_LIBRARY_PATH", library_dir.c_str()}, {'=', "FOO", "a = b"}, {'-', "CUDNNENV_RUNTIME_DIR", ""}}));
      written = text;
    };
    record();

    auto accepted = [&](const char* with_key) {
      char copy[sizeof text];
      std::memcpy(copy, written.c_str(), written.size() + 1);
      shim::LaunchDecision read;
      const bool ok = shim::read_decision(copy, written.size(), with_key, read);
      return ok && std::string(read.library_dir) == library_dir;
    };
    CHECK(accepted(key));
    // File times come from a coarse clock (Linux: a few ms; Windows: ~16 ms), so a change in the folder right
    // after the check could keep its time: the folder aged first (Windows cannot set a folder's time through
    // the C runtime: a wait instead), then the decision recorded again.
    auto aged_record = [&] {
#ifdef _WIN32
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
#else
      fs::last_write_time("store/tree/lib", fs::last_write_time("store/tree/lib") - std::chrono::seconds(10));
#endif
      record();
      REQUIRE(accepted(key));
    };
    {
      // The changes come back in order, each whole.
      char copy[sizeof text];
      std::memcpy(copy, written.c_str(), written.size() + 1);
      shim::LaunchDecision read;
      REQUIRE(shim::read_decision(copy, written.size(), key, read));
      REQUIRE(read.change_count == 3);
      std::string changes;
      for (int i = 0; i < read.change_count; ++i) {
        changes += std::string(1, read.changes[i].op) + read.changes[i].name + "|" + read.changes[i].value + "\n";
      }
      CHECK(changes == "+LD_LIBRARY_PATH|" + library_dir + "\n=FOO|a = b\n-CUDNNENV_RUNTIME_DIR|\n");
    }
    SUBCASE("a decision without changes (one written before they were recorded) is not taken") {
      const std::string old = written.substr(0, written.find("change = "));
      char copy[sizeof text];
      std::memcpy(copy, old.c_str(), old.size() + 1);
      shim::LaunchDecision read;
      CHECK_FALSE(shim::read_decision(copy, old.size(), key, read));
    }
    SUBCASE("a value with a line break is never written") {
      CHECK_FALSE(format({{'=', "FOO", "a\nchange = =LD_PRELOAD=/evil.so"}}));
    }

    SUBCASE("a project file appears in the working folder: another key") {
      test::write_binary(".cudnnenv.toml", "cudnn = \"8\"\n");
      char other[shim::k_key_max];
      REQUIRE(shim::launch_key(root.c_str(), state.c_str(), other, sizeof other));
      CHECK(std::string(other) != std::string(key));
      CHECK(std::string(other).find(util::to_utf8(fs::absolute(".cudnnenv.toml"))) != std::string::npos);
      CHECK_FALSE(accepted(other));
    }
    SUBCASE("the global default is written: another key") {
      test::write_binary("store/.cudnnenv/config.toml", "default = \"9\"\n");
      char other[shim::k_key_max];
      REQUIRE(shim::launch_key(root.c_str(), state.c_str(), other, sizeof other));
      CHECK_FALSE(accepted(other));
    }
    SUBCASE("a shared store's own default is written (this user's state folder elsewhere): another key") {
      fs::create_directories("home-state");
      const std::string user_state = util::to_utf8(fs::absolute("home-state"));
      char before[shim::k_key_max];
      REQUIRE(shim::launch_key(root.c_str(), user_state.c_str(), before, sizeof before));
      test::write_binary("store/.cudnnenv/config.toml", "default = \"9\"\n");
      char after[shim::k_key_max];
      REQUIRE(shim::launch_key(root.c_str(), user_state.c_str(), after, sizeof after));
      CHECK(std::string(after) != std::string(before));
      test::write_binary("home-state/config.toml", "default = \"8\"\n");
      REQUIRE(shim::launch_key(root.c_str(), user_state.c_str(), before, sizeof before));
      CHECK(std::string(after) != std::string(before));
      char path[shim::k_path_max];
      REQUIRE(shim::launch_cache_path(user_state.c_str(), before, path, sizeof path));
      CHECK(std::string(path).rfind(user_state + "/cache/launch/", 0) == 0);
    }
    SUBCASE("the library replaced since the check (a new file renamed over it): refused") {
      aged_record();
      test::write_binary("store/tree/lib/lib.so.new", "another library, longer");
      fs::rename("store/tree/lib/lib.so.new", "store/tree/lib/lib.so");
      CHECK_FALSE(accepted(key));
    }
    SUBCASE("a sub-library deleted since the check: the folder changed, refused") {
      aged_record();
      fs::remove("store/tree/lib/lib_ops.so");
      CHECK_FALSE(accepted(key));
    }
  }
}

}  // namespace cudnnenv
