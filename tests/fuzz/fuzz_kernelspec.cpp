// Text a cloned workspace or another user's Jupyter folder holds: a
// .vscode/settings.json that `export vscode` merges into, and a kernel.json
// that --remove and doctor read. Any bytes end in a merge or a refusal, never
// a crash; a merge is JSON whose interpreter is the launcher; only a text
// with cudnnenv's mark reads as cudnnenv's. The same bytes as a tree's name
// or a path: the settings written for it read it back exactly; a terminal's
// command line holds it whole between its quotes, or refuses it; the
// fragment's JSON reads it back; a shortcut's file name holds no letter
// Windows refuses.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "integrate/kernelspec.hpp"
#include "integrate/terminal.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const auto os : {cudnnenv::Os::linux, cudnnenv::Os::windows}) {
    auto merged = cudnnenv::merged_vscode_settings(text, "/launchers/t/python", "t", os);
    if (!merged) continue;
    const auto json = cudnnenv::Json::parse(*merged, nullptr, false);
    if (json.is_discarded() || json.value("python.defaultInterpreterPath", "") != "/launchers/t/python") std::abort();
  }
  if (cudnnenv::written_by_cudnnenv(text) && text.find("cudnnenv") == std::string::npos) std::abort();

  const bool utf8 = cudnnenv::util::is_valid_utf8(text);
  if (utf8) {
    auto settings = cudnnenv::merged_vscode_settings("{\"a\": 1}", text, text, cudnnenv::Os::windows);
    if (!settings) std::abort();
    const auto json = cudnnenv::Json::parse(*settings);
    if (json["python.defaultInterpreterPath"] != text ||
        json["terminal.integrated.env.windows"]["CUDNNENV_VERSION"] != text || json["a"] != 1) {
      std::abort();
    }
  }
  for (const auto shell : {cudnnenv::TerminalShell::cmd, cudnnenv::TerminalShell::powershell}) {
    auto arguments = cudnnenv::terminal_arguments(shell, text);
    if (!arguments) continue;
    if (!utf8 || text.find_first_of("%\"") != std::string::npos) std::abort();
    const std::string quoted = shell == cudnnenv::TerminalShell::cmd ? "\"\"" + text + "\"\"" : "\"" + text + "\"";
    if (arguments->size() < quoted.size() ||
        arguments->compare(arguments->size() - quoted.size(), quoted.size(), quoted) != 0) {
      std::abort();
    }
    const auto fragment = cudnnenv::Json::parse(cudnnenv::terminal_fragment_json(text, *arguments));
    if (fragment["profiles"][0]["name"] != text || fragment["profiles"][0]["commandline"] != *arguments) std::abort();
  }
  const std::string file = cudnnenv::shortcut_file_name(text);
  for (const char c : file) {
    if (static_cast<unsigned char>(c) < 0x20 || std::string_view("\\/:*?\"<>|").find(c) != std::string_view::npos) {
      std::abort();
    }
  }
  return 0;
}
