#include <doctest/doctest.h>

#include "util/text.hpp"

namespace cudnnenv {

TEST_SUITE("util/text") {
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

  TEST_CASE("names shown on a terminal: controls, C1 and bidi overrides escaped, letters kept") {
    CHECK(util::printable("a\x1b[2Jb\x07") == "a\\x1b[2Jb\\x07");
    CHECK(util::printable("C:\\libs\\中文 é") == "C:\\libs\\中文 é");
    CHECK(util::printable("x\xC2\x9B"
                          "31m") == "x\\u{9b}31m");  // C1 CSI
    CHECK(util::printable("evil\xE2\x80\xAE"
                          "lld.exe") == "evil\\u{202e}lld.exe");  // right-to-left override
    CHECK(util::printable("bad\xFF\xC3") == "bad\\xff\\xc3");
    // Not UTF-8 either: a surrogate, an overlong form, past U+10FFFF (each byte escaped).
    CHECK(util::printable("s\xED\xBF\x9A") == "s\\xed\\xbf\\x9a");
    CHECK(util::printable("o\xE0\x80\xAF") == "o\\xe0\\x80\\xaf");
    CHECK(util::printable("p\xF4\x90\x80\x80") == "p\\xf4\\x90\\x80\\x80");
    CHECK(util::is_valid_utf8("\xF0\x9F\x98\x80\xEF\xBF\xBD\xE0\xA0\x80"));
  }

  TEST_CASE("plain_for_batch: ASCII a batch file carries bare; what cmd expands or splits on is not") {
    CHECK(util::plain_for_batch("C:\\Users\\ana\\AppData\\Local\\Temp\\cudnnenv-selftest-12-345"));
    CHECK(util::plain_for_batch(""));
    for (const char* text :
         {"100%", "a!b", "a^b", "a&b", "a|b", "a<b", "a>b", "a\"b", "tab\there", "caf\xC3\xA9", "\xE5\xBA\x93"}) {
      CAPTURE(text);
      CHECK_FALSE(util::plain_for_batch(text));
    }
  }
}

}  // namespace cudnnenv
