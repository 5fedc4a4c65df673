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
    const std::string original = "# project settings\ncuda = \"11.2\"  # toolkit\n\n[env]\nA = \"1\"\n";
    CHECK(set_top_level_string(original, "cudnn", "8.1") ==
          "# project settings\ncuda = \"11.2\"  # toolkit\ncudnn = \"8.1\"\n\n[env]\nA = \"1\"\n");
    CHECK(set_top_level_string("cudnn = \"7\"\n[env]\ncudnn = \"x\"\n", "cudnn", "8.1") ==
          "cudnn = \"8.1\"\n[env]\ncudnn = \"x\"\n");
    CHECK(set_top_level_string("", "default", "9") == "default = \"9\"\n");
    CHECK(toml_quote("C:\\libs\\\"x\"") == "\"C:\\\\libs\\\\\\\"x\\\"\"");
    auto parsed = parse_project_file(set_top_level_string(original, "cudnn", "a \"quoted\" \\ value"), "x.toml");
    REQUIRE(parsed);
    CHECK(*parsed->cudnn == "a \"quoted\" \\ value");
  }
}

}  // namespace cudnnenv
