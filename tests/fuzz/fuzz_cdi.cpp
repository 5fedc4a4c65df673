// CDI spec files as doctor reads them (integrate/cdi's read_cdi_spec): any
// vendor's file in /etc/cdi or /var/run/cdi, JSON or not. Beyond not
// crashing or throwing: a spec read back is of cudnnenv's kind, and each
// tree entry has a name.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "integrate/cdi.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto records = cudnnenv::read_cdi_spec(text);
  if (!records) return 0;
  if (!records->empty() && text.find("cudnnenv.dev/cudnn") == std::string_view::npos) std::abort();
  for (const auto& record : *records) {
    for (const auto& [name, installed_at] : record.trees) {
      if (name.find(',') != std::string::npos) std::abort();
    }
  }
  return 0;
}
