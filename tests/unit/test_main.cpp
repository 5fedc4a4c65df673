// doctest's main, with a listener that runs every test case in a fresh
// folder of its own and leaves that folder behind only when the case fails
// (as ccache's test main does).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <random>

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

int main(int argc, char** argv) {
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}
