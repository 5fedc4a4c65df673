#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "launch_key.hpp"

namespace cudnnenv::shim {

namespace {

bool format_identity(const struct stat& info, char* out, std::size_t out_size) {
  TextBuffer text(out, out_size);
  text.add_number(static_cast<unsigned long long>(info.st_size)).add(':');
  text.add_number(static_cast<unsigned long long>(info.st_mtim.tv_sec)).add('.');
  text.add_number(static_cast<unsigned long long>(info.st_mtim.tv_nsec), 10, 9);
  return text.ok();
}

}  // namespace

bool file_identity(const char* path, char* out, std::size_t out_size) {
  struct stat info;
  return ::stat(path, &info) == 0 && format_identity(info, out, out_size);
}

bool project_file_identity(const char* path, char* out, std::size_t out_size) {
  struct stat info;
  return ::stat(path, &info) == 0 && S_ISREG(info.st_mode) && (info.st_uid == 0 || info.st_uid == ::geteuid()) &&
         format_identity(info, out, out_size);
}

bool is_regular_file(const char* path) {
  struct stat info;
  return ::stat(path, &info) == 0 && S_ISREG(info.st_mode);
}

bool working_directory(char* out, std::size_t out_size) {
  return ::getcwd(out, out_size) != nullptr;
}

bool environment_value(const char* name, char* out, std::size_t out_size) {
  const char* value = std::getenv(name);
  if (!value || std::strlen(value) + 1 > out_size) {
    return false;
  }
  std::memcpy(out, value, std::strlen(value) + 1);
  return true;
}

}  // namespace cudnnenv::shim
