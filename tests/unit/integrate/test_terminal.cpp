#include <doctest/doctest.h>

#include "integrate/terminal.hpp"
#include "util/json.hpp"

namespace cudnnenv {

TEST_SUITE("integrate/terminal") {
  TEST_CASE("the command line: cmd keeps the script one word; PowerShell runs it and stays") {
    const auto cmd = terminal_arguments(TerminalShell::cmd, "C:\\libs & 库\\.cudnnenv\\terminals\\t (1)\\activate.bat");
    REQUIRE(cmd);
    CHECK(*cmd == "/k \"\"C:\\libs & 库\\.cudnnenv\\terminals\\t (1)\\activate.bat\"\"");
    const auto powershell = terminal_arguments(TerminalShell::powershell, "C:\\libs 'q'\\activate.ps1");
    REQUIRE(powershell);
    CHECK(*powershell == "-NoExit -ExecutionPolicy Bypass -File \"C:\\libs 'q'\\activate.ps1\"");
    CHECK(terminal_program(TerminalShell::cmd) == "%SystemRoot%\\System32\\cmd.exe");
  }

  TEST_CASE("script_in_terminal_arguments reads back the script either shell's arguments run, and nothing else") {
    for (const auto shell : {TerminalShell::cmd, TerminalShell::powershell}) {
      const std::string script = "C:\\Users\\me & you\\terminals\\cudnnenv-tf2.5\\activate.cmd";
      const auto arguments = terminal_arguments(shell, script);
      REQUIRE(arguments);
      CHECK(script_in_terminal_arguments(*arguments) == script);
    }
    CHECK_FALSE(script_in_terminal_arguments("/k echo"));
    CHECK_FALSE(script_in_terminal_arguments("/k \"\"\"\""));
    CHECK_FALSE(script_in_terminal_arguments(""));
  }

  TEST_CASE("a path a command line cannot carry is refused, saying why and what to do") {
    const auto percent = terminal_arguments(TerminalShell::cmd, "C:\\100%\\activate.bat");
    REQUIRE_FALSE(percent);
    CHECK(percent.error().message ==
          "the path 'C:\\100%\\activate.bat' cannot be put on a terminal's command line: it holds a '%', a '\"' or a "
          "control character, which cmd and Windows Terminal would read as part of the command");
    CHECK(percent.error().hint ==
          "give cudnnenv a state folder without it: set CUDNNENV_STATE_DIR (or --root a store whose path has none)");
    CHECK_FALSE(terminal_arguments(TerminalShell::powershell, "C:\\a\"b\\activate.ps1"));
    CHECK_FALSE(terminal_arguments(TerminalShell::cmd, std::string("C:\\a\nb")));
    CHECK_FALSE(terminal_arguments(TerminalShell::cmd, "C:\\\xff"));  // not UTF-8
  }

  TEST_CASE("the fragment: one profile, its name and command line as given, JSON-quoted") {
    const Json fragment =
        Json::parse(terminal_fragment_json("cuDNN 8.2 (cudnnenv '\"x\"' é)", "cmd.exe /k \"\"C:\\a b\\x.bat\"\""));
    CHECK(fragment == Json::parse(R"json({"profiles": [{"name": "cuDNN 8.2 (cudnnenv '\"x\"' é)",
                                                    "commandline": "cmd.exe /k \"\"C:\\a b\\x.bat\"\"",
                                                    "startingDirectory": "%USERPROFILE%"}]})json"));
  }

  TEST_CASE("a shortcut's file name: what Windows refuses becomes '_'") {
    CHECK(shortcut_file_name("cuDNN 8.2.0 (cudnnenv 'tree 8.2')") == "cuDNN 8.2.0 (cudnnenv 'tree 8.2').lnk");
    CHECK(shortcut_file_name("a/b\\c:d*e?f\"g<h>i|j\x01") == "a_b_c_d_e_f_g_h_i_j_.lnk");
    CHECK(shortcut_file_name("trailing. ") == "trailing.lnk");
    CHECK(shortcut_file_name("") == "cudnnenv.lnk");
  }
}

}  // namespace cudnnenv
