// Text a cloned workspace or another user's Jupyter folder holds: a
// .vscode/settings.json that `export vscode` merges into, and a kernel.json
// that --remove and doctor read. Any bytes end in a merge or a refusal, never
// a crash; a merge is JSON whose interpreter is the launcher; only a text
// with cudnnenv's mark reads as cudnnenv's.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "pin/kernelspec.hpp"
#include "util/json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const auto os : {cudnnenv::Os::linux, cudnnenv::Os::windows}) {
    auto merged = cudnnenv::merged_vscode_settings(text, "/launchers/t/python", "t", os);
    if (!merged) continue;
    const auto json = cudnnenv::Json::parse(*merged, nullptr, false);
    if (json.is_discarded() || json.value("python.defaultInterpreterPath", "") != "/launchers/t/python") std::abort();
  }
  if (cudnnenv::written_by_cudnnenv(text) && text.find("cudnnenv") == std::string::npos) std::abort();
  return 0;
}
