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

TEST_SUITE("shell/activation") {
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

  TEST_CASE("an entry leaves a list with its separator, every other byte kept") {
    CHECK(remove_entry("T:a:b", "T", ':') == "a:b");
    CHECK(remove_entry("a:T:b", "T", ':') == "a:b");
    CHECK(remove_entry("a:b:T", "T", ':') == "a:b");
    CHECK(remove_entry("T", "T", ':') == "");
    CHECK(remove_entry("T:", "T", ':') == "");
    CHECK(remove_entry("a::T::b", "T", ':') == "a:::b");
    CHECK(remove_entry("TT:T:T", "T", ':') == "TT:T");  // the first whole entry only
    CHECK(remove_entry("a:b", "T", ':') == "a:b");
  }

  TEST_CASE("activate, deactivate: the environment as it was, what the user added kept") {
    util::Environment before;
    before.set("PATH", "/usr/bin:/bin");
    before.set("CUDNN_PATH", "old; value = 100%");
    Activation activation;
    activation.prepend = {{"PATH", "/tree/bin"}, {"LD_LIBRARY_PATH", "/tree/lib"}};
    activation.set = {{"CUDNN_PATH", "/tree"}, {"CUDNNENV_ACTIVE", "t"}};
    auto run = [](util::Environment environment, const std::vector<Operation>& operations) {
      for (const auto& operation : operations) {
        if (operation.value) {
          environment.set(operation.name, *operation.value);
        } else {
          environment.unset(operation.name);
        }
      }
      return environment;
    };
    util::Environment active = run(before, activate(before, activation, ':'));
    CHECK(active.get("PATH") == "/tree/bin:/usr/bin:/bin");
    CHECK(active.get("LD_LIBRARY_PATH") == "/tree/lib");
    CHECK(active.get("CUDNN_PATH") == "/tree");

    SUBCASE("undone exactly") {
      const util::Environment after = run(active, deactivate(active, ':'));
      CHECK(after.variables() == before.variables());
    }
    SUBCASE("the user's own additions stay") {
      active.set("PATH", "/mine:" + *active.get("PATH"));
      const util::Environment after = run(active, deactivate(active, ':'));
      CHECK(after.get("PATH") == "/mine:/usr/bin:/bin");
      CHECK_FALSE(after.get("LD_LIBRARY_PATH"));
      CHECK(after.get("CUDNN_PATH") == "old; value = 100%");
    }
    SUBCASE("activating again replaces, it does not pile up") {
      util::Environment again = active;
      for (int i = 0; i < 5; ++i) again = run(again, activate(again, activation, ':'));
      CHECK(again.get("PATH") == "/tree/bin:/usr/bin:/bin");
      const util::Environment after = run(again, deactivate(again, ':'));
      CHECK(after.variables() == before.variables());
    }
  }

  TEST_CASE("cmd: '!' set right with delayed expansion on or off; quotes and line breaks refused") {
    const std::vector<Operation> operations = {{"A", std::string("x!y^z%")}, {"B", std::nullopt}};
    CHECK(render(Shell::cmd, operations) ==
          "@set \"_CUDNNENV_DX=!\"\r\n"
          "@if defined _CUDNNENV_DX (set \"A=x!y^z%%\") else (set \"A=x^!y^^z%%\")\r\n"
          "@set \"B=\"\r\n"
          "@set \"_CUDNNENV_DX=\"\r\n");
    CHECK(render(Shell::cmd, {{"A", std::string("a^b")}}) == "@set \"A=a^b\"\r\n");  // no '!': carets are literal
    CHECK(unsafe_value(Shell::cmd, {{"A", std::string("a\"b")}}).has_value());
    CHECK(unsafe_value(Shell::cmd, {{"A", std::string("a\nb")}}).has_value());
    CHECK_FALSE(unsafe_value(Shell::bash, {{"A", std::string("a\"b\nc")}}).has_value());
    CHECK(render(Shell::powershell, {{"A", std::string("it's")}, {"B", std::nullopt}}) ==
          "$Env:A = 'it''s'\nRemove-Item -ErrorAction SilentlyContinue Env:B\n");
    CHECK(render(Shell::fish, {{"A", std::string("a'b\\c")}, {"B", std::nullopt}}) ==
          "set -gx A 'a\\'b\\\\c'\nset -e B\n");
  }

  TEST_CASE("no script is rendered with a name that is not a variable name, whatever the state holds") {
    util::Environment environment;
    environment.set(shell::k_state_variable, "1;SX;touch PWNED=%zz;UY$(id)");
    const auto operations = shell::deactivate(environment, ':');
    for (auto each :
         {shell::Shell::bash, shell::Shell::zsh, shell::Shell::fish, shell::Shell::powershell, shell::Shell::cmd}) {
      CHECK(shell::unsafe_value(each, operations) ==
            "'Y$(id)' is not a variable name (letters, digits and '_', not starting with a digit)");
    }
    util::Environment odd;
    odd.set(shell::k_state_variable, "1;SFOO=%zz%4");
    const auto restored = shell::deactivate(odd, ':');
    REQUIRE(restored.size() == 2);
    CHECK(restored[0].value == "%zz%4");  // not hex: kept as it was, no exception
  }
}

}  // namespace cudnnenv::shell
