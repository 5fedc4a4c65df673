// cudnnenv-shim on Linux: started through a link named NAME in the shims
// folder, it reads NAME.shim beside that link, puts the tree's library folder
// first on LD_LIBRARY_PATH and execv()s the target: same PID, the target's
// signals and exit code. Pinning beyond LD_LIBRARY_PATH (the LD_AUDIT module)
// and target lookup on PATH belong to the launcher issue.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "sidecar.hpp"

namespace {

[[noreturn]] void die(const char* what, const char* detail) {
  std::fprintf(stderr, "cudnnenv-shim: error: %s%s\n", what, detail);
  std::exit(127);
}

}  // namespace

int main(int argc, char** argv) {
  using cudnnenv::shim::Sidecar;
  // argv[0] as the shell ran it: through PATH it is the link's full path
  // only when given with a slash; otherwise find it on PATH ourselves.
  char invoked[4096];
  const char* name = std::strrchr(argv[0], '/') ? std::strrchr(argv[0], '/') + 1 : argv[0];
  if (std::strchr(argv[0], '/')) {
    std::snprintf(invoked, sizeof invoked, "%s", argv[0]);
  } else {
    const char* path = std::getenv("PATH");
    bool found = false;
    for (const char* p = path; p && *p && !found;) {
      const char* colon = std::strchr(p, ':');
      const int length = colon ? static_cast<int>(colon - p) : static_cast<int>(std::strlen(p));
      std::snprintf(invoked, sizeof invoked, "%.*s/%s", length, p, name);
      found = ::access(invoked, X_OK) == 0;
      p = colon ? colon + 1 : nullptr;
    }
    if (!found) {
      die("cannot find the launcher's own file for ", name);
    }
  }
  char sidecar_path[4200];
  std::snprintf(sidecar_path, sizeof sidecar_path, "%s.shim", invoked);
  const int fd = ::open(sidecar_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    die("cannot read ", sidecar_path);
  }
  char text[16384];
  const ssize_t size = ::read(fd, text, sizeof text);
  ::close(fd);
  Sidecar sidecar;
  char error[256];
  if (size < 0 || !cudnnenv::shim::parse_sidecar(text, static_cast<std::size_t>(size), sidecar, error, sizeof error)) {
    std::fprintf(stderr, "cudnnenv-shim: error: %s: %s\n", sidecar_path, size < 0 ? "unreadable" : error);
    return 127;
  }
  if (sidecar.library_dir[0] != '\0') {
    const char* existing = std::getenv("LD_LIBRARY_PATH");
    static char value[16384];
    std::snprintf(value, sizeof value, existing && *existing ? "%s:%s" : "%s", sidecar.library_dir, existing);
    ::setenv("LD_LIBRARY_PATH", value, 1);
  }
  // args = ... is split on spaces (no quoting): enough for flags like -X utf8.
  static char* arguments[4096];
  int count = 0;
  arguments[count++] = sidecar.path;
  for (char* token = std::strtok(sidecar.args, " \t"); token && count < 2048; token = std::strtok(nullptr, " \t")) {
    arguments[count++] = token;
  }
  for (int i = 1; i < argc && count < 4095; ++i) {
    arguments[count++] = argv[i];
  }
  arguments[count] = nullptr;
  ::execv(sidecar.path, arguments);
  std::fprintf(stderr, "cudnnenv-shim: error: cannot start '%s': %s\n", sidecar.path, std::strerror(errno));
  return 127;
}
