#include <doctest/doctest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "shell/activation.hpp"
#include "support.hpp"

namespace cudnnenv::shell {

namespace {

// PowerShell's single-quoted string, by the language specification
// (about_Quoting_Rules; the grammar's verbatim-string-literal): it opens
// with one of ' U+2018 U+2019 U+201A U+201B, and inside, any of those
// doubled stands for one; the first one not doubled closes it. Returns the
// value and advances `at` past the closing quote; nothing when unterminated.
bool is_quote(std::string_view text, std::size_t at, std::size_t& length) {
  if (at < text.size() && text[at] == '\'') {
    length = 1;
    return true;
  }
  if (at + 2 < text.size() && static_cast<unsigned char>(text[at]) == 0xE2 &&
      static_cast<unsigned char>(text[at + 1]) == 0x80 && static_cast<unsigned char>(text[at + 2]) >= 0x98 &&
      static_cast<unsigned char>(text[at + 2]) <= 0x9B) {
    length = 3;
    return true;
  }
  return false;
}

std::optional<std::string> read_verbatim(std::string_view text, std::size_t& at) {
  std::size_t length = 0;
  if (!is_quote(text, at, length)) return std::nullopt;
  at += length;
  std::string value;
  while (at < text.size()) {
    if (is_quote(text, at, length)) {
      std::size_t next = 0;
      if (is_quote(text, at + length, next)) {
        value.append(text.substr(at, length));  // a doubled quote is one (of the first kind)
        at += length + next;
        continue;
      }
      at += length;
      return value;
    }
    value += text[at++];
  }
  return std::nullopt;
}

// One line of what render(Shell::powershell, ...) prints, as a statement:
// `$Env:NAME = '<verbatim>'` with nothing after the string, or
// `Remove-Item -ErrorAction SilentlyContinue Env:NAME`.
std::optional<Operation> parse_statement(std::string_view line) {
  const std::string_view set_prefix = "$Env:";
  const std::string_view remove_prefix = "Remove-Item -ErrorAction SilentlyContinue Env:";
  auto name_end = [&](std::size_t from) {
    std::size_t end = from;
    while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_')) ++end;
    return end;
  };
  if (line.substr(0, set_prefix.size()) == set_prefix) {
    const std::size_t end = name_end(set_prefix.size());
    if (line.substr(end, 3) != " = ") return std::nullopt;
    std::size_t at = end + 3;
    auto value = read_verbatim(line, at);
    if (!value || at != line.size()) return std::nullopt;  // anything after the string would run
    return Operation{std::string(line.substr(set_prefix.size(), end - set_prefix.size())), *value};
  }
  if (line.substr(0, remove_prefix.size()) == remove_prefix) {
    const std::size_t end = name_end(remove_prefix.size());
    if (end != line.size()) return std::nullopt;
    return Operation{std::string(line.substr(remove_prefix.size())), std::nullopt};
  }
  return std::nullopt;
}

// The whole script, statement by statement: a single-quoted string may span
// lines (a value with a line break), so lines end only outside strings.
std::vector<Operation> parse_script(const std::string& script) {
  std::vector<Operation> operations;
  std::size_t at = 0;
  while (at < script.size()) {
    std::size_t end = script.find('\n', at);
    // Grow the candidate line until it parses (its string closes) or the script ends.
    std::optional<Operation> statement;
    while (true) {
      const std::size_t stop = end == std::string::npos ? script.size() : end;
      statement = parse_statement(std::string_view(script).substr(at, stop - at));
      if (statement || end == std::string::npos) break;
      end = script.find('\n', end + 1);
    }
    REQUIRE_MESSAGE(statement, "not a statement of the expected forms: " << script.substr(at));
    operations.push_back(*statement);
    at = end == std::string::npos ? script.size() : end + 1;
  }
  return operations;
}

}  // namespace

TEST_SUITE("powershell") {
  TEST_CASE("every value comes back from the parsed script as it went in") {
    const std::vector<std::string> values = {"C:\\Program Files\\NVIDIA\\CUDNN\\v9.1\\bin",
                                             "it's",
                                             "''",
                                             "$Env:PATH; Remove-Item C:\\ -Recurse",
                                             "`n `$(whoami) \"double\"",
                                             "\xE2\x80\x98typographic\xE2\x80\x99 \xE2\x80\x9A\xE2\x80\x9B quotes",
                                             "中文 & | ; ( ) { } @ # %",
                                             "trailing quote'",
                                             ""};
    std::vector<Operation> operations;
    for (std::size_t i = 0; i < values.size(); ++i) {
      operations.push_back({"V" + std::to_string(i), values[i]});
    }
    operations.push_back({"GONE", std::nullopt});
    const std::vector<Operation> parsed = parse_script(render(Shell::powershell, operations));
    REQUIRE(parsed.size() == operations.size());
    for (std::size_t i = 0; i < operations.size(); ++i) {
      CAPTURE(i);
      CHECK(parsed[i].name == operations[i].name);
      CHECK(parsed[i].value == operations[i].value);
    }
  }

  TEST_CASE("property: generated hostile names and values are set exactly, or refused before rendering") {
    // The PowerShell side of the shell property test (tests/e2e/shell_property.sh
    // runs bash, zsh and fish; no PowerShell runs here): every rendered
    // statement parses back, by the language's quoting rules, to exactly the
    // intended name and value, with nothing after the string.
    std::mt19937 random(10);
    const std::vector<std::string> pieces = {"'",
                                             "\"",
                                             "\\",
                                             "$Env:PATH",
                                             "$(Remove-Item C:\\ -Recurse)",
                                             "`",
                                             "`n",
                                             ";",
                                             "&",
                                             "|",
                                             "%PATH%",
                                             "!",
                                             "^",
                                             "(",
                                             ")",
                                             "{",
                                             "}",
                                             "@",
                                             "#",
                                             " ",
                                             "\t",
                                             "\n",
                                             "\r",
                                             "中文",
                                             "é",
                                             "\xE2\x80\x98",
                                             "\xE2\x80\x99",
                                             "\xE2\x80\x9A",
                                             "\xE2\x80\x9B",
                                             "\xE2\x80\x9C",
                                             "''",
                                             "a",
                                             "0",
                                             "\x1b[31m"};
    const std::vector<std::string> bad_names = {"X;calc;#", "A B", "1A", "A-B", "$(calc)", "É", "A=B", "", "Env:X"};
    int checked = 0;
    int refused = 0;
    for (int round = 0; round < 300; ++round) {
      std::vector<Operation> operations;
      for (int k = 0; k < 6; ++k) {
        std::string name = "P_" + std::to_string(round) + "_" + std::to_string(k);
        std::string value;
        for (std::size_t n = random() % 7; n > 0; --n) value += pieces[random() % pieces.size()];
        operations.push_back({name, value});
      }
      if (round % 5 == 4) {
        operations.push_back({bad_names[random() % bad_names.size()], "1"});
      }
      CAPTURE(round);
      if (round % 5 == 4) {
        CHECK(unsafe_value(Shell::powershell, operations));
        ++refused;
        continue;
      }
      REQUIRE_FALSE(unsafe_value(Shell::powershell, operations));
      const std::vector<Operation> parsed = parse_script(render(Shell::powershell, operations));
      REQUIRE(parsed.size() == operations.size());
      for (std::size_t i = 0; i < operations.size(); ++i) {
        CHECK(parsed[i].name == operations[i].name);
        CHECK(parsed[i].value == operations[i].value);
      }
      ++checked;
    }
    CHECK(checked == 240);
    CHECK(refused == 60);
  }

  TEST_CASE("a quote left undoubled would be caught by the tokenizer") {
    // The tokenizer itself: a string closed early leaves text after it.
    CHECK_FALSE(parse_statement("$Env:A = 'it's'"));
    CHECK_FALSE(parse_statement("$Env:A = 'x'; calc"));
    CHECK(parse_statement("$Env:A = 'it''s'")->value == "it's");
  }

  TEST_CASE("an activation as PowerShell, against the golden file reviewed by hand") {
    util::Environment environment;
    environment.set("PATH", "C:\\Windows\\System32;C:\\Users\\O'Brien\\bin");
    Activation activation;
    activation.prepend = {{"PATH", "C:\\libs\\cudnn 8.1 (CUDA 11.2)\\bin"}};
    activation.set = {{"CUDNN_PATH", "C:\\libs\\cudnn 8.1 (CUDA 11.2)"}, {"CUDNNENV_ACTIVE", "cudnn-8.1"}};
    const std::string script = render(Shell::powershell, activate(environment, activation, ';'));
    const std::string golden = test::read_binary(test::golden("activate.ps1"));
    CHECK(script == golden);
  }
}

}  // namespace cudnnenv::shell

#include "shell/init.hpp"

namespace cudnnenv::shell {

TEST_SUITE("powershell") {
  TEST_CASE("init powershell, against the golden file reviewed by hand") {
    const auto script = init_script(Shell::powershell, "C:\\Program Files\\cudnnenv\\cudnnenv.exe",
                                    "C:\\Users\\O'Brien\\libs\\.cudnnenv\\shims");
    REQUIRE(script);
    CHECK(*script == test::read_binary(test::golden("init.ps1")));
  }

  TEST_CASE("completion powershell, against the golden file reviewed by hand") {
    // No PowerShell runs here: the script is what was reviewed, with the
    // program's path quoted as a verbatim string (O'Brien's quote doubled).
    const auto script = completion_script(Shell::powershell, "C:\\Users\\O'Brien\\bin\\cudnnenv.exe");
    REQUIRE(script);
    CHECK(*script == test::read_binary(test::golden("completion.ps1")));
  }
}

}  // namespace cudnnenv::shell
