#include "formats/binfmt.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <tuple>

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
    case 3:
      return Arch::x86;
    case 62:
      return Arch::x86_64;
    case 183:
      return Arch::arm64;
    case 40:
      return Arch::arm;
    case 21:
      return little_endian ? Arch::ppc64le : Arch::unknown;
    default:
      return Arch::unknown;
  }
}

Arch pe_arch(unsigned machine) {
  switch (machine) {
    case 0x14c:
      return Arch::x86;
    case 0x8664:
      return Arch::x86_64;
    case 0xAA64:
      return Arch::arm64;
    case 0x1c4:
      return Arch::arm;
    default:
      return Arch::unknown;
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
      if (bits == 0 && machine == 0) return "an MZ file with no PE header where it says one is";  // not a DLL
      return "PE " + std::to_string(bits) + "-bit " + to_string(arch) + " (Machine " + machine_text + ")";
    case BinaryFormat::none:
      break;
  }
  return "not a binary";
}

BinaryInfo identify_binary(std::string_view head) {
  BinaryInfo info;
  if (head.size() >= 20 && head.substr(0, 4) ==
                               "\x7f"
                               "ELF") {
    const bool little = head[5] == 1;
    info.format = BinaryFormat::elf;
    info.bits = head[4] == 2 ? 64 : 32;
    info.machine = read_u16(head, 18, little);
    info.arch = elf_arch(info.machine, little);
    return info;
  }
  if (head.size() >= 0x40 && head.substr(0, 2) == "MZ") {
    info.format = BinaryFormat::pe;
    // 64-bit arithmetic: e_lfanew is the file's claim, up to 0xFFFFFFFF.
    const std::uint64_t pe_offset = read_u32(head, 0x3C);
    if (pe_offset + 26 > head.size() || head.substr(pe_offset, 4) != std::string_view("PE\0\0", 4)) {
      return info;
    }
    info.machine = read_u16(head, pe_offset + 4);
    info.arch = pe_arch(info.machine);
    const std::uint16_t optional_size = read_u16(head, pe_offset + 20);
    if (optional_size >= 2) {
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

namespace {

// Random access to a file, for tables that lie anywhere in it.
class FileReader {
 public:
  explicit FileReader(const std::filesystem::path& path) : m_file(util::open_file(path, "rb")) {
    if (m_file) {
      m_size = util::file_size(m_file.get());
    }
  }
  bool is_open() const { return m_file != nullptr; }
  std::uint64_t size() const { return m_size; }

  // `length` bytes at `offset`, or nothing when they are not all in the file.
  std::optional<std::string> read(std::uint64_t offset, std::size_t length) {
    if (!m_file || offset > m_size || length > m_size - offset || !util::seek_file(m_file.get(), offset)) {
      return std::nullopt;
    }
    std::string data(length, '\0');
    if (std::fread(data.data(), 1, length, m_file.get()) != length) {
      return std::nullopt;
    }
    return data;
  }

  // A NUL-terminated string at `offset` (at most 4 KiB).
  std::optional<std::string> read_string(std::uint64_t offset) {
    auto chunk =
        read(offset, static_cast<std::size_t>(std::min<std::uint64_t>(4096, m_size - std::min(offset, m_size))));
    if (!chunk) {
      return std::nullopt;
    }
    const auto end = chunk->find('\0');
    if (end == std::string::npos) {
      return std::nullopt;
    }
    chunk->resize(end);
    return chunk;
  }

 private:
  util::FilePtr m_file;
  std::uint64_t m_size = 0;
};

std::uint64_t read_u64(std::string_view data, std::size_t offset) {
  return static_cast<std::uint64_t>(read_u32(data, offset)) |
         (static_cast<std::uint64_t>(read_u32(data, offset + 4)) << 32);
}

std::vector<std::string> split_search_path(const std::string& value) {
  std::vector<std::string> entries;
  for (const auto& entry : util::split(value, ':')) {
    if (!entry.empty()) {
      entries.push_back(entry);
    }
  }
  return entries;
}

Result<LinkInfo> read_elf_links(FileReader& file, LinkInfo info, const std::string& name) {
  const bool wide = info.binary.bits == 64;
  auto header = file.read(0, wide ? 64 : 52);
  if (!header || (*header)[5] != 1) {
    return make_error("'" + name + "' is not a little-endian ELF file");
  }
  const std::uint64_t phoff = wide ? read_u64(*header, 32) : read_u32(*header, 28);
  const std::size_t phentsize = read_u16(*header, wide ? 54 : 42);
  const std::size_t phnum = read_u16(*header, wide ? 56 : 44);
  // Real tables are a few kilobytes; a bigger claim is damage, never a reason to allocate.
  constexpr std::size_t k_table_max = 1 << 20;
  auto table = phentsize * phnum <= k_table_max ? file.read(phoff, phentsize * phnum) : std::nullopt;
  if (!table || phentsize < (wide ? 56u : 32u)) {
    return make_error("'" + name + "' has a damaged program header table");
  }
  struct Segment {
    std::uint64_t offset, vaddr, filesz;
  };
  std::vector<Segment> loads;
  std::optional<Segment> dynamic;
  for (std::size_t i = 0; i < phnum; ++i) {
    const std::size_t at = i * phentsize;
    const std::uint32_t type = read_u32(*table, at);
    const Segment segment =
        wide ? Segment{read_u64(*table, at + 8), read_u64(*table, at + 16), read_u64(*table, at + 32)}
             : Segment{read_u32(*table, at + 4), read_u32(*table, at + 8), read_u32(*table, at + 16)};
    if (type == 1) {  // PT_LOAD
      loads.push_back(segment);
    } else if (type == 2) {  // PT_DYNAMIC
      dynamic = segment;
    } else if (type == 3) {  // PT_INTERP
      if (auto text = file.read_string(segment.offset)) {
        info.interpreter = *text;
      }
    }
  }
  if (!dynamic) {
    return info;  // statically linked: needs nothing
  }
  info.dynamic = true;
  auto entries = dynamic->filesz <= k_table_max ? file.read(dynamic->offset, static_cast<std::size_t>(dynamic->filesz))
                                                : std::nullopt;
  if (!entries) {
    return make_error("'" + name + "' has a damaged dynamic section");
  }
  const std::size_t entry_size = wide ? 16 : 8;
  std::optional<std::uint64_t> strtab;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> tagged;  // (tag, string offset)
  for (std::size_t at = 0; at + entry_size <= entries->size(); at += entry_size) {
    const std::uint64_t tag = wide ? read_u64(*entries, at) : read_u32(*entries, at);
    const std::uint64_t value = wide ? read_u64(*entries, at + 8) : read_u32(*entries, at + 4);
    if (tag == 0) {  // DT_NULL
      break;
    }
    if (tag == 5) {  // DT_STRTAB, an address: mapped to a file offset through the PT_LOAD segments
      for (const auto& segment : loads) {
        if (value >= segment.vaddr && value < segment.vaddr + segment.filesz) {
          strtab = segment.offset + (value - segment.vaddr);
        }
      }
    } else if (tag == 1 || tag == 14 || tag == 15 || tag == 29) {  // DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH
      tagged.emplace_back(tag, value);
    }
  }
  if (!strtab && !tagged.empty()) {
    return make_error("'" + name + "' has no string table for its dynamic section");
  }
  for (const auto& [tag, offset] : tagged) {
    auto text = file.read_string(*strtab + offset);
    if (!text) {
      return make_error("'" + name + "' has a damaged dynamic string table");
    }
    if (tag == 1) {
      info.needed.push_back(*text);
    } else if (tag == 14) {
      info.soname = *text;
    } else {
      auto& list = tag == 15 ? info.rpath : info.runpath;
      for (auto& entry : split_search_path(*text)) {
        list.push_back(std::move(entry));
      }
    }
  }
  return info;
}

Result<bool> elf_exports(FileReader& file, bool wide, std::string_view symbol, const std::string& name) {
  auto header = file.read(0, wide ? 64 : 52);
  if (!header || (*header)[5] != 1) {
    return make_error("'" + name + "' is not a little-endian ELF file");
  }
  const std::uint64_t shoff = wide ? read_u64(*header, 40) : read_u32(*header, 32);
  const std::size_t shentsize = read_u16(*header, wide ? 58 : 46);
  const std::size_t shnum = read_u16(*header, wide ? 60 : 48);
  constexpr std::size_t k_table_max = std::size_t{64} << 20;
  if (shnum == 0) return false;  // no section headers (stripped of them): nothing to read here
  auto sections = shentsize * shnum <= (1u << 20) ? file.read(shoff, shentsize * shnum) : std::nullopt;
  if (!sections || shentsize < (wide ? 64u : 40u)) {
    return make_error("'" + name + "' has a damaged section header table");
  }
  struct Section {
    std::uint32_t type = 0, link = 0;
    std::uint64_t offset = 0, size = 0, entsize = 0;
  };
  const auto section = [&](std::size_t index) {
    const std::size_t at = index * shentsize;
    return wide ? Section{read_u32(*sections, at + 4), read_u32(*sections, at + 40), read_u64(*sections, at + 24),
                          read_u64(*sections, at + 32), read_u64(*sections, at + 56)}
                : Section{read_u32(*sections, at + 4), read_u32(*sections, at + 24), read_u32(*sections, at + 16),
                          read_u32(*sections, at + 20), read_u32(*sections, at + 36)};
  };
  for (std::size_t i = 0; i < shnum; ++i) {
    const Section symbols = section(i);
    if (symbols.type != 11) continue;  // SHT_DYNSYM
    const std::size_t entry = wide ? 24 : 16;
    if (symbols.link >= shnum || symbols.entsize != entry) {
      return make_error("'" + name + "' has a damaged dynamic symbol table");
    }
    const Section strings = section(symbols.link);
    if (symbols.size > k_table_max || strings.size > k_table_max) return false;
    auto table = file.read(symbols.offset, static_cast<std::size_t>(symbols.size));
    auto names = file.read(strings.offset, static_cast<std::size_t>(strings.size));
    if (!table || !names) {
      return make_error("'" + name + "' has a dynamic symbol table outside the file");
    }
    for (std::size_t at = 0; at + entry <= table->size(); at += entry) {
      const std::uint32_t name_at = read_u32(*table, at);
      const auto info = static_cast<unsigned char>((*table)[at + (wide ? 4 : 12)]);
      const std::uint16_t shndx = read_u16(*table, at + (wide ? 6 : 14));
      const unsigned binding = info >> 4;
      if (shndx == 0 || (binding != 1 && binding != 2) || name_at >= names->size()) continue;  // GLOBAL, WEAK
      const std::string_view text(names->data() + name_at, names->size() - name_at);
      if (text.substr(0, text.find('\0')) == symbol) return true;
    }
    return false;
  }
  return false;
}

Result<LinkInfo> read_pe_links(FileReader& file, LinkInfo info, const std::string& name) {
  info.dynamic = true;
  auto head = file.read(0, static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), 4096)));
  const std::uint64_t pe_offset = head && head->size() >= 0x40 ? read_u32(*head, 0x3C) : 0;
  auto coff = file.read(pe_offset, 24);
  if (!coff || coff->substr(0, 4) != std::string_view("PE\0\0", 4)) {
    return make_error("'" + name + "' has no PE header");
  }
  const std::size_t sections = read_u16(*coff, 6);
  const std::size_t optional_size = read_u16(*coff, 20);
  auto optional = file.read(pe_offset + 24, optional_size);
  if (!optional || optional_size < 2) {
    return make_error("'" + name + "' has a damaged optional header");
  }
  const bool wide = read_u16(*optional, 0) == 0x20b;
  const std::size_t directories_at = wide ? 112 : 96;
  auto directory = [&](std::size_t index) -> std::pair<std::uint32_t, std::uint32_t> {
    const std::size_t at = directories_at + index * 8;
    return at + 8 <= optional->size() ? std::pair{read_u32(*optional, at), read_u32(*optional, at + 4)}
                                      : std::pair<std::uint32_t, std::uint32_t>{0, 0};
  };
  auto table = file.read(pe_offset + 24 + optional_size, sections * 40);
  if (!table) {
    return make_error("'" + name + "' has a damaged section table");
  }
  // An RVA to a file offset, through the section that holds it.
  auto file_offset = [&](std::uint32_t rva) -> std::optional<std::uint64_t> {
    for (std::size_t i = 0; i < sections; ++i) {
      const std::uint32_t virtual_size = read_u32(*table, i * 40 + 8);
      const std::uint32_t virtual_address = read_u32(*table, i * 40 + 12);
      const std::uint32_t raw_size = read_u32(*table, i * 40 + 16);
      const std::uint32_t raw_pointer = read_u32(*table, i * 40 + 20);
      if (rva >= virtual_address && rva < virtual_address + std::max(virtual_size, raw_size)) {
        return static_cast<std::uint64_t>(raw_pointer) + (rva - virtual_address);
      }
    }
    return std::nullopt;
  };
  // Data directory 1: the import table (20-byte descriptors, Name at +12);
  // 13: delay imports (32-byte descriptors, DllNameRVA at +4). Both end
  // with a zeroed entry.
  for (const auto& [index, size, name_at] : {std::tuple{1u, 20u, 12u}, std::tuple{13u, 32u, 4u}}) {
    const auto [rva, length] = directory(index);
    if (rva == 0) {
      continue;
    }
    auto offset = file_offset(rva);
    if (!offset) {
      return make_error("'" + name + "' has an import table outside its sections");
    }
    for (std::uint64_t at = *offset;; at += size) {
      auto descriptor = file.read(at, size);
      if (!descriptor) {
        return make_error("'" + name + "' has a damaged import table");
      }
      const std::uint32_t name_rva = read_u32(*descriptor, name_at);
      if (name_rva == 0) {
        break;
      }
      auto name_offset = file_offset(name_rva);
      auto text = name_offset ? file.read_string(*name_offset) : std::nullopt;
      if (!text) {
        return make_error("'" + name + "' has a damaged import name");
      }
      info.needed.push_back(*text);
      if (index == 13u) info.delay_loaded.push_back(*text);
    }
  }
  return info;
}

}  // namespace

Result<LinkInfo> read_link_info(const std::filesystem::path& path) {
  const std::string name = util::to_utf8(path.filename());
  FileReader file(path);
  if (!file.is_open()) {
    return make_error("cannot read '" + util::to_utf8(path) + "'");
  }
  auto head = file.read(0, static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), 4096)));
  LinkInfo info;
  info.binary = identify_binary(head.value_or(""));
  switch (info.binary.format) {
    case BinaryFormat::elf:
      return read_elf_links(file, std::move(info), name);
    case BinaryFormat::pe:
      return read_pe_links(file, std::move(info), name);
    case BinaryFormat::none:
      break;
  }
  return make_error("'" + name + "' is not a shared library");
}

Result<bool> exports_symbol(const std::filesystem::path& path, std::string_view symbol) {
  const std::string name = util::to_utf8(path.filename());
  FileReader file(path);
  if (!file.is_open()) {
    return make_error("cannot read '" + util::to_utf8(path) + "'");
  }
  const BinaryInfo binary =
      identify_binary(file.read(0, static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), 4096))).value_or(""));
  switch (binary.format) {
    case BinaryFormat::elf:
      return elf_exports(file, binary.bits == 64, symbol, name);
    case BinaryFormat::pe:
      return false;
    case BinaryFormat::none:
      break;
  }
  return make_error("'" + name + "' is not a shared library");
}

bool matches(const BinaryInfo& info, Platform platform) {
  const BinaryFormat wanted = platform.os == Os::windows ? BinaryFormat::pe : BinaryFormat::elf;
  return info.format == wanted && info.arch == platform.arch;
}

}  // namespace cudnnenv
