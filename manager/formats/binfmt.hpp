// What a binary file is built for: ELF class and machine, PE Machine field.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "formats/platform.hpp"
#include "util/result.hpp"

namespace cudnnenv {

enum class BinaryFormat { none, elf, pe };

struct BinaryInfo {
  BinaryFormat format = BinaryFormat::none;
  Arch arch = Arch::unknown;
  int bits = 0;                  // 32 or 64
  unsigned machine = 0;          // raw e_machine / PE Machine value
  std::string describe() const;  // "ELF 64-bit x86_64", "PE 32-bit x86 (Machine 0x14c)"
};

// Reads the format from the first bytes of a file (`head`: at least the
// first 4 KiB, or the whole file if shorter). A PE whose header lies beyond
// `head` reports format pe with arch unknown. Not a binary: format none.
BinaryInfo identify_binary(std::string_view head);

// The same for a file on disk.
Result<BinaryInfo> identify_binary_file(const std::filesystem::path& path);

// Whether `info` runs on `platform` (the OS follows from the format).
bool matches(const BinaryInfo& info, Platform platform);

// What a shared library asks the loader for.
struct LinkInfo {
  BinaryInfo binary;
  bool dynamic = false;                   // has a dynamic section (ELF PT_DYNAMIC; every PE)
  std::string interpreter;                // ELF PT_INTERP (the dynamic loader), empty for a static program
  std::vector<std::string> needed;        // ELF DT_NEEDED; PE import and delay-import DLL names, in file order
  std::vector<std::string> delay_loaded;  // PE: those of `needed` that are delay imports (loaded at first call)
  std::vector<std::string> rpath;         // ELF DT_RPATH entries, unexpanded ($ORIGIN stays)
  std::vector<std::string> runpath;       // ELF DT_RUNPATH entries
  std::string soname;                     // ELF DT_SONAME: the name the library answers to, whatever its file is called
};

// Reads the dynamic section of a little-endian ELF (32 or 64-bit) or the
// import tables of a PE, seeking through the file rather than reading it
// whole (cuDNN's libraries are hundreds of megabytes). Fails on a file that
// is neither, or whose tables point outside it.
Result<LinkInfo> read_link_info(const std::filesystem::path& path);

// Whether the little-endian ELF file at `path` defines and exports `symbol`
// (a global or weak entry of its dynamic symbol table with a section). Read
// through its section headers, seeking; a table past 64 MiB is not read
// (false). Fails on a file that is not ELF or whose tables point outside it.
// PE: always false (the report names a DLL by its file).
Result<bool> exports_symbol(const std::filesystem::path& path, std::string_view symbol);

}  // namespace cudnnenv
