/* libcudnnenv-audit.so: the Linux pin, loaded by ld.so through LD_AUDIT.
 *
 * la_objsearch sees every name the loader is about to search for before it
 * searches (a DT_NEEDED soname, a bare dlopen name, an absolute dlopen path,
 * a sub-library cuDNN's dispatcher opens) and sends each cuDNN library name
 * (libcudnn.so*, libcudnn_*.so*) to the file of that name in the pinned
 * folder, CUDNNENV_PIN_DIR. A name the folder lacks is sent there anyway, so
 * it fails to load rather than loading another copy: pinned means no other
 * cuDNN. la_objopen appends "pid<TAB>path" for every object that maps to the
 * file CUDNNENV_AUDIT_LOG names, when set (exec --report reads it).
 *
 * ld.so loads auditors in a namespace of their own with their own libc, so
 * this stays small and plain: no allocation after start-up, no stdio.
 * rtld-audit(7); loader-facts.md section 7. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char pin_dir[4096];
static size_t pin_dir_length;
static int log_fd = -1;
static char rewritten[8192];

unsigned int la_version(unsigned int version) {
  (void)version;
  const char* dir = getenv("CUDNNENV_PIN_DIR");
  if (dir && *dir && strlen(dir) < sizeof pin_dir) {
    strcpy(pin_dir, dir);
    pin_dir_length = strlen(pin_dir);
  }
  const char* log = getenv("CUDNNENV_AUDIT_LOG");
  if (log && *log) {
    log_fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  }
  return LAV_CURRENT;
}

/* libcudnn.so, libcudnn.so.9, libcudnn_ops.so.9.19.0, libcudnn_graph.so... */
static int is_cudnn_name(const char* base) {
  if (strncmp(base, "libcudnn", 8) != 0 || (base[8] != '.' && base[8] != '_')) {
    return 0;
  }
  return strstr(base, ".so") != NULL;
}

char* la_objsearch(const char* name, uintptr_t* cookie, unsigned int flag) {
  (void)cookie;
  if (flag != LA_SER_ORIG || pin_dir_length == 0) {
    return (char*)name;
  }
  const char* slash = strrchr(name, '/');
  const char* base = slash ? slash + 1 : name;
  if (!is_cudnn_name(base)) {
    return (char*)name;
  }
  const size_t base_length = strlen(base);
  if (pin_dir_length + 1 + base_length + 1 > sizeof rewritten) {
    return (char*)name;
  }
  /* Already the pinned file: nothing to do. */
  if (slash && (size_t)(slash - name) == pin_dir_length && memcmp(name, pin_dir, pin_dir_length) == 0) {
    return (char*)name;
  }
  memcpy(rewritten, pin_dir, pin_dir_length);
  rewritten[pin_dir_length] = '/';
  memcpy(rewritten + pin_dir_length + 1, base, base_length + 1);
  return rewritten;
}

unsigned int la_objopen(struct link_map* map, Lmid_t lmid, uintptr_t* cookie) {
  (void)lmid;
  (void)cookie;
  if (log_fd >= 0 && map->l_name && map->l_name[0]) {
    char line[8192];
    char digits[24];
    int length = 0;
    pid_t pid = getpid();
    do {
      digits[length++] = (char)('0' + pid % 10);
      pid /= 10;
    } while (pid > 0);
    size_t used = 0;
    while (length > 0) {
      line[used++] = digits[--length];
    }
    line[used++] = '\t';
    const size_t name_length = strlen(map->l_name);
    if (used + name_length + 1 <= sizeof line) {
      memcpy(line + used, map->l_name, name_length);
      used += name_length;
      line[used++] = '\n';
      /* One write of one line: O_APPEND keeps lines of concurrent children whole. */
      (void)!write(log_fd, line, used);
    }
  }
  return 0;
}
