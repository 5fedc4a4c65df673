#include <windows.h>

#include <stdio.h>

#include "launch_key.hpp"

namespace cudnnenv::shim {

namespace {

bool to_wide(const char* text, wchar_t* out, int out_size) {
  return ::MultiByteToWideChar(CP_UTF8, 0, text, -1, out, out_size) > 0;
}

bool to_utf8(const wchar_t* text, char* out, size_t out_size) {
  return ::WideCharToMultiByte(CP_UTF8, 0, text, -1, out, static_cast<int>(out_size), nullptr, nullptr) > 0;
}

}  // namespace

bool file_identity(const char* path, char* out, size_t out_size) {
  static wchar_t wide[k_path_max];
  WIN32_FILE_ATTRIBUTE_DATA data;
  if (!to_wide(path, wide, k_path_max) || !::GetFileAttributesExW(wide, GetFileExInfoStandard, &data)) {
    return false;
  }
  const unsigned long long size = (static_cast<unsigned long long>(data.nFileSizeHigh) << 32) | data.nFileSizeLow;
  const unsigned long long time =
      (static_cast<unsigned long long>(data.ftLastWriteTime.dwHighDateTime) << 32) | data.ftLastWriteTime.dwLowDateTime;
  return TextBuffer(out, out_size).add_number(size).add(':').add_number(time).ok();
}

bool is_regular_file(const char* path) {
  static wchar_t wide[k_path_max];
  if (!to_wide(path, wide, k_path_max)) return false;
  const DWORD attributes = ::GetFileAttributesW(wide);
  return attributes != INVALID_FILE_ATTRIBUTES && !(attributes & FILE_ATTRIBUTE_DIRECTORY);
}

bool project_file_identity(const char* path, char* out, size_t out_size) {
  // Owners are not compared on Windows (util::foreign_owner).
  return is_regular_file(path) && file_identity(path, out, out_size);
}

bool working_directory(char* out, size_t out_size) {
  static wchar_t wide[k_path_max];
  const DWORD length = ::GetCurrentDirectoryW(k_path_max, wide);
  return length > 0 && length < k_path_max && to_utf8(wide, out, out_size);
}

bool environment_value(const char* name, char* out, size_t out_size) {
  static wchar_t wide_name[256];
  static wchar_t wide[32768];
  if (!to_wide(name, wide_name, 256)) {
    return false;
  }
  const DWORD length = ::GetEnvironmentVariableW(wide_name, wide, 32768);
  return length > 0 && length < 32768 && to_utf8(wide, out, out_size);
}

}  // namespace cudnnenv::shim
