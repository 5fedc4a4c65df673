/* libcudnnenv-audit.so: the Linux pin, loaded by ld.so through LD_AUDIT.
 *
 * la_objsearch sees every name the loader is about to search for before it
 * searches (a DT_NEEDED soname, a bare dlopen name, an absolute dlopen path,
 * a sub-library cuDNN's dispatcher opens) and sends each cuDNN library name
 * (libcudnn.so*, libcudnn_*.so*) to the file of that name in the pinned
 * folder, CUDNNENV_PIN_DIR. A name the folder lacks is sent there anyway, so
 * it fails to load rather than loading another copy: pinned means no other
 * cuDNN. With a CUDA runtime tree selected, CUDNNENV_RUNTIME_DIR, the names of
 * the runtime libraries frameworks open (libcudart.so*, libcublas.so*,
 * libcublasLt.so*, libcufft*, libcurand*, libcusolver*, libcusparse*,
 * libnvrtc*, libnvJitLink*) go to that folder when it has a file of that
 * name (a name of another CUDA major stays the program's own). la_objopen appends "pid<TAB>path" for every object that
 * maps to the file CUDNNENV_AUDIT_LOG names, when set (exec --report reads it). rtld-audit(7); loader-facts.md
 * section 7.
 *
 * Built twice: libcudnnenv-audit.so (the pin: la_objsearch only) and, with
 * CUDNNENV_AUDIT_REPORT, libcudnnenv-audit-report.so (the pin and the log,
 * for exec --report): each hook the loader calls costs every start of every
 * pinned program, cuDNN user or not.
 *
 * Without the C library (-nostdlib, raw system calls): ld.so gives an
 * auditor a namespace of its own, and the first call into a libc there cost
 * every pinned program's start 0.7 ms here (bench/shim_overhead.sh), ten
 * times what the loader's audit hooks cost. The environment is read from
 * /proc/self/environ, once, when first needed: by the pin, only when a
 * cuDNN name is searched for. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "components.inc"

#if defined(__x86_64__)
#define SYS_OPENAT 257
#define SYS_READ 0
#define SYS_WRITE 1
#define SYS_CLOSE 3
#define SYS_GETPID 39
#define SYS_FACCESSAT 269
static long system_call(long number, long a, long b, long c, long d) {
  long result;
  register long r10 __asm__("r10") = d;
  __asm__ volatile("syscall" : "=a"(result) : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
  return result;
}
#elif defined(__aarch64__)
#define SYS_OPENAT 56
#define SYS_READ 63
#define SYS_WRITE 64
#define SYS_CLOSE 57
#define SYS_GETPID 172
#define SYS_FACCESSAT 48
static long system_call(long number, long a, long b, long c, long d) {
  register long x8 __asm__("x8") = number;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
  return x0;
}
#else
#error "the audit module has system calls for x86-64 and aarch64 only"
#endif

static size_t length_of(const char* text) {
  size_t length = 0;
  while (text[length]) ++length;
  return length;
}

static int starts_with(const char* text, const char* prefix) {
  while (*prefix) {
    if (*text++ != *prefix++) return 0;
  }
  return 1;
}

static void copy(char* to, const char* from, size_t length) {
  for (size_t i = 0; i < length; ++i) to[i] = from[i];
}

/* The two variables, from the environment this process was started with. */
static char pin_dir[4096];
static size_t pin_dir_length;
static char runtime_dir[4096];
static size_t runtime_dir_length;
static int log_fd = -1;
static int environment_read;

static void take_entry(const char* entry) {
  static const char pin_entry[] = CUDNNENV_PIN_VARIABLE_CUDNN "=";
  static const char runtime_entry[] = CUDNNENV_PIN_VARIABLE_RUNTIME "=";
  if (starts_with(entry, pin_entry)) {
    const size_t length = length_of(entry + sizeof pin_entry - 1);
    if (length > 0 && length < sizeof pin_dir) {
      copy(pin_dir, entry + sizeof pin_entry - 1, length + 1);
      pin_dir_length = length;
    }
  } else if (starts_with(entry, runtime_entry)) {
    const size_t length = length_of(entry + sizeof runtime_entry - 1);
    if (length > 0 && length < sizeof runtime_dir) {
      copy(runtime_dir, entry + sizeof runtime_entry - 1, length + 1);
      runtime_dir_length = length;
    }
  }
#if defined(CUDNNENV_AUDIT_REPORT)
  else if (starts_with(entry, "CUDNNENV_AUDIT_LOG=") && entry[19]) {
    log_fd =
        (int)system_call(SYS_OPENAT, AT_FDCWD, (long)(entry + 19), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  }
#endif
}

/* /proc/self/environ through a small window: whole entries are taken, the
 * unfinished one moves to the front; an entry longer than the window is
 * skipped (neither variable can be that long). */
static void read_environment(void) {
  environment_read = 1;
  static char window[8192];
  const long fd = system_call(SYS_OPENAT, AT_FDCWD, (long)"/proc/self/environ", O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return;
  size_t used = 0;
  int skipping = 0;
  for (;;) {
    const long got = system_call(SYS_READ, fd, (long)(window + used), (long)(sizeof window - 1 - used), 0);
    if (got <= 0) break;
    used += (size_t)got;
    size_t start = 0;
    for (size_t i = 0; i < used; ++i) {
      if (window[i] != '\0') continue;
      if (!skipping) take_entry(window + start);
      skipping = 0;
      start = i + 1;
    }
    if (start == 0 && used == sizeof window - 1) {
      skipping = 1; /* one entry fills the window: drop it */
      used = 0;
      continue;
    }
    copy(window, window + start, used - start);
    used -= start;
  }
  system_call(SYS_CLOSE, fd, 0, 0, 0);
}

unsigned int la_version(unsigned int version) {
  (void)version;
  return LAV_CURRENT;
}

/* libcudnn.so, libcudnn.so.9, libcudnn_ops.so.9.19.0, libcudnn_graph.so... */
static int is_cudnn_name(const char* base) {
  if (!starts_with(base, "libcudnn") || (base[8] != '.' && base[8] != '_')) return 0;
  for (const char* p = base; *p; ++p) {
    if (p[0] == '.' && p[1] == 's' && p[2] == 'o' && (p[3] == '\0' || p[3] == '.')) return 1;
  }
  return 0;
}

/* lib<stem>.so... for the CUDA runtime libraries a framework opens by name
 * that the pin sends to the runtime tree (components.inc: the store's list). */
#define CUDNNENV_PINNED_STEM(stem, pinned) (pinned) ? "lib" stem ".so" : 0,
static int is_runtime_name(const char* base) {
  static const char* const stems[] = {CUDNNENV_RUNTIME_LIBRARIES(CUDNNENV_PINNED_STEM)};
  for (size_t i = 0; i < sizeof stems / sizeof stems[0]; ++i) {
    const char* stem = stems[i];
    if (!stem) continue;
    const size_t length = length_of(stem);
    if (starts_with(base, stem) && (base[length] == '\0' || base[length] == '.')) return 1;
  }
  return 0;
}

static char rewritten[8192];

/* `folder`/`base` in `rewritten`, or 0 when it does not fit. */
static int join(const char* folder, size_t folder_length, const char* base) {
  const size_t base_length = length_of(base);
  if (folder_length == 0 || folder_length + 1 + base_length + 1 > sizeof rewritten) return 0;
  copy(rewritten, folder, folder_length);
  rewritten[folder_length] = '/';
  copy(rewritten + folder_length + 1, base, base_length + 1);
  return 1;
}

char* la_objsearch(const char* name, uintptr_t* cookie, unsigned int flag) {
  (void)cookie;
  if (flag != LA_SER_ORIG) return (char*)name;
  const char* base = name;
  for (const char* p = name; *p; ++p) {
    if (*p == '/') base = p + 1;
  }
  if (is_cudnn_name(base)) {
    if (!environment_read) read_environment();
    return join(pin_dir, pin_dir_length, base) ? rewritten : (char*)name;
  }
  if (is_runtime_name(base)) {
    if (!environment_read) read_environment();
    if (!join(runtime_dir, runtime_dir_length, base)) return (char*)name;
    /* Only a name the runtime tree has: another major's stays the program's own. */
    if (system_call(SYS_FACCESSAT, AT_FDCWD, (long)rewritten, 0 /* F_OK */, 0) != 0) return (char*)name;
    return rewritten;
  }
  return (char*)name;
}

#if defined(CUDNNENV_AUDIT_REPORT)
unsigned int la_objopen(struct link_map* map, Lmid_t lmid, uintptr_t* cookie) {
  (void)lmid;
  (void)cookie;
  if (!environment_read) read_environment();
  if (log_fd < 0 || !map->l_name || !map->l_name[0]) return 0;
  char line[8192];
  char digits[24];
  int count = 0;
  long pid = system_call(SYS_GETPID, 0, 0, 0, 0);
  do {
    digits[count++] = (char)('0' + pid % 10);
    pid /= 10;
  } while (pid > 0);
  size_t used = 0;
  while (count > 0) line[used++] = digits[--count];
  line[used++] = '\t';
  const size_t name_length = length_of(map->l_name);
  if (used + name_length + 1 <= sizeof line) {
    copy(line + used, map->l_name, name_length);
    used += name_length;
    line[used++] = '\n';
    /* One write of one line: O_APPEND keeps lines of concurrent children whole. */
    system_call(SYS_WRITE, log_fd, (long)line, (long)used, 0);
  }
  return 0;
}
#endif
