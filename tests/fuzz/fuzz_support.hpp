// Shared by the fuzz targets: a per-process scratch file, since the readers
// under test take paths (the zip reader, libarchive, the ELF/PE reader seek
// through files rather than buffers).
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include <unistd.h>

namespace cudnnenv::fuzz {

// `data` written to one file of this process (same name each call).
inline std::filesystem::path scratch_file(const std::uint8_t* data, std::size_t size, const char* extension) {
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("cudnnenv-fuzz-" + std::to_string(::getpid()) + extension);
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file) {
    std::fwrite(data, 1, size, file);
    std::fclose(file);
  }
  return path;
}

}  // namespace cudnnenv::fuzz
