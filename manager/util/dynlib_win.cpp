#include "util/dynlib.hpp"
#include "util/text.hpp"
#include "util/win.hpp"

namespace cudnnenv::util {

Result<DynamicLibrary> DynamicLibrary::open(const std::filesystem::path& path) {
  // A full path loads that file only; LOAD_WITH_ALTERED_SEARCH_PATH makes its
  // static imports resolve from its own folder first, as they would beside an
  // application that ships it.
  const UINT previous = ::SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
  HMODULE handle = ::LoadLibraryExW(path.c_str(), nullptr, LOAD_WITH_ALTERED_SEARCH_PATH);
  const DWORD code = ::GetLastError();
  ::SetErrorMode(previous);
  if (!handle) {
    return make_error("cannot load '" + to_utf8(path) + "': " + last_error_message(code));
  }
  DynamicLibrary library;
  library.m_handle = handle;
  return library;
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept : m_handle(other.m_handle) {
  other.m_handle = nullptr;
}

DynamicLibrary::~DynamicLibrary() {
  if (m_handle) {
    ::FreeLibrary(static_cast<HMODULE>(m_handle));
  }
}

void* DynamicLibrary::symbol(const char* name) const {
  return reinterpret_cast<void*>(::GetProcAddress(static_cast<HMODULE>(m_handle), name));
}

std::filesystem::path DynamicLibrary::loaded_path() const {
  std::wstring buffer(32768, L'\0');
  const DWORD length =
      ::GetModuleFileNameW(static_cast<HMODULE>(m_handle), buffer.data(), static_cast<DWORD>(buffer.size()));
  buffer.resize(length);
  return std::filesystem::path(buffer);
}

}  // namespace cudnnenv::util
