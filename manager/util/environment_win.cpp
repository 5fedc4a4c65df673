#include "util/environment.hpp"
#include "util/win.hpp"

namespace cudnnenv::util {

Environment Environment::current() {
  std::vector<std::pair<std::string, std::string>> variables;
  wchar_t* block = ::GetEnvironmentStringsW();
  for (const wchar_t* entry = block; entry && *entry; entry += std::wcslen(entry) + 1) {
    // Entries such as "=C:=C:\dir" (per-drive current folders) start with '='.
    const wchar_t* equals = std::wcschr(entry + 1, L'=');
    if (equals && entry[0] != L'=') {
      variables.emplace_back(narrow(std::wstring_view(entry, static_cast<std::size_t>(equals - entry))),
                             narrow(equals + 1));
    }
  }
  ::FreeEnvironmentStringsW(block);
  return Environment(std::move(variables));
}

}  // namespace cudnnenv::util

namespace cudnnenv::util {

std::optional<std::string> encode_for_console(std::string_view utf8) {
  const std::wstring wide = widen(utf8);
  if (wide.empty()) {
    return std::string();
  }
  // The console's code page, or the OEM one when there is no console.
  UINT code_page = ::GetConsoleOutputCP();
  if (code_page == 0) code_page = ::GetOEMCP();
  if (code_page == CP_UTF8) {
    return std::string(utf8);
  }
  BOOL lossy = FALSE;
  const int length = ::WideCharToMultiByte(code_page, WC_NO_BEST_FIT_CHARS, wide.c_str(), static_cast<int>(wide.size()),
                                           nullptr, 0, nullptr, &lossy);
  if (length <= 0 || lossy) {
    return std::nullopt;
  }
  std::string encoded(static_cast<std::size_t>(length), '\0');
  ::WideCharToMultiByte(code_page, WC_NO_BEST_FIT_CHARS, wide.c_str(), static_cast<int>(wide.size()), encoded.data(),
                        length, nullptr, &lossy);
  return encoded;
}

}  // namespace cudnnenv::util
