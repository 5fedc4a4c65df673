#include <doctest/doctest.h>

#include "formats/toml_text.hpp"

namespace cudnnenv {

TEST_SUITE("formats/toml_text") {
  TEST_CASE("toml++ sees only ASCII: values outside ASCII kept exactly, misplaced ones refused at file:line:col") {
    // Found by fuzz_toml: U+FEFB at the start of a document, U+02D4 while toml++ scans ahead
    // in an invalid value; tomlplusplus #190: after a line-ending backslash in a multi-line string.
    const std::string outside = ": a character outside ASCII outside a string or comment";
    for (const auto& [text, expected] :
         {std::pair<std::string, std::string>{"\xEF\xBB\xBB", "1:1" + outside},
          {"a = 1\n  \xC2\xA7 = 2\n", "2:3" + outside},
          {"z=-[.1.2\xCB\x94", "1:3: '-[.1.2\xCB\x94' is not a TOML value"},
          {"k = \"\xFF\"", "1:6: the file is not UTF-8"},
          {"cudnn = \"t91\"\n[\x19"
           "env]\n",
           "2:1: a table header without a key"},
          {"a = \"x\x19\" \"", "1:7: a control character (U+0019)"},
          {"l = [[1,\n }", "2:2: a '}' that closes a '['"},
          {"a = 1\n  [[ &", "2:3: a table header without a key"},
          {"a = 1 # x = 2\n[= 1", "2:1: a table header without a key"},
          {"d = 2026-12-01Tz0:00:00Z", "1:5: '2026-12-01Tz0:00:00Z' is not a TOML value"},
          {"n = [1, 007]", "1:9: '007' is not a TOML value"}}) {
      auto parsed = parse_toml(text, "x.toml", "fix it");
      REQUIRE_FALSE(parsed);
      CHECK(parsed.error().message == "x.toml:" + expected);
    }
    const std::string text =
        "a = \"é\" # é\n"
        "b = 'C:\\Users\\José \"q\"'\n"
        "c = '''中\n文 '' '''\n"
        "d = \"\"\"\\\n  \xC2\xA7\"\"\"\n"
        "e = \"\\\"ü\\\\\"\n"
        "'ключ' = \"\xEF\xBB\xBB\"\n"
        "f = '''x'''''\n"
        "g = [\n  [ { x = 1 } ],\n  [+1],\n]\n"
        "[t]\r\nh = { i = [ { j = 2 } ] }\n"
        "k = [ 1979-05-27 07:32:00Z, 1979-05-27T00:32:00.999-07:00, 07:32:00, 1979-05-27,\n"
        "  0xDEAD_beef, 0o755, 0b1101, +1_000, -3.14e-2, inf, -nan, true, false ] # done\n";
    auto parsed = parse_toml(text, "x.toml", "fix it");
    REQUIRE_MESSAGE(parsed, (parsed ? "" : parsed.error().message));
    CHECK((*parsed)["a"].value<std::string>() == "é");
    CHECK((*parsed)["b"].value<std::string>() == "C:\\Users\\José \"q\"");
    CHECK((*parsed)["c"].value<std::string>() == "中\n文 '' ");
    CHECK((*parsed)["d"].value<std::string>() == "\xC2\xA7");
    CHECK((*parsed)["e"].value<std::string>() == "\"ü\\");
    CHECK((*parsed)["ключ"].value<std::string>() == "\xEF\xBB\xBB");
    CHECK((*parsed)["f"].value<std::string>() == "x''");
    CHECK((*parsed)["g"][0][0]["x"].value<int>() == 1);
    CHECK((*parsed)["t"]["h"]["i"][0]["j"].value<int>() == 2);
    CHECK((*parsed)["t"]["k"].as_array()->size() == 13);
  }
}

}  // namespace cudnnenv
