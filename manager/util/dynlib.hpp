// Loading a shared library by absolute path at run time (dlopen /
// LoadLibraryExW). Knows nothing about cuDNN.
#pragma once

#include <filesystem>
#include <string>

#include "util/result.hpp"

namespace cudnnenv::util {

class DynamicLibrary {
 public:
  // Loads `path` exactly (never a same-named copy found by search). Its own
  // dependencies are searched from its folder first on Windows
  // (LOAD_WITH_ALTERED_SEARCH_PATH), by the usual rules on POSIX.
  static Result<DynamicLibrary> open(const std::filesystem::path& path);

  DynamicLibrary(DynamicLibrary&& other) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&&) = delete;
  ~DynamicLibrary();

  // Address of `name`, or nullptr.
  void* symbol(const char* name) const;

  // The file the loader really mapped.
  std::filesystem::path loaded_path() const;

 private:
  DynamicLibrary() = default;
  void* m_handle = nullptr;
};

}  // namespace cudnnenv::util
