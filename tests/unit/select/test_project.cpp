#include <doctest/doctest.h>

#include "select/project.hpp"

namespace cudnnenv {

TEST_SUITE("select/project") {
  TEST_CASE("an [env] key that is not a variable name is an error at file:line:col") {
    auto parsed = parse_project_file("cudnn = \"t91\"\n[env]\n\"X;touch PWNED;#\" = \"1\"\n", "p/.cudnnenv.toml");
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().message == "p/.cudnnenv.toml:3:1: 'X;touch PWNED;#' is not a variable name");
    auto own = parse_project_file("[env]\nCUDNNENV_VERSION = \"8\"\n", "p/.cudnnenv.toml");
    REQUIRE_FALSE(own);
    CHECK(own.error().message == "p/.cudnnenv.toml:2:1: 'CUDNNENV_VERSION' is cudnnenv's own variable");
  }

  TEST_CASE("editing one key keeps every other line and comment") {
    const auto edit = [](std::string_view text, std::string_view key, std::string_view value) {
      auto edited = set_top_level_string(text, key, value, "p/.cudnnenv.toml");
      REQUIRE(edited);
      return *edited;
    };
    const std::string original = "# project settings\ncuda = \"11.2\"  # toolkit\n\n[env]\nA = \"1\"\n";
    CHECK(edit(original, "cudnn", "8.1") ==
          "# project settings\ncuda = \"11.2\"  # toolkit\ncudnn = \"8.1\"\n\n[env]\nA = \"1\"\n");
    CHECK(edit("cudnn = \"7\"\n[env]\ncudnn = \"x\"\n", "cudnn", "8.1") == "cudnn = \"8.1\"\n[env]\ncudnn = \"x\"\n");
    CHECK(edit("", "default", "9") == "default = \"9\"\n");
    CHECK(toml_quote("C:\\libs\\\"x\"") == "\"C:\\\\libs\\\\\\\"x\\\"\"");
    auto parsed = parse_project_file(edit(original, "cudnn", "a \"quoted\" \\ value"), "x.toml");
    REQUIRE(parsed);
    CHECK(*parsed->cudnn == "a \"quoted\" \\ value");
  }

  TEST_CASE("the editor sees the lines the reader sees: a BOM, CRLF, a multi-line value, a '[' inside a string") {
    const auto edit = [](std::string_view text) {
      auto edited = set_top_level_string(text, "cudnn", "9.1", "p/.cudnnenv.toml");
      REQUIRE(edited);
      return *edited;
    };
    const std::string bom = "\xEF\xBB\xBF";
    SUBCASE("a BOM before a table") {
      CHECK(edit(bom + "[env]\nA = \"1\"\n") == bom + "cudnn = \"9.1\"\n[env]\nA = \"1\"\n");
    }
    SUBCASE("a BOM before the key") {
      CHECK(edit(bom + "cudnn = \"8\"\n[env]\n") == bom + "cudnn = \"9.1\"\n[env]\n");
    }
    SUBCASE("CRLF stays CRLF") {
      CHECK(edit("cuda = \"12\"\r\n\r\n[env]\r\nA = \"1\"\r\n") ==
            "cuda = \"12\"\r\ncudnn = \"9.1\"\r\n\r\n[env]\r\nA = \"1\"\r\n");
      CHECK(edit(bom + "cudnn = \"8\"\r\n[env]\r\n") == bom + "cudnn = \"9.1\"\r\n[env]\r\n");
    }
    SUBCASE("a multi-line value is replaced whole") {
      CHECK(edit("cudnn = \"\"\"\n8\n\"\"\"\n[env]\n") == "cudnn = \"9.1\"\n[env]\n");
    }
    SUBCASE("a line starting with '[' inside a string is no table") {
      CHECK(edit("note = \"\"\"\n[not a table]\n\"\"\"\n[env]\n") ==
            "note = \"\"\"\n[not a table]\n\"\"\"\ncudnn = \"9.1\"\n[env]\n");
    }
    SUBCASE("text that does not parse is the reader's error") {
      auto edited = set_top_level_string("cudnn = \n", "cudnn", "9.1", "p/.cudnnenv.toml");
      REQUIRE_FALSE(edited);
      CHECK(edited.error().message ==
            "p/.cudnnenv.toml:1:9: Error while parsing key-value pair: expected value, saw '\\n'");
    }
  }
}

}  // namespace cudnnenv
