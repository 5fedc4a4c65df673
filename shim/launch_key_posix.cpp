#include <sys/stat.h>
#include <unistd.h>

#include <stdlib.h>
#include <string.h>

#include "launch_key.hpp"

namespace cudnnenv::shim {

namespace {

bool format_identity(const struct stat& info, char* out, size_t out_size) {
  TextBuffer text(out, out_size);
  text.add_number(static_cast<unsigned long long>(info.st_size)).add(':');
  text.add_number(static_cast<unsigned long long>(info.st_mtim.tv_sec)).add('.');
  text.add_number(static_cast<unsigned long long>(info.st_mtim.tv_nsec), 10, 9);
  return text.ok();
}

}  // namespace

bool file_identity(const char* path, char* out, size_t out_size) {
  struct stat info;
  return ::stat(path, &info) == 0 && format_identity(info, out, out_size);
}

bool project_file_identity(const char* path, char* out, size_t out_size) {
  struct stat info;
  return ::stat(path, &info) == 0 && S_ISREG(info.st_mode) && (info.st_uid == 0 || info.st_uid == ::geteuid()) &&
         format_identity(info, out, out_size);
}

bool is_regular_file(const char* path) {
  struct stat info;
  return ::stat(path, &info) == 0 && S_ISREG(info.st_mode);
}

bool working_directory(char* out, size_t out_size) {
  return ::getcwd(out, out_size) != nullptr;
}

bool environment_value(const char* name, char* out, size_t out_size) {
  const char* value = getenv(name);
  if (!value || strlen(value) + 1 > out_size) {
    return false;
  }
  memcpy(out, value, strlen(value) + 1);
  return true;
}

}  // namespace cudnnenv::shim
