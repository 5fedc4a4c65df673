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
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "launch_key.hpp"
#include "sidecar.hpp"

namespace {

using cudnnenv::shim::k_key_max;
using cudnnenv::shim::k_path_max;
using cudnnenv::shim::TextBuffer;

[[noreturn]] void die(const char* what, const char* detail) {
  std::fprintf(stderr, "cudnnenv-shim: error: %s%s\n", what, detail);
  std::exit(127);
}

// A whole small file into `text`; its size, or -1.
ssize_t read_small(const char* path, char* text, std::size_t size) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const ssize_t got = ::read(fd, text, size);
  ::close(fd);
  return got;
}

// The program's environment, built from this process's in static memory:
// no setenv, so no malloc, whose first use costs a getrandom call and the
// heap's set-up on every start. Every exec gets data().
class ChildEnvironment {
 public:
  explicit ChildEnvironment(char** from) {
    for (char** entry = from; entry && *entry; ++entry) {
      if (m_count + 1 >= k_entries) die("more variables in the environment than a shim takes: ", *entry);
      m_entries[m_count++] = *entry;
    }
  }

  // The value of `name`, or null.
  const char* get(const char* name) const {
    const int at = find(name);
    return at < 0 ? nullptr : m_entries[at] + std::strlen(name) + 1;
  }

  void set(const char* name, const char* value) {
    TextBuffer text(m_text + m_used, sizeof m_text - m_used);
    text.add(name).add('=').add(value);
    if (!text.ok()) die("the environment would be too large for a shim; the variable: ", name);
    place(name, m_text + m_used);
    m_used += text.size() + 1;
  }

  void unset(const char* name) {
    const int at = find(name);
    if (at < 0) return;
    m_entries[at] = m_entries[--m_count];
  }

  // `entry` first in the colon list `name`, earlier copies of it removed.
  void prepend(const char* name, const char* entry) {
    TextBuffer text(m_text + m_used, sizeof m_text - m_used);
    text.add(name).add('=').add(entry);
    const std::size_t entry_length = std::strlen(entry);
    for (const char* p = get(name); p && *p;) {
      const char* colon = std::strchr(p, ':');
      const std::size_t length = colon ? static_cast<std::size_t>(colon - p) : std::strlen(p);
      if (length > 0 && !(length == entry_length && std::memcmp(p, entry, length) == 0)) {
        text.add(':').add(p, length);
      }
      p = colon ? colon + 1 : nullptr;
    }
    if (!text.ok()) die("the environment would be too large for a shim; the variable: ", name);
    place(name, m_text + m_used);
    m_used += text.size() + 1;
  }

  char** data() {
    m_entries[m_count] = nullptr;
    return m_entries;
  }

 private:
  static constexpr int k_entries = 8192;

  int find(const char* name) const {
    const std::size_t length = std::strlen(name);
    for (int i = 0; i < m_count; ++i) {
      if (std::strncmp(m_entries[i], name, length) == 0 && m_entries[i][length] == '=') return i;
    }
    return -1;
  }

  void place(const char* name, char* entry) {
    const int at = find(name);
    if (at >= 0) {
      m_entries[at] = entry;
    } else {
      m_entries[m_count++] = entry;
    }
  }

  static char* m_entries[k_entries];
  static char m_text[1 << 20];
  int m_count = 0;
  std::size_t m_used = 0;
};
char* ChildEnvironment::m_entries[ChildEnvironment::k_entries];
char ChildEnvironment::m_text[1 << 20];

// NAME on PATH, skipping the shims folder and any file that is this
// program (a link to it elsewhere would start it again).
bool find_target(const char* name, const char* shims_dir, char* out, std::size_t out_size) {
  struct stat self;
  const bool know_self = ::stat("/proc/self/exe", &self) == 0;
  const std::size_t shims_length = std::strlen(shims_dir);
  for (const char* p = std::getenv("PATH"); p && *p;) {
    const char* colon = std::strchr(p, ':');
    const std::size_t length = colon ? static_cast<std::size_t>(colon - p) : std::strlen(p);
    const bool shims = length == shims_length && std::memcmp(p, shims_dir, length) == 0;
    if (length > 0 && !shims) {
      struct stat candidate;
      if (TextBuffer(out, out_size).add(p, length).add('/').add(name).ok() && ::access(out, X_OK) == 0 &&
          ::stat(out, &candidate) == 0 && S_ISREG(candidate.st_mode) &&
          !(know_self && candidate.st_dev == self.st_dev && candidate.st_ino == self.st_ino)) {
        return true;
      }
    }
    p = colon ? colon + 1 : nullptr;
  }
  return false;
}

// The sidecar's args (split on spaces, no quoting: enough for flags like
// -X utf8), then the user's arguments, then the terminating null.
void finish_arguments(char** arguments, int count, char* sidecar_args, int argc, char** argv) {
  for (char* token = std::strtok(sidecar_args, " \t"); token && count < 2048; token = std::strtok(nullptr, " \t")) {
    arguments[count++] = token;
  }
  for (int i = 1; i < argc; ++i) arguments[count++] = argv[i];
  arguments[count] = nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  using cudnnenv::shim::Sidecar;
  // argv[0] as the shell ran it: through PATH it is the link's full path
  // only when given with a slash; otherwise find it on PATH ourselves.
  static char invoked[k_path_max];
  const char* name = std::strrchr(argv[0], '/') ? std::strrchr(argv[0], '/') + 1 : argv[0];
  if (std::strchr(argv[0], '/')) {
    if (!TextBuffer(invoked, sizeof invoked).add(argv[0]).ok()) die("path too long: ", argv[0]);
  } else {
    bool found = false;
    for (const char* p = std::getenv("PATH"); p && *p && !found;) {
      const char* colon = std::strchr(p, ':');
      const std::size_t length = colon ? static_cast<std::size_t>(colon - p) : std::strlen(p);
      found =
          TextBuffer(invoked, sizeof invoked).add(p, length).add('/').add(name).ok() && ::access(invoked, X_OK) == 0;
      p = colon ? colon + 1 : nullptr;
    }
    if (!found) die("cannot find the launcher's own file for ", name);
  }
  static char shims_dir[k_path_max];
  TextBuffer(shims_dir, sizeof shims_dir).add(invoked, static_cast<std::size_t>(std::strrchr(invoked, '/') - invoked));

  static char sidecar_path[k_path_max + 8];
  TextBuffer(sidecar_path, sizeof sidecar_path).add(invoked).add(".shim");
  static char text[16384];
  const ssize_t size = read_small(sidecar_path, text, sizeof text - 1);
  if (size < 0) die("cannot read ", sidecar_path);
  Sidecar sidecar;
  char error[256];
  if (!cudnnenv::shim::parse_sidecar(text, static_cast<std::size_t>(size), sidecar, error, sizeof error)) {
    std::fprintf(stderr, "cudnnenv-shim: error: %s: %s\n", sidecar_path, error);
    return 127;
  }

  // A shim that reaches itself again and again (through links or a
  // program that calls its own name) stops instead of forking forever.
  const char* depth_text = std::getenv("CUDNNENV_SHIM_DEPTH");
  const int depth = depth_text ? std::atoi(depth_text) : 0;
  if (depth >= 16) die("16 shims started one another: a loop? the last was ", invoked);
  char depth_value[16];
  TextBuffer(depth_value, sizeof depth_value).add_number(static_cast<unsigned>(depth + 1));
  ChildEnvironment child(environ);
  child.set("CUDNNENV_SHIM_DEPTH", depth_value);

  // Room for the sidecar's args and the slow path's own; heap only for a
  // huge argument list (a static array costs no start-up work).
  static char* fixed[4096];
  const std::size_t needed = static_cast<std::size_t>(argc) + 2048 + 16;
  char** arguments = needed <= 4096 ? fixed : static_cast<char**>(std::calloc(needed, sizeof(char*)));
  int count = 0;
  static char found_target[k_path_max];
  char* target = sidecar.path;
  if (!target[0] && find_target(name, shims_dir, found_target, sizeof found_target)) target = found_target;
  const bool have_target = target[0] != '\0';
  const char* library_dir = sidecar.library_dir;
  cudnnenv::shim::LaunchDecision decision;
  if (sidecar.cudnn[0] != '\0') {
    // A launcher pinned to one tree: every start through `cudnnenv exec
    // --cudnn TREE` (no --shims-dir: no decision recorded for the shims).
    arguments[count++] = sidecar.cudnnenv;
    arguments[count++] = const_cast<char*>("--root");
    arguments[count++] = sidecar.root;
    arguments[count++] = const_cast<char*>("exec");
    arguments[count++] = const_cast<char*>("--cudnn");
    arguments[count++] = sidecar.cudnn;
    arguments[count++] = const_cast<char*>("--");
    arguments[count++] = sidecar.path;
    finish_arguments(arguments, count, sidecar.args, argc, argv);
    ::execve(sidecar.cudnnenv, arguments, child.data());
    std::fprintf(stderr, "cudnnenv-shim: error: cannot start '%s': %s\n", sidecar.cudnnenv, std::strerror(errno));
    return 127;
  }
  if (library_dir[0] == '\0' || !have_target) {
    static char key[k_key_max];
    static char cache_path[k_path_max + 64];
    static char state[k_path_max];
    static char cached[k_key_max + 3 * k_path_max];
    ssize_t cached_size = -1;
    if (have_target && cudnnenv::shim::state_folder(sidecar.state, sidecar.root, state, sizeof state) &&
        cudnnenv::shim::launch_key(sidecar.root, state, key, sizeof key) &&
        cudnnenv::shim::launch_cache_path(state, key, cache_path, sizeof cache_path)) {
      cached_size = read_small(cache_path, cached, sizeof cached - 1);
    }
    if (cached_size > 0 &&
        cudnnenv::shim::read_decision(cached, static_cast<std::size_t>(cached_size), key, decision)) {
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
      arguments[count++] = target;
      finish_arguments(arguments, count, sidecar.args, argc, argv);
      ::execve(target, arguments, child.data());
      std::fprintf(stderr, "cudnnenv-shim: error: cannot start '%s': %s\n", target, std::strerror(errno));
      return 127;
    } else if (sidecar.cudnnenv[0] == '\0') {
      std::fprintf(stderr, "cudnnenv-shim: error: '%s' is not on PATH outside %s\n", name, shims_dir);
      return 127;
    } else {
      // The slow path: cudnnenv resolves, checks, records the decision and
      // execs the program itself (or says why it cannot).
      arguments[count++] = sidecar.cudnnenv;
      arguments[count++] = const_cast<char*>("--root");
      arguments[count++] = sidecar.root;
      arguments[count++] = const_cast<char*>("exec");
      arguments[count++] = const_cast<char*>("--shims-dir");
      arguments[count++] = shims_dir;
      arguments[count++] = const_cast<char*>("--");
      arguments[count++] = sidecar.path[0] ? sidecar.path : const_cast<char*>(name);
      finish_arguments(arguments, count, sidecar.args, argc, argv);
      ::execve(sidecar.cudnnenv, arguments, child.data());
      std::fprintf(stderr, "cudnnenv-shim: error: cannot start '%s': %s\n", sidecar.cudnnenv, std::strerror(errno));
      return 127;
    }
  }

  child.prepend("LD_LIBRARY_PATH", library_dir);
  child.set("CUDNNENV_PIN_DIR", library_dir);
  if (sidecar.audit[0]) child.prepend("LD_AUDIT", sidecar.audit);

  arguments[count++] = target;
  finish_arguments(arguments, count, sidecar.args, argc, argv);
  ::execve(target, arguments, child.data());
  std::fprintf(stderr, "cudnnenv-shim: error: cannot start '%s': %s\n", target, std::strerror(errno));
  return 127;
}
