// The ELF/PE reader: the head of a file (identify_binary), and the dynamic
// section / import tables read by seeking through it (read_link_info), and the
// dynamic symbol table through the section headers (exports_symbol).
#include "formats/binfmt.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view head(reinterpret_cast<const char*>(data), size);
  const auto info = cudnnenv::identify_binary(head);
  (void)info.describe();
  const auto path = cudnnenv::fuzz::scratch_file(data, size, ".bin");
  auto links = cudnnenv::read_link_info(path);
  (void)links;
  auto exported = cudnnenv::exports_symbol(path, "cudnnGetVersion");
  (void)exported;
  return 0;
}
