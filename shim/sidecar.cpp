#include "sidecar.hpp"

#include <stdio.h>
#include <string.h>

namespace cudnnenv::shim {

namespace {

char g_empty[1] = {'\0'};

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

bool parse_sidecar(char* text, size_t size, Sidecar& sidecar, char* error, size_t error_size, const char* name) {
  sidecar = Sidecar{g_empty, g_empty, g_empty, g_empty, g_empty, g_empty, g_empty, {}};
  for (char*& each : sidecar.beside) each = g_empty;
  char* const end = text + size;
  int line_number = 0;
  for (char* line = text; line < end;) {
    char* line_end = static_cast<char*>(memchr(line, '\n', static_cast<size_t>(end - line)));
    if (!line_end) {
      line_end = end;
    }
    ++line_number;
    char* p = const_cast<char*>(skip_blank(line, line_end));
    char* content_end = const_cast<char*>(trim_end(p, line_end));
    if (p < content_end && *p != '#') {
      const char* equals = static_cast<const char*>(memchr(p, '=', static_cast<size_t>(content_end - p)));
      if (!equals) {
        snprintf(error, error_size, "line %d: expected 'key = value'", line_number);
        return false;
      }
      const char* key_end = trim_end(p, equals);
      char* value = const_cast<char*>(skip_blank(equals + 1, content_end));
      const size_t key_length = static_cast<size_t>(key_end - p);
      char** target = nullptr;
      const struct {
        const char* name;
        char** field;
      } keys[] = {{"path", &sidecar.path},  {"args", &sidecar.args},   {"cudnnenv", &sidecar.cudnnenv},
                  {"root", &sidecar.root},  {"audit", &sidecar.audit}, {"state", &sidecar.state},
                  {"cudnn", &sidecar.cudnn}};
      if (key_length == 11 && memcmp(p, "library_dir", 11) == 0) {
        snprintf(error, error_size,
                 "line %d: 'library_dir' is no longer read: a shim starts what 'cudnnenv exec' decides; write it "
                 "again: cudnnenv shim add %s",
                 line_number, name);
        return false;
      }
      for (const auto& key : keys) {
        if (key_length == strlen(key.name) && memcmp(p, key.name, key_length) == 0) {
          target = key.field;
        }
      }
      for (int row = 1; row < k_component_rows; ++row) {
        if (key_length == strlen(k_beside_keys[row]) && memcmp(p, k_beside_keys[row], key_length) == 0) {
          target = &sidecar.beside[row];
        }
      }
      if (!target) {
        char known[256] = "cudnnenv, root, state, audit, path, args, cudnn";
        for (int row = 1; row < k_component_rows; ++row) {
          strncat(known, ", ", sizeof known - strlen(known) - 1);
          strncat(known, k_beside_keys[row], sizeof known - strlen(known) - 1);
        }
        snprintf(error, error_size, "line %d: unknown key '%.*s' (known: %s)", line_number,
                 static_cast<int>(key_length), p, known);
        return false;
      }
      *target = value;
      *content_end = '\0';  // also where a '\n' or '\r' was, or one past `size`
    }
    line = line_end + 1;
  }
  if (sidecar.path[0] == '\0' && sidecar.cudnnenv[0] == '\0') {
    snprintf(error, error_size, "neither 'path = ...' nor 'cudnnenv = ...': recreate it with 'cudnnenv shim add'");
    return false;
  }
  if (sidecar.cudnn[0] != '\0' && (sidecar.cudnnenv[0] == '\0' || sidecar.root[0] == '\0' || sidecar.path[0] == '\0')) {
    snprintf(error, error_size, "'cudnn = ...' needs 'cudnnenv = ...', 'root = ...' and 'path = ...'");
    return false;
  }
  for (int row = 1; row < k_component_rows; ++row) {
    if (sidecar.beside[row][0] != '\0' && sidecar.cudnn[0] == '\0') {
      snprintf(error, error_size, "'%s = ...' goes with 'cudnn = ...'", k_beside_keys[row]);
      return false;
    }
  }
  if (sidecar.cudnnenv[0] == '\0' || sidecar.root[0] == '\0') {
    snprintf(error, error_size,
             "no 'cudnnenv = ...' and 'root = ...' to select a tree: write it again: cudnnenv shim add %s", name);
    return false;
  }
  return true;
}

}  // namespace cudnnenv::shim
