#include <doctest/doctest.h>

#include <algorithm>

#include "pin/pin_policy.hpp"
#include "store/layout.hpp"
#include "support.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

PinCheckOptions load_check(const Store& store) {
  PinCheckOptions options;
  options.policy = LaunchPolicy::load;
  options.probe_program = probe_program_beside(test::cudnnenv_program());
  options.cache_file = store.state().pin_checks();
  options.environment = util::Environment::current();  // the program's: this test's own
  return options;
}

// The manifest path of the host's ops sub-library: the file itself, not a link to it.
std::string ops_entry(const TreeRecord& tree) {
  for (const auto& file : tree.files) {
    if (file.link.empty() &&
        file.path.find(host_platform().os == Os::windows ? "/cudnn_ops64_9.dll" : "/libcudnn_ops.so.9") !=
            std::string::npos) {
      return file.path;
    }
  }
  FAIL("no ops library in the manifest");
  return {};
}

// What the check says of a tree with `changed` (its links to a changed file included).
std::string incomplete(const TreeRecord& tree, const std::vector<std::string>& changed) {
  return "the tree '" + tree.name + "' is incomplete: '" + changed.front() + "'" +
         (changed.size() > 1 ? " and " + std::to_string(changed.size() - 1) + " more" : std::string()) +
         " missing or changed since it was installed";
}

}  // namespace

TEST_SUITE("pin/pin_policy") {
  TEST_CASE("a sound tree passes, and the pass is remembered: the next check starts no probe") {
    Store store(test::test_dir() / "store");
    const TreeRecord tree = test::install_host_tree(store);
    PinCheckOptions options = load_check(store);
    auto first = check_pin(tree, options);
    REQUIRE_MESSAGE(first, (first ? "" : first.error().message));
    REQUIRE(fs::exists(options.cache_file));
    options.probe_program = test::test_dir() / "no-such-probe";  // a probe would fail now
    auto second = check_pin(tree, options);
    CHECK_MESSAGE(second, (second ? "" : second.error().message));
  }

  TEST_CASE("a deleted sub-library fails the check, though the main library loads and a pass was remembered") {
    Store store(test::test_dir() / "store");
    const TreeRecord tree = test::install_host_tree(store);
    const PinCheckOptions options = load_check(store);
    REQUIRE(check_pin(tree, options));
    const std::string ops = ops_entry(tree);
    fs::remove(tree.resolve(ops));
    const auto changed = changed_files(tree);
    REQUIRE(std::find(changed.begin(), changed.end(), ops) != changed.end());
    auto checked = check_pin(tree, options);
    REQUIRE_FALSE(checked);
    CHECK(checked.error().message == incomplete(tree, changed));
    CHECK(checked.error().hint == "see 'cudnnenv verify " + tree.name + "'; launch anyway with --verify none");
    CHECK(checked.error().code == ExitCode::verify_failed);
  }

  TEST_CASE("a sub-library truncated in place fails the check") {
    Store store(test::test_dir() / "store");
    const TreeRecord tree = test::install_host_tree(store);
    const PinCheckOptions options = load_check(store);
    REQUIRE(check_pin(tree, options));
    const std::string ops = ops_entry(tree);
    fs::resize_file(tree.resolve(ops), 100);
    const auto changed = changed_files(tree);
    REQUIRE(std::find(changed.begin(), changed.end(), ops) != changed.end());
    auto checked = check_pin(tree, options);
    REQUIRE_FALSE(checked);
    CHECK(checked.error().message == incomplete(tree, changed));
  }

  TEST_CASE("a folder given by path (no manifest): each library its major ships must be there") {
    Store store(test::test_dir() / "store");
    TreeRecord tree = test::install_host_tree(store);
    tree.files.clear();
    const std::string cnn = host_platform().os == Os::windows ? "cudnn_cnn64_9.dll" : "libcudnn_cnn.so.9";
    fs::remove(tree.resolve(tree.layout.library_dir) / cnn);
    auto checked = check_pin(tree, load_check(store));
    REQUIRE_FALSE(checked);
    CHECK(checked.error().message == "the tree '" + tree.name + "' is incomplete: '" + cnn + "' missing");
  }

  TEST_CASE("--verify none checks nothing") {
    Store store(test::test_dir() / "store");
    TreeRecord tree = test::install_host_tree(store);
    fs::remove(tree.library_path());
    PinCheckOptions options = load_check(store);
    options.policy = LaunchPolicy::none;
    CHECK(check_pin(tree, options));
  }
}

}  // namespace cudnnenv
