#include <doctest/doctest.h>

#include <random>
#include <regex>

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

  TEST_CASE("is_toml_scalar is exactly its regular expression, on written and on generated tokens") {
    const std::regex oracle(
        "true|false|[+-]?(inf|nan)|[+-]?(0|[1-9](_?[0-9])*)(\\.[0-9](_?[0-9])*)?([eE][+-]?[0-9](_?[0-9])*)?|"
        "0x[0-9A-Fa-f](_?[0-9A-Fa-f])*|0o[0-7](_?[0-7])*|0b[01](_?[01])*|"
        "[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})?)?|"
        "[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?");
    const auto agree = [&](const std::string& token) {
      CAPTURE(token);
      CHECK(is_toml_scalar(token) == std::regex_match(token, oracle));
    };
    for (const char* token : {"true",
                              "false",
                              "True",
                              "inf",
                              "-inf",
                              "+nan",
                              "nanx",
                              "0",
                              "-0",
                              "00",
                              "007",
                              "1_000",
                              "1__0",
                              "1_",
                              "_1",
                              "3.14",
                              "3.",
                              ".5",
                              "1e5",
                              "1E+5",
                              "1e",
                              "1e_5",
                              "-3.14e-2",
                              "0x",
                              "0xDEAD_beef",
                              "0x_1",
                              "0o755",
                              "0o8",
                              "0b1101",
                              "0b2",
                              "+0x1",
                              "1979-05-27",
                              "1979-05-27T07:32:00Z",
                              "1979-05-27 07:32:00",
                              "1979-05-27t00:32:00.999-07:00",
                              "1979-05-27T07:32:00.Z",
                              "1979-05-27T7:32:00",
                              "2026-12-01Tz0:00:00Z",
                              "07:32:00",
                              "07:32:00.5",
                              "07:32",
                              "07:32:00Z",
                              "",
                              "+",
                              "-",
                              "e",
                              "x"}) {
      agree(token);
    }
    // Random tokens from the characters the forms use, and mutations of valid ones.
    std::mt19937 random(20261202);
    const std::string alphabet = "0123456789_+-.eExXoObBaAfFtTzZ: inl";
    const std::vector<std::string> valid = {"1_000",      "3.14e-2", "0xDEAD_beef",
                                            "0o755",      "0b1101",  "1979-05-27T07:32:00.999-07:00",
                                            "07:32:00.5", "-inf",    "1979-05-27"};
    int scalars = 0;
    for (int round = 0; round < 100000; ++round) {
      std::string token;
      if (round % 2 == 0) {
        const std::size_t length = random() % 12;
        for (std::size_t i = 0; i < length; ++i) token += alphabet[random() % alphabet.size()];
      } else {
        token = valid[random() % valid.size()];
        const int edits = 1 + static_cast<int>(random() % 2);
        for (int e = 0; e < edits && !token.empty(); ++e) {
          const std::size_t at = random() % token.size();
          const char c = alphabet[random() % alphabet.size()];
          switch (random() % 3) {
            case 0:
              token[at] = c;
              break;
            case 1:
              token.insert(token.begin() + static_cast<std::ptrdiff_t>(at), c);
              break;
            default:
              token.erase(at, 1);
              break;
          }
        }
      }
      const bool matched = std::regex_match(token, oracle);
      scalars += matched ? 1 : 0;
      if (is_toml_scalar(token) != matched) agree(token);  // CHECK only a disagreement
    }
    CHECK(scalars > 10000);  // both kinds well represented
    CHECK(scalars < 90000);
  }
}

}  // namespace cudnnenv
