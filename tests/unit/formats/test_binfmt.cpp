#include <doctest/doctest.h>

#include <algorithm>

#include "formats/binfmt.hpp"
#include "support.hpp"

namespace cudnnenv {

using test::fixture;

TEST_SUITE("formats/binfmt") {
  TEST_CASE("ELF class and machine of the fake libraries") {
    const auto elf64 = identify_binary_file(fixture("fake-elf64-9.1.0.so"));
    REQUIRE(elf64);
    CHECK(elf64->format == BinaryFormat::elf);
    CHECK(elf64->bits == 64);
    CHECK(elf64->arch == Arch::x86_64);
    CHECK(matches(*elf64, Platform{Os::linux, Arch::x86_64}));
    CHECK_FALSE(matches(*elf64, Platform{Os::windows, Arch::x86_64}));

    const auto elf32 = identify_binary_file(fixture("fake-elf32-9.1.0.so"));
    REQUIRE(elf32);
    CHECK(elf32->bits == 32);
    CHECK(elf32->arch == Arch::x86);
    CHECK_FALSE(matches(*elf32, Platform{Os::linux, Arch::x86_64}));
  }

  TEST_CASE("PE Machine field of 64- and 32-bit DLLs") {
    const auto pe64 = identify_binary_file(fixture("fake-pe64-8.1.0.dll"));
    REQUIRE(pe64);
    CHECK(pe64->format == BinaryFormat::pe);
    CHECK(pe64->machine == 0x8664);
    CHECK(pe64->bits == 64);
    CHECK(matches(*pe64, Platform{Os::windows, Arch::x86_64}));

    const auto pe32 = identify_binary_file(fixture("fake-pe32-8.1.0.dll"));
    REQUIRE(pe32);
    CHECK(pe32->machine == 0x14c);
    CHECK(pe32->bits == 32);
    CHECK(pe32->describe() == "PE 32-bit x86 (Machine 0x14c)");
    CHECK_FALSE(matches(*pe32, Platform{Os::windows, Arch::x86_64}));
  }

  TEST_CASE("text, empty and cut-off files are not binaries of any arch") {
    CHECK(identify_binary("!<arch>\n").format == BinaryFormat::none);
    CHECK(identify_binary("").format == BinaryFormat::none);
    const std::string pe = test::read_binary(fixture("fake-pe64-8.1.0.dll"));
    const auto cut = identify_binary(pe.substr(0, 0x50));
    CHECK(cut.format == BinaryFormat::pe);
    CHECK(cut.arch == Arch::unknown);
  }

  TEST_CASE("the libraries a fake needs, from DT_NEEDED and the PE import table") {
    SUBCASE("ELF") {
      const auto links = read_link_info(fixture("fake-elf64-9.1.0-needs-cublas.so"));
      REQUIRE(links);
      CHECK(links->needed == std::vector<std::string>{"libcublasLt.so.11", "libc.so.6"});
      CHECK(links->runpath.empty());
      const auto plain = read_link_info(fixture("fake-elf64-9.1.0.so"));
      REQUIRE(plain);
      CHECK(plain->needed.empty());  // it calls nothing, so the linker kept no libc
      const auto elf32 = read_link_info(fixture("fake-elf32-9.1.0.so"));
      REQUIRE(elf32);
      CHECK(elf32->binary.bits == 32);
      CHECK(elf32->needed.empty());
    }
    SUBCASE("PE, the names as the linker wrote them") {
      const auto links = read_link_info(fixture("fake-pe64-9.1.0-needs-cublas.dll"));
      REQUIRE(links);
      CHECK(links->binary.machine == 0x8664);
      CHECK(std::find(links->needed.begin(), links->needed.end(), "cublas64_11.dll") != links->needed.end());
      CHECK(std::find(links->needed.begin(), links->needed.end(), "KERNEL32.dll") != links->needed.end());
      const auto pe32 = read_link_info(fixture("fake-pe32-8.1.0.dll"));
      REQUIRE(pe32);
      CHECK(std::find(pe32->needed.begin(), pe32->needed.end(), "cublas64_11.dll") == pe32->needed.end());
      CHECK(std::find(pe32->needed.begin(), pe32->needed.end(), "KERNEL32.dll") != pe32->needed.end());
    }
  }

  TEST_CASE("exports_symbol: a fake cuDNN exports cudnnGetVersion, 64- and 32-bit; a DLL and others say no") {
    for (const char* name : {"fake-elf64-9.1.0.so", "fake-elf32-9.1.0.so", "fake-elf64-9.1.0-needs-cublas.so"}) {
      CAPTURE(name);
      const auto exported = exports_symbol(fixture(name), "cudnnGetVersion");
      REQUIRE(exported);
      CHECK(*exported);
      const auto other = exports_symbol(fixture(name), "cudnnGetVersionX");
      REQUIRE(other);
      CHECK_FALSE(*other);
      // What it imports is not what it exports.
      const auto imported = exports_symbol(fixture(name), "dlopen");
      REQUIRE(imported);
      CHECK_FALSE(*imported);
    }
    const auto dll = exports_symbol(fixture("fake-pe64-8.1.0.dll"), "cudnnGetVersion");
    REQUIRE(dll);
    CHECK_FALSE(*dll);
    test::write_binary("text", "not a library");
    CHECK_FALSE(exports_symbol("text", "cudnnGetVersion"));
    const std::string whole = test::read_binary(fixture("fake-elf64-9.1.0.so"));
    for (std::size_t size : {std::size_t{0}, std::size_t{70}, std::size_t{600}, whole.size() / 2, whole.size() - 64}) {
      CAPTURE(size);
      test::write_binary("cut", whole.substr(0, size));
      const auto cut = exports_symbol("cut", "cudnnGetVersion");  // an error or an answer; never a crash
      CHECK((!cut || !*cut || size > 600));
    }
  }

  TEST_CASE("a cut-off library is an error, not a crash") {
    for (const char* name : {"fake-elf64-9.1.0-needs-cublas.so", "fake-pe64-9.1.0-needs-cublas.dll"}) {
      const std::string whole = test::read_binary(fixture(name));
      for (std::size_t size : {std::size_t{0}, std::size_t{70}, std::size_t{600}}) {
        CAPTURE(size);
        test::write_binary("cut", whole.substr(0, size));
        CHECK_FALSE(read_link_info("cut"));
      }
    }
  }

  TEST_CASE("a real cuDNN 9 sub-library needs the graph library, found through RUNPATH $ORIGIN") {
    const std::filesystem::path ops = "/usr/local/cuda-13.0/lib/libcudnn_ops.so.9";
    std::error_code ec;
    if (!std::filesystem::exists(ops, ec)) {
      MESSAGE("skipped: no real cuDNN 9 at /usr/local/cuda-13.0/lib");
      return;
    }
    const auto links = read_link_info(ops);
    REQUIRE(links);
    CHECK(links->needed.front() == "libcudnn_graph.so.9");
    CHECK(std::find(links->needed.begin(), links->needed.end(), "libz.so.1") != links->needed.end());
    REQUIRE_FALSE(links->runpath.empty());
    CHECK(links->runpath.front() == "$ORIGIN");
  }

  TEST_CASE("an MZ header with e_lfanew 0xFFFFFFFF is a PE of unknown machine, and has no import table") {
    std::string bytes = "MZ";
    bytes.append(0x3A, '\0');
    test::put32(bytes, 0xFFFFFFFF);
    REQUIRE(bytes.size() == 64);
    const BinaryInfo info = identify_binary(bytes);
    CHECK(info.format == BinaryFormat::pe);
    CHECK(info.arch == Arch::unknown);
    test::write_binary("lfanew.dll", bytes);
    auto links = read_link_info("lfanew.dll");
    REQUIRE_FALSE(links);
    CHECK(links.error().message == "'lfanew.dll' has no PE header");
  }
}

}  // namespace cudnnenv
