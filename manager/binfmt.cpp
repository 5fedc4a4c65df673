#include "binfmt.hpp"

#include <cstdint>
#include <cstdio>

#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace {

std::uint16_t read_u16(std::string_view data, std::size_t offset, bool little = true) {
  const auto b0 = static_cast<unsigned char>(data[offset]);
  const auto b1 = static_cast<unsigned char>(data[offset + 1]);
  return static_cast<std::uint16_t>(little ? b0 | (b1 << 8) : (b0 << 8) | b1);
}

std::uint32_t read_u32(std::string_view data, std::size_t offset) {
  return static_cast<std::uint32_t>(read_u16(data, offset)) |
         (static_cast<std::uint32_t>(read_u16(data, offset + 2)) << 16);
}

Arch elf_arch(unsigned machine, bool little_endian) {
  switch (machine) {
    case 3: return Arch::x86;
    case 62: return Arch::x86_64;
    case 183: return Arch::arm64;
    case 40: return Arch::arm;
    case 21: return little_endian ? Arch::ppc64le : Arch::unknown;
    default: return Arch::unknown;
  }
}

Arch pe_arch(unsigned machine) {
  switch (machine) {
    case 0x14c: return Arch::x86;
    case 0x8664: return Arch::x86_64;
    case 0xAA64: return Arch::arm64;
    case 0x1c4: return Arch::arm;
    default: return Arch::unknown;
  }
}

}  // namespace

std::string BinaryInfo::describe() const {
  char machine_text[16];
  std::snprintf(machine_text, sizeof machine_text, "0x%x", machine);
  switch (format) {
    case BinaryFormat::elf:
      return "ELF " + std::to_string(bits) + "-bit " + to_string(arch) +
             (arch == Arch::unknown ? std::string(" (e_machine ") + std::to_string(machine) + ")" : "");
    case BinaryFormat::pe:
      return "PE " + std::to_string(bits) + "-bit " + to_string(arch) + " (Machine " + machine_text + ")";
    case BinaryFormat::none: break;
  }
  return "not a binary";
}

BinaryInfo identify_binary(std::string_view head) {
  BinaryInfo info;
  if (head.size() >= 20 && head.substr(0, 4) == "\x7f" "ELF") {
    const bool little = head[5] == 1;
    info.format = BinaryFormat::elf;
    info.bits = head[4] == 2 ? 64 : 32;
    info.machine = read_u16(head, 18, little);
    info.arch = elf_arch(info.machine, little);
    return info;
  }
  if (head.size() >= 0x40 && head.substr(0, 2) == "MZ") {
    info.format = BinaryFormat::pe;
    const std::uint32_t pe_offset = read_u32(head, 0x3C);
    if (pe_offset + 26 > head.size() || head.substr(pe_offset, 4) != std::string_view("PE\0\0", 4)) {
      return info;
    }
    info.machine = read_u16(head, pe_offset + 4);
    info.arch = pe_arch(info.machine);
    const std::uint16_t optional_size = read_u16(head, pe_offset + 20);
    if (optional_size >= 2 && pe_offset + 26 <= head.size()) {
      info.bits = read_u16(head, pe_offset + 24) == 0x20b ? 64 : 32;
    }
  }
  return info;
}

Result<BinaryInfo> identify_binary_file(const std::filesystem::path& path) {
  util::FilePtr file = util::open_file(path, "rb");
  if (!file) {
    return make_error("cannot read '" + util::to_utf8(path) + "'");
  }
  std::string head(4096, '\0');
  head.resize(std::fread(head.data(), 1, head.size(), file.get()));
  return identify_binary(head);
}

bool matches(const BinaryInfo& info, Platform platform) {
  const BinaryFormat wanted = platform.os == Os::windows ? BinaryFormat::pe : BinaryFormat::elf;
  return info.format == wanted && info.arch == platform.arch;
}

}  // namespace cudnnenv
