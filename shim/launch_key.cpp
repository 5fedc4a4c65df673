#include "launch_key.hpp"

#include <cstdio>
#include <cstring>

namespace cudnnenv::shim {

namespace {

#if defined(_WIN32)
constexpr char k_separator = '\\';
#else
constexpr char k_separator = '/';
#endif

// Appends "name=value\n"; false when `out` is full.
bool append(char* out, std::size_t out_size, std::size_t& used, const char* name, const char* value) {
  const int written = std::snprintf(out + used, out_size - used, "%s=%s\n", name, value);
  if (written < 0 || static_cast<std::size_t>(written) >= out_size - used) {
    return false;
  }
  used += static_cast<std::size_t>(written);
  return true;
}

bool identity_or_dash(const char* path, char* out, std::size_t out_size) {
  if (!file_identity(path, out, out_size)) {
    std::snprintf(out, out_size, "-");
  }
  return true;
}

std::uint64_t fnv1a(const char* text) {
  std::uint64_t hash = 14695981039346656037ull;
  for (; *text; ++text) {
    hash ^= static_cast<unsigned char>(*text);
    hash *= 1099511628211ull;
  }
  return hash;
}

// The line "name = value" of `text`, value into `out`.
bool line_value(const char* text, std::size_t size, const char* name, char* out, std::size_t out_size) {
  const std::size_t name_length = std::strlen(name);
  for (const char* line = text; line < text + size;) {
    const char* end = static_cast<const char*>(std::memchr(line, '\n', static_cast<std::size_t>(text + size - line)));
    if (!end) end = text + size;
    if (static_cast<std::size_t>(end - line) > name_length + 3 && std::memcmp(line, name, name_length) == 0 &&
        std::memcmp(line + name_length, " = ", 3) == 0) {
      const std::size_t length = static_cast<std::size_t>(end - line) - name_length - 3;
      if (length + 1 > out_size) return false;
      std::memcpy(out, line + name_length + 3, length);
      out[length] = '\0';
      return true;
    }
    line = end + 1;
  }
  return false;
}

}  // namespace

bool launch_key(const char* root, char* out, std::size_t out_size) {
  std::size_t used = 0;
  char value[k_path_max];
  char identity[64];
  char path[k_path_max + 64];
  out[0] = '\0';
  if (!append(out, out_size, used, "v", "1")) return false;
  const char* const variables[] = {"CUDNNENV_VERSION", "CUDNNENV_VERIFY"};
  for (const char* name : variables) {
    if (!environment_value(name, value, sizeof value)) value[0] = '\0';
    if (!append(out, out_size, used, name, value)) return false;
  }
  // The nearest project file, from the working folder up.
  char folder[k_path_max];
  if (!working_directory(folder, sizeof folder)) return false;
  bool found = false;
  const char separator[2] = {k_separator, '\0'};
  for (;;) {
    std::snprintf(path, sizeof path, "%s%s.cudnnenv.toml", folder,
                  folder[0] && folder[std::strlen(folder) - 1] == k_separator ? "" : separator);
    if (file_identity(path, identity, sizeof identity)) {
      found = true;
      break;
    }
    char* last = std::strrchr(folder, k_separator);
#if defined(_WIN32)
    char* other = std::strrchr(folder, '/');
    if (other > last) last = other;
#endif
    if (!last || last[1] == '\0') break;
    // The root keeps its separator ("/", "C:\").
    if (last == folder || (last == folder + 2 && folder[1] == ':')) {
      last[1] = '\0';
    } else {
      *last = '\0';
    }
  }
  if (found) {
    char entry[k_path_max + 128];
    std::snprintf(entry, sizeof entry, "%s@%s", path, identity);
    if (!append(out, out_size, used, "project", entry)) return false;
  } else if (!append(out, out_size, used, "project", "-")) {
    return false;
  }
  const struct {
    const char* name;
    const char* relative;
  } state[] = {{"config", ".cudnnenv/config.toml"}, {"trusted", ".cudnnenv/trusted"}, {"root", ""}};
  for (const auto& item : state) {
    std::snprintf(path, sizeof path, "%s%s%s", root, item.relative[0] ? "/" : "", item.relative);
    identity_or_dash(path, identity, sizeof identity);
    if (!append(out, out_size, used, item.name, identity)) return false;
  }
  return true;
}

bool launch_cache_path(const char* root, const char* key, char* out, std::size_t out_size) {
  const int written = std::snprintf(out, out_size, "%s/.cudnnenv/cache/launch/%016llx", root,
                                    static_cast<unsigned long long>(fnv1a(key)));
  return written > 0 && static_cast<std::size_t>(written) < out_size;
}

bool format_decision(const char* key, const LaunchDecision& decision, char* out, std::size_t out_size) {
  std::size_t used = static_cast<std::size_t>(std::snprintf(out, out_size, "key = "));
  for (const char* p = key; *p && used + 1 < out_size; ++p) {
    out[used++] = *p == '\n' ? '\x1f' : *p;
  }
  const int written = std::snprintf(out + used, out_size - used, "\nlibrary_dir = %s\nlibrary = %s\nlibrary_id = %s\n",
                                    decision.library_dir, decision.library, decision.library_id);
  return used < out_size && written > 0 && static_cast<std::size_t>(written) < out_size - used;
}

bool read_decision(const char* text, std::size_t size, const char* key, LaunchDecision& decision) {
  static char stored[k_key_max];
  if (!line_value(text, size, "key", stored, sizeof stored)) return false;
  const char* a = stored;
  const char* b = key;
  for (; *a && *b; ++a, ++b) {
    if (*a != (*b == '\n' ? '\x1f' : *b)) return false;
  }
  if (*a || *b) return false;
  if (!line_value(text, size, "library_dir", decision.library_dir, sizeof decision.library_dir) ||
      !line_value(text, size, "library", decision.library, sizeof decision.library) ||
      !line_value(text, size, "library_id", decision.library_id, sizeof decision.library_id)) {
    return false;
  }
  char now[64];
  return file_identity(decision.library, now, sizeof now) && std::strcmp(now, decision.library_id) == 0;
}

}  // namespace cudnnenv::shim
