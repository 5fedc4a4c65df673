#include "launch_key.hpp"
#include "state_layout.hpp"

#include <string.h>

namespace cudnnenv::shim {

TextBuffer::TextBuffer(char* data, size_t size) : m_data(data), m_size(size) {
  m_ok = size > 0;
  if (m_ok) data[0] = '\0';
}

TextBuffer& TextBuffer::add(const char* text, size_t length) {
  if (!m_ok || m_used + length + 1 > m_size) {
    m_ok = false;
    return *this;
  }
  memcpy(m_data + m_used, text, length);
  m_used += length;
  m_data[m_used] = '\0';
  return *this;
}

TextBuffer& TextBuffer::keep(size_t length) {
  if (!m_ok || length > room()) {
    m_ok = false;
    return *this;
  }
  m_used += length;
  m_data[m_used] = '\0';
  return *this;
}

TextBuffer& TextBuffer::add(const char* text) {
  return add(text, strlen(text));
}

TextBuffer& TextBuffer::add_number(unsigned long long value, unsigned base, int min_digits) {
  char digits[64];
  int count = 0;
  do {
    digits[count++] = "0123456789abcdef"[value % base];
    value /= base;
  } while (value > 0 && count < 64);
  while (count < min_digits && count < 64) digits[count++] = '0';
  char ordered[64];
  for (int i = 0; i < count; ++i) ordered[i] = digits[count - 1 - i];
  return add(ordered, static_cast<size_t>(count));
}

namespace {

#if defined(_WIN32)
constexpr char k_separator = '\\';
#else
constexpr char k_separator = '/';
#endif

void identity_or_dash(const char* path, char* out, size_t out_size) {
  if (!file_identity(path, out, out_size)) {
    TextBuffer(out, out_size).add('-');
  }
}

// The value of the line "name = value" in `text`, cut out in place.
char* line_value(char* text, size_t size, const char* name) {
  const size_t name_length = strlen(name);
  for (char* line = text; line < text + size;) {
    // A line ends at '\n', or at a NUL left by an earlier call.
    char* end = line;
    while (end < text + size && *end != '\n' && *end != '\0') ++end;
    if (static_cast<size_t>(end - line) >= name_length + 3 && memcmp(line, name, name_length) == 0 &&
        memcmp(line + name_length, " = ", 3) == 0) {
      *end = '\0';
      return line + name_length + 3;
    }
    line = end + 1;
  }
  return nullptr;
}

}  // namespace

uint64_t fnv1a(const char* text, uint64_t hash) {
  for (; *text; ++text) {
    hash ^= static_cast<unsigned char>(*text);
    hash *= 1099511628211ull;
  }
  return hash;
}

bool launch_key(const char* root, const char* state, char* out, size_t out_size) {
  // Few, small locals: every page of stack or buffer the shim touches is one
  // the kernel must zero and map at each start.
  TextBuffer key(out, out_size);
  char identity[64];
  key.add("v=4\n");
  const char* const variables[] = {"CUDNNENV_VERSION", "CUDNNENV_ACTIVATED", "CUDNNENV_CUDA_RUNTIME",
                                   "CUDNNENV_VERIFY",  "CUDA_PATH",          "CUDA_HOME",
                                   "CUDA_ROOT"};
  for (const char* name : variables) {
    key.add(name).add('=');
    if (environment_value(name, key.end(), key.room() + 1)) key.keep(strlen(key.end()));
    key.add('\n');
  }
  // The nearest project file, from the working folder up: the folder and,
  // right after its text, the path tried in it.
  char scratch[2 * k_path_max + 64];
  char* const folder = scratch;
  if (!working_directory(folder, k_path_max)) return false;
  char* path_text = nullptr;
  bool found = false;
  for (;;) {
    const size_t folder_length = strlen(folder);
    path_text = folder + folder_length + 1;
    TextBuffer path(path_text, sizeof scratch - folder_length - 1);
    path.add(folder, folder_length);
    if (!(folder_length > 0 && folder[folder_length - 1] == k_separator)) path.add(k_separator);
    path.add(layout::k_project_file);
    // As find_project_file: the nearest regular file of that name this user or root owns.
    if (path.ok() && project_file_identity(path_text, identity, sizeof identity)) {
      found = true;
      break;
    }
    char* last = strrchr(folder, k_separator);
#if defined(_WIN32)
    char* other = strrchr(folder, '/');
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
  key.add("project=");
  if (found) {
    key.add(path_text).add('@').add(identity);
  } else {
    key.add('-');
  }
  key.add('\n');
  // The project's lock beside it (its folder's path, then the lock's name, in place of the project file's).
  key.add("lock=");
  if (found) {
    char* name = strrchr(path_text, k_separator);
#if defined(_WIN32)
    char* other = strrchr(path_text, '/');
    if (other > name) name = other;
#endif
    const size_t room = sizeof scratch - static_cast<size_t>(name + 1 - scratch);
    if (name && room > sizeof layout::k_lock_file) {
      memcpy(name + 1, layout::k_lock_file, sizeof layout::k_lock_file);
      if (file_identity(path_text, identity, sizeof identity)) {
        key.add(identity);
      } else {
        key.add('-');
      }
    } else {
      key.add('-');
    }
  } else {
    key.add('-');
  }
  key.add('\n');
  // This user's config and trust (the state folder), the store's own config
  // (a shared store's default), the store itself. A user's own store: the
  // state folder is <root>/.cudnnenv, and its config the store's; one stat
  // for both.
  const size_t root_length = strlen(root);
  const bool own_store = strncmp(state, root, root_length) == 0 && state[root_length] == '/' &&
                         strcmp(state + root_length + 1, layout::k_own_folder) == 0;
  const struct {
    const char* name;
    const char* base;
    const char* folder;
    const char* file;
  } files[] = {{"config", state, nullptr, layout::k_config_file},
               {"store_config", root, layout::k_own_folder, layout::k_config_file},
               {"trusted", state, nullptr, layout::k_trust_folder},
               {"root", root, nullptr, nullptr}};
  for (const auto& item : files) {
    const bool same_as_config = own_store && item.folder;
    // Trust is read only for a project file: without one, the folder's
    // state cannot change the selection.
    const bool unread = !found && item.base == state && item.file == layout::k_trust_folder;
    if (unread) {
      TextBuffer(identity, sizeof identity).add('-');
    } else if (!same_as_config) {
      TextBuffer path(scratch, sizeof scratch);
      path.add(item.base);
      if (item.folder) path.add('/').add(item.folder);
      if (item.file) path.add('/').add(item.file);
      identity_or_dash(scratch, identity, sizeof identity);
    }
    key.add(item.name).add('=').add(identity).add('\n');  // same_as_config: the config's, just read
  }
  return key.ok();
}

bool launch_cache_path(const char* state, const char* key, char* out, size_t out_size) {
  return TextBuffer(out, out_size)
      .add(state)
      .add('/')
      .add(layout::k_cache_folder)
      .add('/')
      .add(layout::k_launch_cache_folder)
      .add('/')
      .add_number(fnv1a(key), 16, 16)
      .ok();
}

bool state_folder(const char* sidecar_state, const char* root, char* out, size_t out_size) {
  if (sidecar_state && sidecar_state[0]) return TextBuffer(out, out_size).add(sidecar_state).ok();
  return TextBuffer(out, out_size).add(root).add('/').add(layout::k_own_folder).ok();
}

bool decision_identity(const char* const* folders, int folder_count, const char* program, char* out, size_t out_size) {
  char identity[64];
  TextBuffer text(out, out_size);
  for (int i = 0; i < folder_count; ++i) {
    if (!file_identity(folders[i], identity, sizeof identity)) return false;
    if (i > 0) text.add('|');
    text.add(identity);
  }
  if (program && program[0]) {
    char folder[k_path_max];
    if (!TextBuffer(folder, sizeof folder).add(program).ok()) return false;
    char* last = strrchr(folder, k_separator);
#if defined(_WIN32)
    char* other = strrchr(folder, '/');
    if (other > last) last = other;
#endif
    if (!last) return false;
    last[last == folder ? 1 : 0] = '\0';
    if (!file_identity(folder, identity, sizeof identity)) return false;
    if (folder_count > 0) text.add('|');
    text.add(identity);
  }
  return text.ok();
}

bool format_decision(const char* key, const LaunchDecision& decision, char* out, size_t out_size) {
  TextBuffer text(out, out_size);
  text.add("key = ");
  for (const char* p = key; *p; ++p) {
    text.add(*p == '\n' ? '\x1f' : *p);
  }
  text.add("\nlibrary_dir = ").add(decision.library_dir);
  for (int i = 0; i < decision.folder_count; ++i) {
    if (strpbrk(decision.folders[i], "\n\r")) return false;
    text.add("\nfolder = ").add(decision.folders[i]);
  }
  if (decision.program[0]) text.add("\nprogram = ").add(decision.program);
  text.add("\nidentity = ").add(decision.identity).add('\n');
  for (int i = 0; i < decision.change_count; ++i) {
    const EnvironmentChange& change = decision.changes[i];
    if (strpbrk(change.name, "\n\r=") || strpbrk(change.value, "\n\r") || !change.name[0] ||
        (change.op != '+' && change.op != '=' && change.op != '-')) {
      return false;
    }
    text.add("change = ").add(change.op).add(change.name);
    if (change.op != '-') text.add('=').add(change.value);
    text.add('\n');
  }
  return text.ok() && decision.change_count > 0;
}

bool read_decision(char* text, size_t size, const char* key, LaunchDecision& decision) {
  text[size] = '\0';
  // The key line first: it is compared before anything is cut out after it.
  const char* stored = line_value(text, size, "key");
  if (!stored) return false;
  const char* a = stored;
  const char* b = key;
  for (; *a && *b; ++a, ++b) {
    if (*a != (*b == '\n' ? '\x1f' : *b)) return false;
  }
  if (*a || *b) return false;
  decision = LaunchDecision{};
  const char* library_dir = line_value(text, size, "library_dir");
  const char* identity = line_value(text, size, "identity");
  if (!library_dir || !identity) return false;
  decision.library_dir = library_dir;
  decision.identity = identity;
  if (const char* program = line_value(text, size, "program")) decision.program = program;
  // Every `folder = ` and `change = ` line, in order (a line ends at '\n' or
  // at a NUL an earlier cut left).
  for (char* line = text; line < text + size;) {
    char* end = line;
    while (end < text + size && *end != '\n' && *end != '\0') ++end;
    *end = '\0';
    if (strncmp(line, "folder = ", 9) == 0) {
      if (decision.folder_count == k_folders_max) return false;
      decision.folders[decision.folder_count++] = line + 9;
    } else if (strncmp(line, "change = ", 9) == 0 && line[9] && decision.change_count < k_changes_max) {
      EnvironmentChange& change = decision.changes[decision.change_count++];
      change.op = line[9];
      char* name = line + 10;
      char* equals = strchr(name, '=');
      if (change.op == '-') {
        if (equals || !name[0]) return false;
      } else {
        if ((change.op != '+' && change.op != '=') || !equals || equals == name) return false;
        *equals = '\0';
        change.value = equals + 1;
      }
      change.name = name;
    } else if (strncmp(line, "change = ", 9) == 0) {
      return false;  // more changes than fit, or an empty one: the slow path
    }
    line = end + 1;
  }
  if (decision.change_count == 0) return false;
  char now[512];
  return decision_identity(decision.folders, decision.folder_count, decision.program, now, sizeof now) &&
         strcmp(now, identity) == 0;
}

}  // namespace cudnnenv::shim
