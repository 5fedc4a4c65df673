// The security issue's crafted inputs (#10), at the functions that read
// them, natively and under Wine: each ends in an error value, never an
// exception or an abort; and the checks that keep names and arguments from
// becoming code.
#include <doctest/doctest.h>

#include <cstring>
#include <random>

#include "batch_command.hpp"
#include "formats/binfmt.hpp"
#include "formats/toml_text.hpp"
#include "formats/version.hpp"
#include "formats/zip.hpp"
#include "pin/launch.hpp"
#include "select/project.hpp"
#include "shell/activation.hpp"
#include "shell/quote.hpp"
#include "store/extract.hpp"
#include "store/store.hpp"
#include "support.hpp"
#include "util/process.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

void put16(std::string& bytes, std::uint16_t value) {
  bytes += static_cast<char>(value & 0xFF);
  bytes += static_cast<char>(value >> 8);
}
void put32(std::string& bytes, std::uint32_t value) {
  put16(bytes, static_cast<std::uint16_t>(value & 0xFFFF));
  put16(bytes, static_cast<std::uint16_t>(value >> 16));
}
void put64(std::string& bytes, std::uint64_t value) {
  put32(bytes, static_cast<std::uint32_t>(value & 0xFFFFFFFF));
  put32(bytes, static_cast<std::uint32_t>(value >> 32));
}

// A zip whose zip64 end record claims a central directory at `offset` of
// `size` bytes (tests/crafted/make_crafted.py writes the same).
std::string zip64_claiming(std::uint64_t offset, std::uint64_t size) {
  std::string bytes = "PK\3\4";
  bytes.append(26, '\0');
  const std::uint64_t end64_at = bytes.size();
  put32(bytes, 0x06064B50);
  put64(bytes, 44);
  put16(bytes, 45);
  put16(bytes, 45);
  put32(bytes, 0);
  put32(bytes, 0);
  put64(bytes, 1);
  put64(bytes, 1);
  put64(bytes, size);
  put64(bytes, offset);
  put32(bytes, 0x07064B50);
  put32(bytes, 0);
  put64(bytes, end64_at);
  put32(bytes, 1);
  put32(bytes, 0x06054B50);
  put16(bytes, 0);
  put16(bytes, 0);
  put16(bytes, 0xFFFF);
  put16(bytes, 0xFFFF);
  put32(bytes, 0xFFFFFFFF);
  put32(bytes, 0xFFFFFFFF);
  put16(bytes, 0);
  return bytes;
}

std::string zip_error(const std::string& bytes) {
  test::write_binary("crafted.zip", bytes);
  auto reader = ZipReader::open("crafted.zip");
  REQUIRE_FALSE(reader);
  return reader.error().message;
}

// Every central-directory record of the zip at `path` pointed at the first
// entry's local header: eight names, one body.
void overlap_all(const std::string& path) {
  std::string bytes = test::read_binary(path);
  for (std::size_t at = bytes.find("PK\1\2"); at != std::string::npos; at = bytes.find("PK\1\2", at + 4)) {
    std::memset(&bytes[at + 42], 0, 4);
  }
  test::write_binary(path, bytes);
}

}  // namespace

TEST_SUITE("security") {
  TEST_CASE("a zip64 central directory whose offset plus size wraps is refused before anything is allocated") {
    const std::string expected =
        "'crafted.zip' is not a valid zip archive: central directory beyond the end of the file (truncated?)";
    CHECK(zip_error(zip64_claiming(16, ~std::uint64_t{0} - 7)) == expected);
    CHECK(zip_error(zip64_claiming(~std::uint64_t{0} - (std::uint64_t{3} << 30) + 9, std::uint64_t{3} << 30)) ==
          expected);
  }

  TEST_CASE("zip entries that share bytes are refused") {
    test::FileMap files;
    for (const char* name : {"a.dll", "b.dll", "c.dll"}) {
      files[name] = test::Item{std::string(4096, 'x')};
    }
    test::write_zip("overlap.zip", files);
    REQUIRE(ZipReader::open("overlap.zip"));
    overlap_all("overlap.zip");
    auto reader = ZipReader::open("overlap.zip");
    REQUIRE_FALSE(reader);
    CHECK(reader.error().message == "'overlap.zip' is not a safe zip archive: entry 'a.dll' overlaps 'b.dll'");
  }

  TEST_CASE("an MZ header with e_lfanew 0xFFFFFFFF is a PE of unknown machine, and has no import table") {
    std::string bytes = "MZ";
    bytes.append(0x3A, '\0');
    put32(bytes, 0xFFFFFFFF);
    REQUIRE(bytes.size() == 64);
    const BinaryInfo info = identify_binary(bytes);
    CHECK(info.format == BinaryFormat::pe);
    CHECK(info.arch == Arch::unknown);
    test::write_binary("lfanew.dll", bytes);
    auto links = read_link_info("lfanew.dll");
    REQUIRE_FALSE(links);
    CHECK(links.error().message == "'lfanew.dll' has no PE header");
  }

  TEST_CASE("a version header cut after '#define CUDNN_MAJOR ' has no version") {
    CHECK_FALSE(parse_version_header("#define CUDNN_MAJOR "));
    CHECK_FALSE(parse_version_header("#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL "));
    CHECK_FALSE(
        parse_version_header("#define CUDNN_MAJOR 99999999999999\n#define CUDNN_MINOR 1\n"
                             "#define CUDNN_PATCHLEVEL 0\n"));
  }

  TEST_CASE("under 256 MiB the ratio is not enforced: small archives of repetitive files install") {
    CHECK(ExtractLimits{}.ratio_floor == std::uint64_t{256} << 20);
  }

  TEST_CASE("unpacking stops at the ratio and at the total, counted from the bytes written") {
    test::FileMap files;
    files["zeros.bin"] = test::Item{std::string(4 << 20, '\0')};
    test::write_zip("zeros.zip", files);
    auto reader = open_source("zeros.zip", SourceKind::zip);
    REQUIRE(reader);
    fs::create_directories("out");
    ExtractLimits limits;
    limits.source_size = fs::file_size("zeros.zip");
    limits.ratio_floor = 0;
    SUBCASE("ratio") {
      auto extracted = extract(**reader, "out", "zeros.zip", limits);
      REQUIRE_FALSE(extracted);
      CHECK(extracted.error().message == "'zeros.zip' unpacks to more than 50 times its size (" +
                                             util::human_size(limits.source_size) +
                                             "): refused as a decompression bomb");
    }
    SUBCASE("total") {
      limits.max_ratio = 0;
      limits.max_bytes = 1 << 20;
      auto extracted = extract(**reader, "out", "zeros.zip", limits);
      REQUIRE_FALSE(extracted);
      CHECK(extracted.error().message == "'zeros.zip' unpacks to more than 1 MiB, the limit for one tree");
    }
    SUBCASE("within both") {
      limits.max_ratio = 0;
      CHECK(extract(**reader, "out", "zeros.zip", limits));
    }
  }

  TEST_CASE("a './' folder entry is the tree itself, not an error") {
    test::FileMap files;
    files["./"] = test::Item{};
    files["./lib/x.so"] = test::Item{"x"};
    test::write_zip("dot.zip", files);
    auto reader = open_source("dot.zip", SourceKind::zip);
    REQUIRE(reader);
    fs::create_directories("out");
    auto extracted = extract(**reader, "out", "dot.zip");
    REQUIRE_MESSAGE(extracted, (extracted ? std::string() : extracted.error().message));
    CHECK(fs::is_regular_file("out/lib/x.so"));
  }

  TEST_CASE("a remove that lost the race says the tree was already removed") {
    Store store(test::test_dir() / "store");
    fs::create_directories(store.root());
    TreeRecord record;
    record.name = "gone-9.1";
    auto removed = store.remove(record);
    REQUIRE_FALSE(removed);
    CHECK(removed.error().message == "'gone-9.1' was already removed");
    CHECK(removed.error().code == ExitCode::not_found);
  }

  TEST_CASE("names shown on a terminal: controls, C1 and bidi overrides escaped, letters kept") {
    CHECK(util::printable("a\x1b[2Jb\x07") == "a\\x1b[2Jb\\x07");
    CHECK(util::printable("C:\\libs\\中文 é") == "C:\\libs\\中文 é");
    CHECK(util::printable("x\xC2\x9B"
                          "31m") == "x\\u{9b}31m");  // C1 CSI
    CHECK(util::printable("evil\xE2\x80\xAE"
                          "lld.exe") == "evil\\u{202e}lld.exe");  // right-to-left override
    CHECK(util::printable("bad\xFF\xC3") == "bad\\xff\\xc3");
    // Not UTF-8 either: a surrogate, an overlong form, past U+10FFFF (each byte escaped).
    CHECK(util::printable("s\xED\xBF\x9A") == "s\\xed\\xbf\\x9a");
    CHECK(util::printable("o\xE0\x80\xAF") == "o\\xe0\\x80\\xaf");
    CHECK(util::printable("p\xF4\x90\x80\x80") == "p\\xf4\\x90\\x80\\x80");
    CHECK(util::is_valid_utf8("\xF0\x9F\x98\x80\xEF\xBF\xBD\xE0\xA0\x80"));
  }

  TEST_CASE("variable names: only letters, digits and '_', never starting with a digit") {
    for (const char* good : {"A", "_", "TF_CPP_MIN_LOG_LEVEL", "a1", "_9"}) {
      CHECK_MESSAGE(shell::is_valid_variable_name(good), good);
    }
    for (const char* bad : {"", "1A", "A-B", "A B", "X;touch PWNED;#", "A=B", "$(x)", "É", "A\nB"}) {
      CHECK_FALSE_MESSAGE(shell::is_valid_variable_name(bad), bad);
    }
  }

  TEST_CASE("toml++ sees only ASCII: values outside ASCII kept exactly, misplaced ones refused at file:line:col") {
    // Found by fuzz_toml: U+FEFB at the start of a document, U+02D4 while toml++ scans ahead
    // in an invalid value; tomlplusplus #190: after a line-ending backslash in a multi-line string.
    const std::string outside = ": a character outside ASCII outside a string or comment";
    for (const auto& [text, expected] :
         {std::pair<std::string, std::string>{"\xEF\xBB\xBB", "1:1" + outside},
          {"a = 1\n  \xC2\xA7 = 2\n", "2:3" + outside},
          {"z=-[.1.2\xCB\x94", "1:3: '-[.1.2\xCB\x94' is not a TOML value"},
          {"k = \"\xFF\"", "1:6: the file is not UTF-8"},
          {"cudnn = \"t91\"\n[\x19"
           "env]\n",
           "2:1: a table header without a key"},
          {"a = \"x\x19\" \"", "1:7: a control character (U+0019)"},
          {"l = [[1,\n }", "2:2: a '}' that closes a '['"},
          {"a = 1\n  [[ &", "2:3: a table header without a key"},
          {"a = 1 # x = 2\n[= 1", "2:1: a table header without a key"},
          {"d = 2026-12-01Tz0:00:00Z", "1:5: '2026-12-01Tz0:00:00Z' is not a TOML value"},
          {"n = [1, 007]", "1:9: '007' is not a TOML value"}}) {
      auto parsed = parse_toml(text, "x.toml", "fix it");
      REQUIRE_FALSE(parsed);
      CHECK(parsed.error().message == "x.toml:" + expected);
    }
    const std::string text =
        "a = \"é\" # é\n"
        "b = 'C:\\Users\\José \"q\"'\n"
        "c = '''中\n文 '' '''\n"
        "d = \"\"\"\\\n  \xC2\xA7\"\"\"\n"
        "e = \"\\\"ü\\\\\"\n"
        "'ключ' = \"\xEF\xBB\xBB\"\n"
        "f = '''x'''''\n"
        "g = [\n  [ { x = 1 } ],\n  [+1],\n]\n"
        "[t]\r\nh = { i = [ { j = 2 } ] }\n"
        "k = [ 1979-05-27 07:32:00Z, 1979-05-27T00:32:00.999-07:00, 07:32:00, 1979-05-27,\n"
        "  0xDEAD_beef, 0o755, 0b1101, +1_000, -3.14e-2, inf, -nan, true, false ] # done\n";
    auto parsed = parse_toml(text, "x.toml", "fix it");
    REQUIRE_MESSAGE(parsed, (parsed ? "" : parsed.error().message));
    CHECK((*parsed)["a"].value<std::string>() == "é");
    CHECK((*parsed)["b"].value<std::string>() == "C:\\Users\\José \"q\"");
    CHECK((*parsed)["c"].value<std::string>() == "中\n文 '' ");
    CHECK((*parsed)["d"].value<std::string>() == "\xC2\xA7");
    CHECK((*parsed)["e"].value<std::string>() == "\"ü\\");
    CHECK((*parsed)["ключ"].value<std::string>() == "\xEF\xBB\xBB");
    CHECK((*parsed)["f"].value<std::string>() == "x''");
    CHECK((*parsed)["g"][0][0]["x"].value<int>() == 1);
    CHECK((*parsed)["t"]["h"]["i"][0]["j"].value<int>() == 2);
    CHECK((*parsed)["t"]["k"].as_array()->size() == 13);
  }

  TEST_CASE("an [env] key that is not a variable name is an error at file:line:col") {
    auto parsed = parse_project_file("cudnn = \"t91\"\n[env]\n\"X;touch PWNED;#\" = \"1\"\n", "p/.cudnnenv.toml");
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().message == "p/.cudnnenv.toml:3:1: 'X;touch PWNED;#' is not a variable name");
    auto own = parse_project_file("[env]\nCUDNNENV_VERSION = \"8\"\n", "p/.cudnnenv.toml");
    REQUIRE_FALSE(own);
    CHECK(own.error().message == "p/.cudnnenv.toml:2:1: 'CUDNNENV_VERSION' is cudnnenv's own variable");
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

TEST_SUITE("batch_command") {
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

  TEST_CASE("exec refuses what cmd would re-read, naming the argument; programs are not affected") {
    auto refused = check_batch_arguments("tool.bat", {"ok", "\"&echo INJECTED", "x"});
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message ==
          "argument 2 ('\"&echo INJECTED') for the batch file 'tool.bat' has a double quote, which ends cmd's "
          "quoting: refused");
    CHECK(refused.error().code == ExitCode::usage);
    CHECK(check_batch_arguments("tool.exe", {"\"&echo INJECTED"}));
    CHECK(check_batch_arguments("tool.cmd", {"a&b", "c|d"}));
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
