#include <doctest/doctest.h>

#include <chrono>

#include "support.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"
#include "util/text.hpp"

namespace cudnnenv::util {

namespace {

// This test program started again, in one of test_main.cpp's child modes.
ProcessSpec child(const std::string& mode) {
  ProcessSpec spec;
  spec.program = current_executable();
  spec.arguments = {"--as-child", mode};
  spec.timeout = std::chrono::seconds(60);
  return spec;
}

}  // namespace

TEST_SUITE("util/process") {
  TEST_CASE("both streams read whole, the exit code, and only the environment given") {
    ProcessSpec spec = child("streams");
    spec.environment.set("ONLY", "a \"b\" é 中\\");
    auto outcome = run_process(spec);
    REQUIRE_MESSAGE(outcome, (outcome ? std::string() : outcome.error().message));
    CHECK(outcome->out == "out\na \"b\" é 中\\|unset\n");
    CHECK(outcome->err == "err\n");
    CHECK(outcome->exit_code == 7);
    CHECK(outcome->signal == 0);
    CHECK_FALSE(outcome->timed_out);
  }

  TEST_CASE("arguments reach the child exactly, quotes and backslashes too") {
    // ASCII only: a Windows main() reads its arguments through the ANSI code page.
    ProcessSpec spec = child("args");
    spec.arguments.insert(spec.arguments.end(), {"C:\\dir with space\\", "a\"b", "", "\\\\\"", "x\ty", "&|%!^"});
    auto outcome = run_process(spec);
    REQUIRE_MESSAGE(outcome, (outcome ? std::string() : outcome.error().message));
    CHECK(outcome->out == "[C:\\dir with space\\][a\"b][][\\\\\"][x\ty][&|%!^]");
    CHECK(outcome->exit_code == 0);
  }

  TEST_CASE("more output than a pipe holds, on both streams at once") {
    auto outcome = run_process(child("flood"));
    REQUIRE_MESSAGE(outcome, (outcome ? std::string() : outcome.error().message));
    CHECK(outcome->out.size() == 3000 * 41);
    CHECK(outcome->err.size() == 3000 * 41);
    CHECK(outcome->exit_code == 0);
  }

  TEST_CASE("a child past its time is ended and says so, with what it wrote before") {
    ProcessSpec spec = child("hang");
    spec.timeout = std::chrono::milliseconds(1500);
    const auto began = std::chrono::steady_clock::now();
    auto outcome = run_process(spec);
    REQUIRE_MESSAGE(outcome, (outcome ? std::string() : outcome.error().message));
    CHECK(outcome->timed_out);
    CHECK(outcome->out == "started\n");
    CHECK(outcome->exit_code == -1);
    CHECK(std::chrono::steady_clock::now() - began < std::chrono::seconds(15));
  }

  TEST_CASE("a stream's reader can stop the child; what came before it was read") {
    ProcessSpec spec = child("slow");
    std::string seen;
    spec.on_out = [&](std::string_view data) {
      seen += data;
      return seen.find("two") == std::string::npos;
    };
    const auto began = std::chrono::steady_clock::now();
    auto outcome = run_process(spec);
    REQUIRE_MESSAGE(outcome, (outcome ? std::string() : outcome.error().message));
    CHECK(outcome->stopped);
    CHECK_FALSE(outcome->timed_out);
    CHECK(seen == "one\ntwo\n");
    CHECK(outcome->out.empty());
    CHECK(std::chrono::steady_clock::now() - began < std::chrono::seconds(15));
  }

  TEST_CASE("the child starts in the working folder given, or in this one") {
    const auto folder = test::test_dir() / path_from_utf8("working 库 &");
    std::filesystem::create_directories(folder);
    ProcessSpec spec = child("cwd");
    spec.working_folder = folder;
    auto outcome = run_process(spec);
    REQUIRE_MESSAGE(outcome, (outcome ? std::string() : outcome.error().message));
    CHECK(path_from_utf8(outcome->out) == folder);
    CHECK(outcome->exit_code == 0);
    outcome = run_process(child("cwd"));
    REQUIRE(outcome);
    CHECK(path_from_utf8(outcome->out) == std::filesystem::current_path());
    spec.working_folder = folder / "gone";
    outcome = run_process(spec);
    CHECK_FALSE(outcome);
  }

  TEST_CASE("a program that is not there is an error naming it") {
    ProcessSpec spec;
    spec.program = path_from_utf8("nonexistent") / "cudnnenv-probe";
    auto outcome = run_process(spec);
    REQUIRE_FALSE(outcome);
    CHECK(outcome.error().message.rfind("cannot start '" + to_utf8(spec.program) + "': ", 0) == 0);
  }
}

}  // namespace cudnnenv::util
