#include "sidecar.hpp"

#include <cstdio>
#include <cstring>

namespace cudnnenv::shim {

namespace {

bool copy_value(char* out, std::size_t out_size, const char* begin, const char* end) {
  const std::size_t length = static_cast<std::size_t>(end - begin);
  if (length + 1 > out_size) {
    return false;
  }
  std::memcpy(out, begin, length);
  out[length] = '\0';
  return true;
}

const char* skip_blank(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t')) {
    ++p;
  }
  return p;
}

const char* trim_end(const char* begin, const char* end) {
  while (end > begin && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) {
    --end;
  }
  return end;
}

}  // namespace

bool parse_sidecar(const char* text, std::size_t size, Sidecar& sidecar, char* error, std::size_t error_size) {
  const char* end = text + size;
  int line_number = 0;
  for (const char* line = text; line < end;) {
    const char* line_end = static_cast<const char*>(std::memchr(line, '\n', static_cast<std::size_t>(end - line)));
    if (!line_end) {
      line_end = end;
    }
    ++line_number;
    const char* p = skip_blank(line, line_end);
    const char* content_end = trim_end(p, line_end);
    if (p < content_end && *p != '#') {
      const char* equals = static_cast<const char*>(std::memchr(p, '=', static_cast<std::size_t>(content_end - p)));
      if (!equals) {
        std::snprintf(error, error_size, "line %d: expected 'key = value'", line_number);
        return false;
      }
      const char* key_end = trim_end(p, equals);
      const char* value = skip_blank(equals + 1, content_end);
      const std::size_t key_length = static_cast<std::size_t>(key_end - p);
      char* target = nullptr;
      if (key_length == 4 && std::memcmp(p, "path", 4) == 0) {
        target = sidecar.path;
      } else if (key_length == 11 && std::memcmp(p, "library_dir", 11) == 0) {
        target = sidecar.library_dir;
      } else if (key_length == 4 && std::memcmp(p, "args", 4) == 0) {
        target = sidecar.args;
      } else {
        std::snprintf(error, error_size, "line %d: unknown key '%.*s' (known: path, library_dir, args)",
                      line_number, static_cast<int>(key_length), p);
        return false;
      }
      if (!copy_value(target, sizeof Sidecar{}.path, value, content_end)) {
        std::snprintf(error, error_size, "line %d: value too long", line_number);
        return false;
      }
    }
    line = line_end + 1;
  }
  if (sidecar.path[0] == '\0') {
    std::snprintf(error, error_size, "no 'path = ...' line");
    return false;
  }
  return true;
}

}  // namespace cudnnenv::shim
