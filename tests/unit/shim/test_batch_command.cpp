#include <doctest/doctest.h>

#include <random>

#include "batch_command.hpp"
#include "util/process.hpp"

namespace cudnnenv {

TEST_SUITE("shim/batch_command") {
  TEST_CASE("a batch file's arguments: quoted for cmd, or refused with the reason") {
    CHECK(shim::is_batch_file(std::string_view("C:\\tools\\Tool.BAT")));
    CHECK(shim::is_batch_file(std::string_view("x.cmd")));
    CHECK_FALSE(shim::is_batch_file(std::string_view("x.exe")));
    CHECK_FALSE(shim::is_batch_file(std::string_view("bat")));
    // Windows drops trailing dots and spaces from a file name: these open x.bat (CVE-2024-43402).
    CHECK(shim::is_batch_file(std::string_view("C:\\tools\\x.bat.")));
    CHECK(shim::is_batch_file(std::string_view("x.cmd ")));
    CHECK(shim::is_batch_file(std::string_view("x.BAT. . ")));
    CHECK_FALSE(shim::is_batch_file(std::string_view("x.bat.exe")));
    CHECK_FALSE(shim::is_batch_file(std::string_view(". .")));
    CHECK(shim::batch_command_line(std::string_view("C:\\t\\tool.bat"),
                                   std::vector<std::string>{"a&b", "(x) | y ^ <z>", ""}) ==
          "cmd.exe /d /s /c \"\"C:\\t\\tool.bat\" \"a&b\" \"(x) | y ^ <z>\" \"\"\"");
    CHECK(std::string(shim::batch_argument_problem(std::string_view("\"&echo INJECTED"))) ==
          "a double quote, which ends cmd's quoting");
    CHECK(std::string(shim::batch_argument_problem(std::string_view("%PATH%"))) ==
          "a '%', which cmd expands as a variable even inside quotes");
    CHECK(shim::batch_argument_problem(std::string_view("plain & safe")) == nullptr);
  }

  TEST_CASE("the C runtime's splitting, as the shim reads a command line back") {
    using Words = std::vector<std::string>;
    CHECK(shim::split_command_line(std::string_view("a \"b c\" d")) == Words{"a", "b c", "d"});
    CHECK(shim::split_command_line(std::string_view("\"\\\"&echo INJECTED\" x")) == Words{"\"&echo INJECTED", "x"});
    CHECK(shim::split_command_line(std::string_view("a\\\\\\\"b c\\\\")) == Words{"a\\\"b", "c\\\\"});
    CHECK(shim::split_command_line(std::string_view("\"\" \"a\"\"b\"")) == Words{"", "a\"b"});
    CHECK(shim::split_command_line(std::string_view("  ")).empty());
  }

  TEST_CASE("property: whatever the C runtime quoting makes of random arguments, splitting gives them back") {
    std::mt19937 random(10);
    const std::vector<std::string> pieces = {"a", "b", " ", "\t", "\"", "\\", "&", "|", "%", "!",
                                             "^", "(", ")", "<",  ">",  ";",  ",", "=", "中"};
    for (int round = 0; round < 500; ++round) {
      std::vector<std::string> words(random() % 4 + 1);
      std::string line;
      for (auto& word : words) {
        const std::size_t length = random() % 8;
        for (std::size_t i = 0; i < length; ++i) {
          word += pieces[random() % pieces.size()];
        }
        line += (line.empty() ? "" : " ") + util::quote_windows_argument(word);
      }
      CAPTURE(line);
      CHECK(shim::split_command_line(std::string_view(line)) == words);
    }
  }
}

}  // namespace cudnnenv
