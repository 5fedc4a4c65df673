// `exec --why` reads the audit log a watched program's processes wrote: any
// bytes (a program asks for any name, its folders hold any byte) end in a
// report whose every line is printable, never in a crash.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "pin/why.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<cudnnenv::LoadedModule> loaded;
  std::vector<cudnnenv::LoadSearch> searches;
  cudnnenv::parse_audit_log(text, loaded, searches);
  const auto needed = [](const std::string&) { return std::vector<std::string>{"libcublas.so.12"}; };
  for (const auto os : {cudnnenv::Os::linux, cudnnenv::Os::windows}) {
    const auto failures = cudnnenv::find_load_failures("/p/prog", loaded, searches, os, needed);
    for (const unsigned char c : cudnnenv::describe_load_failures(failures)) {
      if ((c < 0x20 && c != '\n') || c == 0x7f) std::abort();
    }
  }
  return 0;
}
