#include <doctest/doctest.h>

#include "binfmt.hpp"
#include "support.hpp"

namespace cudnnenv {

using test::fixture;

TEST_SUITE("binfmt") {
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
}

}  // namespace cudnnenv
