#include <doctest/doctest.h>

#include "shell/modulefile.hpp"

namespace cudnnenv::shell {

TEST_SUITE("shell/modulefile") {
  TEST_CASE("modulefile values: Lua strings of any bytes, Tcl words in ASCII") {
    CHECK(lua_quote("/opt/a \"b\" $x [y]\\z") == "\"/opt/a \\\"b\\\" $x [y]\\\\z\"");
    CHECK(lua_quote("a\nb\x1b\xff") == "\"a\\nb\\027\xff\"");
    CHECK(tcl_quote("/opt/a \"b\" $x [y] {z}; \\") == "\"/opt/a \\\"b\\\" \\$x \\[y\\] \\{z\\}\\; \\\\\"");
    CHECK(tcl_quote("\xc3\xa9\n\x1b\xf0\x9f\x98\x80") == "\"\\u00e9\\n\\u001b\\ud83d\\ude00\"");
  }

  TEST_CASE("a modulefile sets what activation sets, in its order, one family at a time") {
    Activation activation;
    activation.prepend = {{"LD_LIBRARY_PATH", "/s/t/lib"}};
    activation.set = {{"CUDNN_PATH", "/s/t"}, {"CUDNNENV_ACTIVE", "t"}};
    const ModuleDescription description{"cudnn", "9.1.0", "NVIDIA cuDNN 9.1.0", "help\ntext"};
    CHECK(render_modulefile(ModuleFormat::lua, description, activation) ==
          "-- written by 'cudnnenv export modulefile'; regenerate it rather than edit it\n"
          "whatis(\"Name: cudnn\")\n"
          "whatis(\"Version: 9.1.0\")\n"
          "whatis(\"Description: NVIDIA cuDNN 9.1.0\")\n"
          "help(\"help\\ntext\")\n"
          "family(\"cudnn\")\n"
          "prepend_path(\"LD_LIBRARY_PATH\", \"/s/t/lib\")\n"
          "setenv(\"CUDNN_PATH\", \"/s/t\")\n"
          "setenv(\"CUDNNENV_ACTIVE\", \"t\")\n");
    CHECK(render_modulefile(ModuleFormat::tcl, description, activation) ==
          "#%Module1.0\n"
          "# written by 'cudnnenv export modulefile'; regenerate it rather than edit it\n"
          "proc ModulesHelp { } {\n    puts stderr \"help\\ntext\"\n}\n"
          "module-whatis \"NVIDIA cuDNN 9.1.0\"\n"
          "conflict \"cudnn\"\n"
          "prepend-path \"LD_LIBRARY_PATH\" \"/s/t/lib\"\n"
          "setenv \"CUDNN_PATH\" \"/s/t\"\n"
          "setenv \"CUDNNENV_ACTIVE\" \"t\"\n");
    CHECK(!modulefile_problem(ModuleFormat::lua, activation));
    activation.set.emplace_back("BAD NAME", "x");
    CHECK(*modulefile_problem(ModuleFormat::lua, activation) == "'BAD NAME' is not a plain variable name");
    activation.set.back() = {"CUDNN_LIB_DIR", "/s/\xff/lib"};
    CHECK(!modulefile_problem(ModuleFormat::lua, activation));
    CHECK(*modulefile_problem(ModuleFormat::tcl, activation) ==
          "the value of CUDNN_LIB_DIR is not UTF-8, which Tcl strings cannot hold (the Lua format can)");
    // A folder with ':' on a path variable (#28, item 3): Lmod would split it into two folders.
    activation.set.back() = {"CUDNN_LIB_DIR", "/s/t/lib"};
    activation.prepend.back() = {"LD_LIBRARY_PATH", "/tmp/a:/home/eve/lib"};
    CHECK(
        *modulefile_problem(ModuleFormat::lua, activation) ==
        "the folder '/tmp/a:/home/eve/lib' that goes on LD_LIBRARY_PATH holds a ':', which splits it into two folders "
        "there");
    CHECK(
        *modulefile_problem(ModuleFormat::tcl, activation) ==
        "the folder '/tmp/a:/home/eve/lib' that goes on LD_LIBRARY_PATH holds a ':', which splits it into two folders "
        "there");
    activation.prepend.back() = {"PATH", "C:\\libs\\t\\bin"};  // a drive letter's ':' is not a separator
    CHECK(!modulefile_problem(ModuleFormat::tcl, activation));
  }
}

}  // namespace cudnnenv::shell
