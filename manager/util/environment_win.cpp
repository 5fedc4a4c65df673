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
