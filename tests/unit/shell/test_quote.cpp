#include <doctest/doctest.h>

#include "shell/quote.hpp"

namespace cudnnenv {

using shell::Shell;

TEST_SUITE("shell/quote") {
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

  TEST_CASE("variable names: only letters, digits and '_', never starting with a digit") {
    for (const char* good : {"A", "_", "TF_CPP_MIN_LOG_LEVEL", "a1", "_9"}) {
      CHECK_MESSAGE(shell::is_valid_variable_name(good), good);
    }
    for (const char* bad : {"", "1A", "A-B", "A B", "X;touch PWNED;#", "A=B", "$(x)", "É", "A\nB"}) {
      CHECK_FALSE_MESSAGE(shell::is_valid_variable_name(bad), bad);
    }
  }
}

}  // namespace cudnnenv
