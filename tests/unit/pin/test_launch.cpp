#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include <cstring>

#include "launch_key.hpp"
#include "pin/launch.hpp"
#include "pin/pin_policy.hpp"
#include "sidecar.hpp"
#include "support.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

bool windows() {
  return host_platform().os == Os::windows;
}

// An executable file named `name` (name.exe on Windows) in `folder`.
fs::path make_program(const fs::path& folder, const std::string& name) {
  fs::create_directories(folder);
  const fs::path file = folder / (windows() ? name + ".exe" : name);
  test::write_binary(file, "#!/bin/sh\n");
  fs::permissions(file, fs::perms::owner_all);
  return file;
}

util::Environment path_of(std::initializer_list<fs::path> folders) {
  std::string value;
  for (const auto& folder : folders) {
    value += (value.empty() ? "" : std::string(1, util::path_list_separator())) + util::to_utf8(fs::absolute(folder));
  }
  util::Environment environment;
  environment.set("PATH", value);
  environment.set("PATHEXT", ".COM;.EXE");
  return environment;
}

}  // namespace

TEST_SUITE("pin/launch") {
  TEST_CASE("cuDNN files by name, of any version, and nothing else") {
    for (const char* name : {"libcudnn.so.9", "/x/libcudnn_ops.so.9.1.0", "libcudnn.so", "libcudnn_graph.so.9",
                             "cudnn64_8.dll", "cudnn_ops_infer64_8.dll", "CUDNN64_9.DLL"}) {
      CAPTURE(name);
      CHECK(is_cudnn_file(name));
    }
    for (const char* name : {"libcudnnenv-audit.so", "libcuda.so.1", "libcublas.so.12", "/lib/libcudnn/other.so",
                             "cublas64_11.dll", "libcudnn.txt"}) {
      CAPTURE(name);
      CHECK_FALSE(is_cudnn_file(name));
    }
  }

  TEST_CASE("a program on PATH, never from the shims folder or through a link to a shim") {
    const fs::path shims = fs::absolute("shims");
    make_program(shims, "tool");
    SUBCASE("the first match after the shims folder") {
      const fs::path real = make_program("bin", "tool");
      auto found = find_program("tool", path_of({shims, "bin"}), {shims});
      REQUIRE(found);
      CHECK(fs::equivalent(*found, real));
    }
    SUBCASE("only in the shims folder: an error, not a loop") {
      auto found = find_program("tool", path_of({shims}), {shims});
      REQUIRE_FALSE(found);
      CHECK(found.error().message == "'tool' is found only in the shims folder: the shim would start itself");
      CHECK(found.error().code == ExitCode::not_found);
    }
    if (!windows()) {
      SUBCASE("a link to the shim elsewhere on PATH is the shim") {
        fs::create_directories("links");
        fs::create_symlink(shims / "tool", "links/tool");
        auto found = find_program("tool", path_of({"links", shims}), {shims});
        REQUIRE_FALSE(found);
      }
    }
    SUBCASE("not found") {
      auto found = find_program("absent", path_of({"bin"}), {});
      REQUIRE_FALSE(found);
      CHECK(found.error().message == "'absent' not found on PATH");
    }
  }

  TEST_CASE("the environment of a pinned program: the tree first, once, however often it is launched") {
    const fs::path lib = fs::absolute(windows() ? "tree/bin" : "tree/lib");
    fs::create_directories(lib);
    make_program("bin", "tool");
    test::write_binary("audit.so", "");
    LaunchRequest request;
    request.tree.root = fs::absolute("tree");
    request.tree.layout.library_dir = windows() ? "bin" : "lib";
    request.tree.layout.main_library = windows() ? "bin/cudnn64_9.dll" : "lib/libcudnn.so.9";  // relative to the root
    request.command = "tool";
    request.environment = path_of({"bin"});
    request.audit_module = fs::absolute("audit.so");
    const std::string variable = windows() ? "PATH" : "LD_LIBRARY_PATH";
    request.environment.set(variable,
                            request.environment.get(variable).value_or("") + util::path_list_separator() + "/other");
    auto plan = plan_launch(request);
    REQUIRE(plan);
    const std::string first = plan->environment.get(variable).value_or("");
    CHECK(util::starts_with(first, util::to_utf8(lib) + util::path_list_separator()));
    CHECK(util::ends_with(first, "/other"));
    CHECK(plan->environment.get("CUDNNENV_PIN_DIR") == util::to_utf8(lib));
    // Launched again from the launched program: the same value, not a longer one.
    request.environment = plan->environment;
    auto again = plan_launch(request);
    REQUIRE(again);
    CHECK(again->environment.get(variable) == first);
    if (!windows()) {
      CHECK(plan->environment.get("LD_AUDIT") == util::to_utf8(fs::absolute("audit.so")));
      CHECK(again->environment.get("LD_AUDIT") == util::to_utf8(fs::absolute("audit.so")));
      CHECK_FALSE(plan->environment.get("LD_PRELOAD"));
      // (LD_PRELOAD cannot hold the space of this test's folder: a tree of a plain path.)
      request.mode = PinMode::preload;
      request.tree.root = "/cudnnenv-test-tree";
      auto preload = plan_launch(request);
      REQUIRE(preload);
      CHECK(preload->environment.get("LD_PRELOAD") == "/cudnnenv-test-tree/lib/libcudnn.so.9");
      CHECK_FALSE(preload->environment.get("CUDNNENV_PIN_DIR"));
    }
  }

  TEST_CASE("Linux: a path the loader's variables cannot hold is refused, not passed on split") {
    if (windows()) return;
    const fs::path root = fs::absolute("a tree:x");
    fs::create_directories(root / "lib");
    make_program("bin", "tool");
    test::write_binary("audit.so", "");
    LaunchRequest request;
    request.tree.root = root;
    request.tree.layout.library_dir = "lib";
    request.tree.layout.main_library = "lib/libcudnn.so.9";
    request.command = "tool";
    request.environment = path_of({"bin"});
    request.audit_module = fs::absolute("audit.so");
    auto colon = plan_launch(request);
    REQUIRE_FALSE(colon);
    CHECK(colon.error().message == "the tree's library folder '" + util::to_utf8(root / "lib") +
                                       "' has a ':', which LD_LIBRARY_PATH and LD_AUDIT cannot hold");
    CHECK(colon.error().hint == "move the store (--root) or cudnnenv to a path without ':'");
    // A space: LD_LIBRARY_PATH and LD_AUDIT hold it; LD_PRELOAD (split at spaces) does not.
    request.tree.root = fs::absolute("a tree");
    fs::create_directories(request.tree.root / "lib");
    request.mode = PinMode::audit;
    CHECK(plan_launch(request));
    request.mode = PinMode::path;
    CHECK(plan_launch(request));
    request.mode = PinMode::preload;
    auto space = plan_launch(request);
    REQUIRE_FALSE(space);
    CHECK(space.error().message == "the tree's library '" + util::to_utf8(request.tree.root / "lib/libcudnn.so.9") +
                                       "' has a space, which LD_PRELOAD cannot hold");
    CHECK(space.error().hint == "use --mode audit (the default), or a store (--root) whose path has no space");
  }

  TEST_CASE("loaded files sorted into the tree's and the others, the program's own folder named") {
    TreeRecord tree;
    tree.root = fs::absolute("tree");
    fs::create_directories("tree/lib");
    fs::create_directories("prog");
    fs::create_directories("elsewhere");
    const std::vector<LoadedModule> loaded = {
        {1, util::to_utf8(fs::absolute("tree/lib/libcudnn.so.9"))},
        {1, util::to_utf8(fs::absolute("tree/lib/libcudnn.so.9"))},  // twice: reported once
        {1, util::to_utf8(fs::absolute("prog/cudnn64_8.dll"))},
        {2, util::to_utf8(fs::absolute("elsewhere/libcudnn_ops.so.9"))},
        {1, "/lib/x86_64-linux-gnu/libc.so.6"}};
    const PinReport report = classify_loaded({&tree}, fs::absolute("prog/tool"), loaded);
    REQUIRE(report.files.size() == 3);
    CHECK(report.outside_count() == 2);
    CHECK(report.files[0].inside);
    CHECK(report.files[0].path == util::to_utf8(fs::weakly_canonical(fs::absolute("tree/lib/libcudnn.so.9"))));
    CHECK_FALSE(report.files[1].inside);
    CHECK(report.files[1].why ==
          "from the program's own folder, which the loader searches before PATH: remove or rename that copy");
    CHECK(report.files[2].path == util::to_utf8(fs::weakly_canonical(fs::absolute("elsewhere/libcudnn_ops.so.9"))));
    CHECK(report.files[2].pid == 2);
    CHECK(report.files[2].why.empty());
  }

  TEST_CASE("the check before a start: --verify, then CUDNNENV_VERIFY, then the project file, else load") {
    util::Environment environment;
    CHECK(choose_launch_policy(std::nullopt, environment, std::nullopt).value() == LaunchPolicy::load);
    CHECK(choose_launch_policy(std::nullopt, environment, std::string("conv")).value() == LaunchPolicy::conv);
    environment.set("CUDNNENV_VERIFY", "none");
    CHECK(choose_launch_policy(std::nullopt, environment, std::string("conv")).value() == LaunchPolicy::none);
    CHECK(choose_launch_policy(std::string("load"), environment, std::string("conv")).value() == LaunchPolicy::load);
    environment.set("CUDNNENV_VERIFY", "always");
    auto bad = choose_launch_policy(std::nullopt, environment, std::nullopt);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message == "CUDNNENV_VERIFY is 'always'");
  }

  TEST_CASE("exec refuses what cmd would re-read, naming the argument; programs are not affected") {
    auto refused = check_batch_arguments("tool.bat", {"ok", "\"&echo INJECTED", "x"});
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message ==
          "argument 2 ('\"&echo INJECTED') for the batch file 'tool.bat' has a double quote, which ends cmd's "
          "quoting: refused");
    CHECK(refused.error().code == ExitCode::usage);
    CHECK(check_batch_arguments("tool.exe", {"\"&echo INJECTED"}));
    CHECK(check_batch_arguments("tool.cmd", {"a&b", "c|d"}));
  }
}

}  // namespace cudnnenv
