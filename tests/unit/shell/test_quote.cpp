#include <doctest/doctest.h>

#include "shell/quote.hpp"

namespace cudnnenv {

using shell::Shell;

TEST_SUITE("shell_quote") {
  TEST_CASE("each shell's own quoting, for hostile values") {
    const std::string hostile = "a b'c\"d$e`f\\g%h!i;j&k 中文";
    CHECK(shell::quote(Shell::bash, hostile) == "'a b'\\''c\"d$e`f\\g%h!i;j&k 中文'");
    CHECK(shell::quote(Shell::fish, hostile) == "'a b\\'c\"d$e`f\\\\g%h!i;j&k 中文'");
    CHECK(shell::quote(Shell::powershell, hostile) == "'a b''c\"d$e`f\\g%h!i;j&k 中文'");
    CHECK(shell::quote(Shell::powershell, "x\xE2\x80\x99y") == "'x\xE2\x80\x99\xE2\x80\x99y'");  // U+2019 doubled
    CHECK(shell::set_variable(Shell::cmd, "V", "50%") == "set \"V=50%%\"");
    CHECK(shell::set_variable(Shell::fish, "V", "x") == "set -gx V 'x'");
    CHECK(shell::set_variable(Shell::powershell, "V", "x") == "$Env:V = 'x'");
  }
}

}  // namespace cudnnenv

#include "shell/activation.hpp"

namespace cudnnenv::shell {

TEST_SUITE("activation") {
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
}

}  // namespace cudnnenv::shell

#include "shell/init.hpp"

namespace cudnnenv::shell {

TEST_SUITE("activation") {
  TEST_CASE("cmd's AutoRun as a list: ours added once, at the end; removed with its own separator") {
    const std::string ours =
        "if exist \"C:\\libs\\.cudnnenv\\cmd\\init.bat\" call \"C:\\libs\\.cudnnenv\\cmd\\init.bat\"";
    CHECK(autorun_with("", ours) == ours);
    CHECK(autorun_with("echo a & echo b", ours) == "echo a & echo b & " + ours);
    CHECK(autorun_with("echo a & " + ours, ours) == "echo a & " + ours);
    CHECK(autorun_without("echo a & " + ours, ours) == "echo a");
    CHECK(autorun_without(ours + " & echo b", ours) == "echo b");
    CHECK(autorun_without("echo a & " + ours + " & echo b", ours) == "echo a & echo b");
    CHECK(autorun_without(ours, ours) == "");
    CHECK(autorun_without("echo a", ours) == "echo a");
  }
}

}  // namespace cudnnenv::shell
