// doctest's main, with a listener that runs every test case in a fresh
// folder of its own and leaves that folder behind only when the case fails
// (as ccache's test main does).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string_view>
#include <thread>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>

#include "util/win.hpp"
#endif

#include "support.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::test {

namespace {

fs::path g_current;
fs::path g_original;

}  // namespace

fs::path test_dir() {
  return g_current;
}

struct FreshFolder : doctest::IReporter {
  explicit FreshFolder(const doctest::ContextOptions&) {}

  void test_case_start(const doctest::TestCaseData& data) override {
    static std::atomic<int> counter{0};
    std::random_device random;
    g_original = fs::current_path();
    // Spaces and non-ASCII letters in every test's path, on purpose.
    g_current = fs::temp_directory_path() /
                util::path_from_utf8("cudnnenv test 测试-" + std::to_string(util::current_process_id()) + "-" +
                                     std::to_string(++counter) + "-" + std::to_string(random() % 100000));
    fs::create_directories(g_current);
    fs::current_path(g_current);
    m_name = data.m_name;
  }

  void test_case_end(const doctest::CurrentTestCaseStats& stats) override {
    fs::current_path(g_original);
    if (stats.failure_flags == 0) {
      util::remove_tree(g_current);
    } else {
      std::fprintf(stderr, "test data of '%s' kept in %s\n", m_name.c_str(), util::to_utf8(g_current).c_str());
    }
  }

  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}

 private:
  std::string m_name;
};

REGISTER_LISTENER("fresh-folder", 1, FreshFolder);

}  // namespace cudnnenv::test

namespace {

// The test program started again as a child of util/process's test (the
// same on Linux and Windows, where no shell's output is the same twice):
// writes bytes exactly as given, on both streams.
const char* variable(const char* name) {
#ifdef _WIN32
  // The variable in UTF-16, as the parent set it (getenv's would pass through the ANSI code page).
  static std::string value;
  const wchar_t* wide = _wgetenv(cudnnenv::util::widen(name).c_str());
  if (!wide) return nullptr;
  value = cudnnenv::util::narrow(wide);
  return value.c_str();
#else
  return std::getenv(name);
#endif
}

int run_as_child(std::string_view mode, int argc, char** argv) {
#ifdef _WIN32
  _setmode(_fileno(stdout), _O_BINARY);
  _setmode(_fileno(stderr), _O_BINARY);
#endif
  if (mode == "streams") {
    const char* only = variable("ONLY");
    const char* home = variable("HOME");
    std::printf("out\n%s|%s\n", only ? only : "unset", home ? home : "unset");
    std::fprintf(stderr, "err\n");
    return 7;
  }
  if (mode == "args") {  // each argument after the mode, between brackets
    for (int i = 3; i < argc; ++i) std::printf("[%s]", argv[i]);
    return 0;
  }
  if (mode == "cwd") {  // the working folder, as UTF-8
    std::printf("%s", cudnnenv::util::to_utf8(std::filesystem::current_path()).c_str());
    return 0;
  }
  if (mode == "flood") {  // more than a pipe holds, on both at once
    for (int i = 0; i < 3000; ++i) {
      std::fputs("0123456789012345678901234567890123456789\n", stdout);
      std::fputs("0123456789012345678901234567890123456789\n", stderr);
    }
    return 0;
  }
  if (mode == "hang") {
    std::puts("started");
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::seconds(30));
    return 0;
  }
  if (mode == "slow") {  // one line, a second, another, then nothing for long
    std::puts("one");
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    std::puts("two");
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::seconds(30));
    return 0;
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::string_view(argv[1]) == "--as-child") {
    return run_as_child(argv[2], argc, argv);
  }
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}
