// cudnnenv-shim on Linux. `cudnnenv shim add NAME` makes NAME in the shims
// folder a link to this program and writes NAME.shim beside it. Started as
// NAME, it finds which tree is selected here from a cached decision (see
// launch_key.hpp: a few stats and one small file read), makes the changes of
// the launch environment `cudnnenv exec` recorded with it (the tree's library
// folder first on LD_LIBRARY_PATH, the audit module on LD_AUDIT, the
// selection's variables), and execve()s the program: same PID, the program's
// signals and exit code.
// Without a cached decision (first launch, or anything resolution reads has
// changed) it execs `cudnnenv exec`, which resolves, checks and records one.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch_key.hpp"
#include "sidecar.hpp"

namespace {

using cudnnenv::shim::TextBuffer;

[[noreturn]] void die(const char* what, const char* detail) {
  fprintf(stderr, "cudnnenv-shim: error: %s%s\n", what, detail);
  exit(127);
}

// The strings, variables and arguments of one start, packed one after
// another in one static block: each separate buffer the launcher touched
// would be a page the kernel zeroes and maps at every start.
class Arena {
 public:
  // The next string goes at next(); all the room left is its to use.
  char* next() { return m_data + m_used; }
  size_t room() const { return sizeof m_data - m_used; }
  TextBuffer text() { return TextBuffer(next(), room()); }
  // Keeps the `length` bytes written at next() and the NUL after them.
  char* keep(size_t length) {
    char* kept = next();
    m_used += length + 1;
    return kept;
  }
  char* keep(const TextBuffer& text) {
    if (!text.ok()) die("a path or the environment is too long for a shim", "");
    return keep(text.size());
  }
  // Room for `count` pointers.
  char** pointers(size_t count) {
    m_used = (m_used + alignof(char*) - 1) / alignof(char*) * alignof(char*);
    if (count > room() / sizeof(char*)) die("more variables or arguments than a shim takes", "");
    char** kept = reinterpret_cast<char**>(next());
    m_used += count * sizeof(char*);
    return kept;
  }

 private:
  alignas(alignof(char*)) static char m_data[1 << 21];
  size_t m_used = 0;
};
alignas(alignof(char*)) char Arena::m_data[1 << 21];

// A whole small file (at most `limit` bytes) kept in the arena; null when it
// cannot be read. The descriptor closes at the exec (O_CLOEXEC): one system
// call fewer. openat directly: musl's open() follows an O_CLOEXEC open with
// an fcntl for kernels older than 2.6.23.
char* read_small(Arena& arena, const char* path, size_t limit, size_t& size) {
  const int fd = static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC));
  if (fd < 0) return nullptr;
  const ssize_t got = ::read(fd, arena.next(), limit < arena.room() ? limit : arena.room() - 1);
  if (got < 0) {
    ::close(fd);
    return nullptr;
  }
  size = static_cast<size_t>(got);
  return arena.keep(size);
}

// The program's environment, built from this process's in the arena: no
// setenv, so no malloc. Every exec gets data().
class ChildEnvironment {
 public:
  ChildEnvironment(char** from, Arena& arena) : m_arena(arena) {
    int count = 0;
    for (char** entry = from; entry && *entry; ++entry) ++count;
    // Room for every variable a start sets: the depth, a decision's changes,
    // a fixed pin's three.
    m_capacity = count + cudnnenv::shim::k_changes_max + 8;
    m_entries = arena.pointers(static_cast<size_t>(m_capacity));
    for (char** entry = from; entry && *entry; ++entry) m_entries[m_count++] = *entry;
  }

  // The value of `name`, or null.
  const char* get(const char* name) const {
    const int at = find(name);
    return at < 0 ? nullptr : m_entries[at] + strlen(name) + 1;
  }

  void set(const char* name, const char* value) {
    TextBuffer text = m_arena.text();
    text.add(name).add('=').add(value);
    place(name, m_arena.keep(text));
  }

  void unset(const char* name) {
    const int at = find(name);
    if (at < 0) return;
    m_entries[at] = m_entries[--m_count];
  }

  // `entry` first in the colon list `name`, earlier copies of it removed.
  void prepend(const char* name, const char* entry) {
    TextBuffer text = m_arena.text();
    text.add(name).add('=').add(entry);
    const size_t entry_length = strlen(entry);
    for (const char* p = get(name); p && *p;) {
      const char* colon = strchr(p, ':');
      const size_t length = colon ? static_cast<size_t>(colon - p) : strlen(p);
      if (length > 0 && !(length == entry_length && memcmp(p, entry, length) == 0)) {
        text.add(':').add(p, length);
      }
      p = colon ? colon + 1 : nullptr;
    }
    place(name, m_arena.keep(text));
  }

  char** data() {
    m_entries[m_count] = nullptr;
    return m_entries;
  }

 private:
  int find(const char* name) const {
    const size_t length = strlen(name);
    for (int i = 0; i < m_count; ++i) {
      if (strncmp(m_entries[i], name, length) == 0 && m_entries[i][length] == '=') return i;
    }
    return -1;
  }

  void place(const char* name, char* entry) {
    const int at = find(name);
    if (at >= 0) {
      m_entries[at] = entry;
    } else if (m_count + 1 < m_capacity) {
      m_entries[m_count++] = entry;
    } else {
      die("more variables than a shim takes; the last: ", name);
    }
  }

  Arena& m_arena;
  char** m_entries = nullptr;
  int m_capacity = 0;
  int m_count = 0;
};

// NAME on PATH, skipping the shims folder and any file that is this
// program (a link to it elsewhere would start it again); kept in the arena.
char* find_target(Arena& arena, const char* name, const char* shims_dir) {
  struct stat self;
  const bool know_self = ::stat("/proc/self/exe", &self) == 0;
  const size_t shims_length = strlen(shims_dir);
  for (const char* p = getenv("PATH"); p && *p;) {
    const char* colon = strchr(p, ':');
    const size_t length = colon ? static_cast<size_t>(colon - p) : strlen(p);
    const bool shims = length == shims_length && memcmp(p, shims_dir, length) == 0;
    if (length > 0 && !shims) {
      struct stat candidate;
      TextBuffer path = arena.text();
      if (path.add(p, length).add('/').add(name).ok() && ::access(arena.next(), X_OK) == 0 &&
          ::stat(arena.next(), &candidate) == 0 && S_ISREG(candidate.st_mode) &&
          !(know_self && candidate.st_dev == self.st_dev && candidate.st_ino == self.st_ino)) {
        return arena.keep(path);
      }
    }
    p = colon ? colon + 1 : nullptr;
  }
  return nullptr;
}

// The program's arguments: `first` (the program, or the slow path's
// command), the sidecar's args (split on spaces, no quoting: enough for
// flags like -X utf8), then the user's, then the terminating null.
class Arguments {
 public:
  Arguments(Arena& arena, char* sidecar_args, int argc, char** argv)
      : m_sidecar_args(sidecar_args), m_argc(argc), m_argv(argv) {
    // A token takes at least two characters of the args (itself and a blank).
    m_list = arena.pointers(static_cast<size_t>(argc) + strlen(sidecar_args) / 2 + 16);
  }
  Arguments& add(char* argument) {
    m_list[m_count++] = argument;
    return *this;
  }
  char** finish() {
    for (char* token = strtok(m_sidecar_args, " \t"); token; token = strtok(nullptr, " \t")) add(token);
    for (int i = 1; i < m_argc; ++i) add(m_argv[i]);
    m_list[m_count] = nullptr;
    return m_list;
  }

 private:
  char* m_sidecar_args;
  int m_argc;
  char** m_argv;
  char** m_list = nullptr;
  int m_count = 0;
};

[[noreturn]] void start(const char* program, char** arguments, char** environment) {
  ::execve(program, arguments, environment);
  fprintf(stderr, "cudnnenv-shim: error: cannot start '%s': %s\n", program, strerror(errno));
  exit(127);
}

}  // namespace

int main(int argc, char** argv) {
  using cudnnenv::shim::k_key_max;
  using cudnnenv::shim::k_path_max;
  using cudnnenv::shim::Sidecar;
  static Arena arena;
  // argv[0] as the shell ran it: through PATH it is the link's full path
  // only when given with a slash; otherwise find it on PATH ourselves.
  const char* name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  char* invoked = nullptr;
  if (strchr(argv[0], '/')) {
    invoked = argv[0];
  } else {
    for (const char* p = getenv("PATH"); p && *p && !invoked;) {
      const char* colon = strchr(p, ':');
      const size_t length = colon ? static_cast<size_t>(colon - p) : strlen(p);
      TextBuffer path = arena.text();
      if (path.add(p, length).add('/').add(name).ok() && ::access(arena.next(), X_OK) == 0) {
        invoked = arena.keep(path);
      }
      p = colon ? colon + 1 : nullptr;
    }
    if (!invoked) die("cannot find the launcher's own file for ", name);
  }
  if (strlen(invoked) >= k_path_max) die("path too long: ", invoked);
  char* const shims_dir = arena.keep(arena.text().add(invoked, static_cast<size_t>(strrchr(invoked, '/') - invoked)));

  const char* const sidecar_path = arena.keep(arena.text().add(invoked).add(".shim"));
  size_t size = 0;
  char* const text = read_small(arena, sidecar_path, 16383, size);
  if (!text) die("cannot read ", sidecar_path);
  Sidecar sidecar;
  char error[256];
  if (!cudnnenv::shim::parse_sidecar(text, size, sidecar, error, sizeof error, name)) {
    fprintf(stderr, "cudnnenv-shim: error: %s: %s\n", sidecar_path, error);
    return 127;
  }

  // A shim that reaches itself again and again (through links or a
  // program that calls its own name) stops instead of forking forever.
  const char* depth_text = getenv("CUDNNENV_SHIM_DEPTH");
  const int depth = depth_text ? atoi(depth_text) : 0;
  if (depth >= 16) die("16 shims started one another: a loop? the last was ", invoked);
  char depth_value[16];
  TextBuffer(depth_value, sizeof depth_value).add_number(static_cast<unsigned>(depth + 1));
  ChildEnvironment child(environ, arena);
  child.set("CUDNNENV_SHIM_DEPTH", depth_value);

  Arguments arguments(arena, sidecar.args, argc, argv);
  char* target = sidecar.path;
  if (!target[0]) {
    if (char* found = find_target(arena, name, shims_dir)) target = found;
  }
  const bool have_target = target[0] != '\0';
  if (sidecar.cudnn[0] != '\0') {
    // A launcher pinned to one tree: every start through `cudnnenv exec
    // --cudnn TREE [--runtime NAME ...]` (no --shims-dir: no decision recorded
    // for the shims).
    arguments.add(sidecar.cudnnenv).add(const_cast<char*>("--root")).add(sidecar.root);
    arguments.add(const_cast<char*>("exec")).add(const_cast<char*>("--cudnn")).add(sidecar.cudnn);
    for (int row = 1; row < cudnnenv::shim::k_component_rows; ++row) {
      if (sidecar.beside[row][0]) {
        arguments.add(const_cast<char*>(cudnnenv::shim::k_beside_flags[row])).add(sidecar.beside[row]);
      }
    }
    arguments.add(const_cast<char*>("--")).add(sidecar.path);
    start(sidecar.cudnnenv, arguments.finish(), child.data());
  }
  cudnnenv::shim::LaunchDecision decision;
  char* cached = nullptr;
  size_t cached_size = 0;
  if (have_target) {
    char* const state = arena.next();
    char* key = nullptr;
    char* cache_path = nullptr;
    if (cudnnenv::shim::state_folder(sidecar.state, sidecar.root, state, arena.room())) {
      arena.keep(strlen(state));
      if (cudnnenv::shim::launch_key(sidecar.root, state, arena.next(),
                                     arena.room() < k_key_max ? arena.room() : k_key_max)) {
        key = arena.keep(strlen(arena.next()));
      }
    }
    if (key && cudnnenv::shim::launch_cache_path(state, key, arena.next(), arena.room())) {
      cache_path = arena.keep(strlen(arena.next()));
      cached = read_small(arena, cache_path, k_key_max + 3 * k_path_max - 1, cached_size);
    }
    if (cached && cached_size > 0 && cudnnenv::shim::read_decision(cached, cached_size, key, decision)) {
      for (int i = 0; i < decision.change_count; ++i) {
        const cudnnenv::shim::EnvironmentChange& change = decision.changes[i];
        if (change.op == '+') {
          child.prepend(change.name, change.value);
        } else if (change.op == '=') {
          child.set(change.name, change.value);
        } else {
          child.unset(change.name);
        }
      }
      arguments.add(target);
      start(target, arguments.finish(), child.data());
    }
  }
  // The slow path: cudnnenv resolves, checks, records the decision and
  // execs the program itself (or says why it cannot).
  arguments.add(sidecar.cudnnenv).add(const_cast<char*>("--root")).add(sidecar.root);
  arguments.add(const_cast<char*>("exec")).add(const_cast<char*>("--shims-dir")).add(shims_dir);
  arguments.add(const_cast<char*>("--")).add(sidecar.path[0] ? sidecar.path : const_cast<char*>(name));
  start(sidecar.cudnnenv, arguments.finish(), child.data());
}
