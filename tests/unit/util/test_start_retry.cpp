#include <doctest/doctest.h>

#include <vector>

#include "util/start_retry.hpp"

namespace cudnnenv::util {

namespace {

// Attempts that fail with the given codes in turn (0: started); what ran, in order.
struct Script {
  std::vector<unsigned long> results;
  std::vector<const char*> calls;

  unsigned long run() {
    auto outcome = start_with_retry(
        [&] {
          calls.push_back("start");
          const unsigned long result = results.front();
          results.erase(results.begin());
          return result;
        },
        [&] { calls.push_back("pause"); });
    return outcome;
  }
};

}  // namespace

TEST_SUITE("util/start_retry") {
  TEST_CASE("ERROR_INTERNAL_ERROR once: a pause and a second start, which counts") {
    Script script{{1359, 0}, {}};
    CHECK(script.run() == 0);
    CHECK(script.calls == std::vector<const char*>{"start", "pause", "start"});
  }

  TEST_CASE("ERROR_INTERNAL_ERROR twice: the second error is the answer, no third start") {
    Script script{{1359, 1359, 0}, {}};
    CHECK(script.run() == 1359);
    CHECK(script.calls == std::vector<const char*>{"start", "pause", "start"});
  }

  TEST_CASE("a start that works, or any other error, is not tried again") {
    Script started{{0}, {}};
    CHECK(started.run() == 0);
    CHECK(started.calls == std::vector<const char*>{"start"});
    Script missing{{2, 0}, {}};  // ERROR_FILE_NOT_FOUND
    CHECK(missing.run() == 2);
    CHECK(missing.calls == std::vector<const char*>{"start"});
    Script after_retry{{1359, 5}, {}};  // then ERROR_ACCESS_DENIED: said as it is
    CHECK(after_retry.run() == 5);
    CHECK(after_retry.calls == std::vector<const char*>{"start", "pause", "start"});
  }
}

}  // namespace cudnnenv::util
