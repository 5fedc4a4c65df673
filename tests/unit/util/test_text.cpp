#include <doctest/doctest.h>

#include "util/text.hpp"

namespace cudnnenv {

TEST_SUITE("text") {
  TEST_CASE("command_word: a name pasted from a hint is one word and runs nothing") {
    CHECK(util::command_word("9.19.0.56-cuda13", false) == "9.19.0.56-cuda13");
    CHECK(util::command_word("C:\\libs\\t", true) == "C:\\libs\\t");
    CHECK(util::command_word("tree one", false) == "\"tree one\"");
    CHECK(util::command_word("x;touch PWNED", false) == "\"x;touch PWNED\"");
    CHECK(util::command_word("$(id) `id` \"q\" \\", false) == "\"\\$(id) \\`id\\` \\\"q\\\" \\\\\"");
    CHECK(util::command_word("a & b", true) == "\"a & b\"");
    CHECK(util::command_word("esc\x1b[31m", false) == "\"esc\\x1b[31m\"");  // printable
    CHECK(util::command_word("", false) == "\"\"");
  }
}

}  // namespace cudnnenv
