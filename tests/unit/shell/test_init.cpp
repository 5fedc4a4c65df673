// The batch files cudnnenv writes for cmd hold only ASCII (issue 12.1): how a
// path is named in one, and how an activation script spells its values.
#include <doctest/doctest.h>

#include <algorithm>

#include "shell/activation.hpp"
#include "shell/init.hpp"
#include "support.hpp"
#include "util/text.hpp"

namespace cudnnenv::shell {

namespace fs = std::filesystem;

TEST_SUITE("shell/init") {
  TEST_CASE(
      "batch_path_line: the path, a variable and the rest, the file's folder, PATH, the short name, else refused") {
    BatchPathFacts facts;
    facts.folder = util::path_from_utf8("C:/libs é/.cudnnenv/cmd");
    facts.target = util::path_from_utf8("C:/tools/50% off/cudnnenv.exe");
    CHECK(batch_path_line(facts, "_CUDNNENV_EXE").value() ==
          "@set \"_CUDNNENV_EXE=C:\\tools\\50%% off\\cudnnenv.exe\"");

    facts.target = util::path_from_utf8("C:/Users/张三/AppData/Local/cudnnenv/cudnnenv.exe");
    facts.variables = {{"USERPROFILE", "C:\\Users\\张三"}, {"LOCALAPPDATA", "C:\\Users\\张三\\AppData\\Local"}};
    CHECK(batch_path_line(facts, "_CUDNNENV_EXE").value() ==
          "@set \"_CUDNNENV_EXE=%LOCALAPPDATA%\\cudnnenv\\cudnnenv.exe\"");  // the longest value first

    facts.target = util::path_from_utf8("C:/libs é/bin/cudnnenv.exe");
    CHECK(batch_path_line(facts, "_CUDNNENV_EXE").value() == "@set \"_CUDNNENV_EXE=%~dp0..\\..\\bin\\cudnnenv.exe\"");

    facts.target = util::path_from_utf8("D:/工具/cudnnenv.exe");
    facts.on_path = true;
    CHECK(batch_path_line(facts, "_CUDNNENV_EXE").value() ==
          "@for %%p in (cudnnenv.exe) do @set \"_CUDNNENV_EXE=%%~$PATH:p\"\n@if not defined _CUDNNENV_EXE (echo "
          "cudnnenv: error: cudnnenv.exe is not on PATH, where it was when this file was written 1>&2 & exit /b 1)");

    facts.on_path = false;
    facts.short_path = "D:\\5DE5~1\\cudnnenv.exe";
    CHECK(batch_path_line(facts, "_CUDNNENV_EXE").value() == "@set \"_CUDNNENV_EXE=D:\\5DE5~1\\cudnnenv.exe\"");

    facts.short_path = "D:\\工具\\cudnnenv.exe";  // a volume without short names gives the long one back
    auto refused = batch_path_line(facts, "_CUDNNENV_EXE");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message ==
          "'D:\\工具\\cudnnenv.exe' cannot be named in a batch file: cmd reads batch files in the console's code page, "
          "and this path has letters outside ASCII with no ASCII way to it (no variable such as USERPROFILE holds its "
          "folder, it is not on PATH, it has no short name)");
    CHECK(refused.error().hint ==
          "put its folder on PATH, or move it to a folder whose path is ASCII; then run this again");

    facts.target =
        util::path_from_utf8("C:/a!b/cudnnenv.exe");  // '!' is eaten with delayed expansion on: not written as is
    facts.folder = util::path_from_utf8("D:/store");
    facts.short_path = "C:\\AB~1\\cudnnenv.exe";
    CHECK(batch_path_line(facts, "_CUDNNENV_EXE").value() == "@set \"_CUDNNENV_EXE=C:\\AB~1\\cudnnenv.exe\"");
  }

  TEST_CASE("every generated batch file is ASCII") {
    const auto integration = cmd_integration("@set \"_CUDNNENV_EXE=C:\\cudnnenv.exe\"");
    for (const std::string& text :
         {integration.init_bat, integration.cudnnenv_bat, profile_batch("@set \"_CUDNNENV_EXE=C:\\x.exe\"", "activate"),
          profile_batch("@set \"_CUDNNENV_EXE=C:\\x.exe\"", "deactivate")}) {
      CHECK(std::all_of(text.begin(), text.end(), [](unsigned char c) { return c < 0x80; }));
      CHECK(text.find("\r\n") != std::string::npos);
    }
  }

  TEST_CASE("a cmd script spells PATH's entries and the store's folder from the variables it runs with") {
    const std::vector<std::pair<std::string, std::string>> sources = {{"_CUDNNENV_ROOT", "Z:\\libs é"},
                                                                      {"PATH", "C:\\bin 中文;C:\\Windows;D:\\é;x"}};
    const std::vector<Operation> operations = {{"PATH", "Z:\\libs é\\t81\\cuda\\bin;C:\\bin 中文;C:\\Windows;D:\\é;x"},
                                               {"CUDNN_PATH", "Z:\\libs é\\t81\\cuda"},
                                               {"OTHER", "100% ü"}};
    CHECK(render(Shell::cmd, operations, sources) ==
          "@set \"PATH=%_CUDNNENV_ROOT%\\t81\\cuda\\bin;%PATH:~0,9%;C:\\Windows;%PATH:~21,4%;x\"\r\n"
          "@set \"CUDNN_PATH=%_CUDNNENV_ROOT%\\t81\\cuda\"\r\n"
          "@set \"OTHER=100%% ü\"\r\n");  // nothing to spell it from: left to the console's code page
    // After the line that sets PATH, its old entries are gone: not a source.
    const std::vector<Operation> twice = {{"PATH", "x"}, {"KEEP", "C:\\bin 中文"}};
    CHECK(render(Shell::cmd, twice, sources) == "@set \"PATH=x\"\r\n@set \"KEEP=C:\\bin 中文\"\r\n");
    // A value with '!': both branches spell; the delayed one escapes its own '!' and '^'.
    const std::vector<Operation> bang = {{"PATH", "C:\\a!^;C:\\bin 中文"}};
    CHECK(render(Shell::cmd, bang, sources) ==
          "@set \"_CUDNNENV_DX=!\"\r\n@if defined _CUDNNENV_DX (set \"PATH=C:\\a!^;%PATH:~0,9%\") else (set "
          "\"PATH=C:\\a^!^^;%PATH:~0,9%\")\r\n@set \"_CUDNNENV_DX=\"\r\n");
  }

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
