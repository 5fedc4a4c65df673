#include <dlfcn.h>
#include <link.h>

#include "util/dynlib.hpp"
#include "util/text.hpp"

namespace cudnnenv::util {

Result<DynamicLibrary> DynamicLibrary::open(const std::filesystem::path& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* reason = ::dlerror();
    return make_error("cannot load '" + to_utf8(path) + "': " + (reason ? reason : "unknown error"));
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
    ::dlclose(m_handle);
  }
}

void* DynamicLibrary::symbol(const char* name) const {
  return ::dlsym(m_handle, name);
}

std::filesystem::path DynamicLibrary::loaded_path() const {
  link_map* map = nullptr;
  if (::dlinfo(m_handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name) {
    return {};
  }
  return std::filesystem::path(map->l_name);
}

}  // namespace cudnnenv::util
