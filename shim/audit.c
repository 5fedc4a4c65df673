/* libcudnnenv-audit.so: the Linux pin, loaded by ld.so through LD_AUDIT.
 *
 * la_objsearch sees every name the loader is about to search for before it
 * searches (a DT_NEEDED soname, a bare dlopen name, an absolute dlopen path,
 * a sub-library cuDNN's dispatcher opens) and sends the name of each library
 * of a component (components.inc: cuDNN's libcudnn.so*, libcudnn_*.so*; the
 * CUDA runtime's libcudart.so*, libcublas.so*, ...) to the file of that name
 * in the component's folder, which its pin variable names (CUDNNENV_PIN_DIR,
 * CUDNNENV_RUNTIME_DIR). cuDNN's names go there even when the folder lacks
 * the file, so it fails to load rather than loading another copy: pinned
 * means no other cuDNN. The runtime's go there when the folder has a file of
 * that name (a name of another CUDA major stays the program's own). rtld-audit(7); loader-facts.md section 7.
 *
 * The report build also appends to the file CUDNNENV_AUDIT_LOG names, one
 * line per event, "pid<TAB>KIND<TAB>...", for exec --report and --why:
 *   O path             an object mapped
 *   S name requester   a search began: the name asked for, and the object
 *                      that asked (its l_name; empty for the program)
 *   T rule path        a path the search tried, and the rule that put it
 *                      there (pin, LD_LIBRARY_PATH, RUNPATH, ld.so.cache,
 *                      default, secure)
 * A name searched for in a process that never mapped a file of that name
 * did not load.
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
/* components.inc's rows: each component's index, pin variable and rule, and its library stems. */
#define CUDNNENV_INDEX(kind, noun, short_noun, json_key, folder_words, report_label, pin_variable, active_variable, \
                       every_name)                                                                                  \
  component_##kind,
enum { CUDNNENV_COMPONENTS(CUDNNENV_INDEX) component_count };
#define CUDNNENV_PIN_ENTRY(kind, noun, short_noun, json_key, folder_words, report_label, pin_variable, \
                           active_variable, every_name)                                                \
  pin_variable "=",
static const char* const pin_entries[component_count] = {CUDNNENV_COMPONENTS(CUDNNENV_PIN_ENTRY)};
#define CUDNNENV_EVERY_NAME(kind, noun, short_noun, json_key, folder_words, report_label, pin_variable, \
                            active_variable, every_name)                                                \
  every_name,
static const int every_name[component_count] = {CUDNNENV_COMPONENTS(CUDNNENV_EVERY_NAME)};
enum { release_count = 3 }; /* the in11, in12, in13 columns */
struct library {
  const char* stem;
  int component;
  int pinned;
  int family;
  int in_release[release_count];
};
#define CUDNNENV_LIBRARY(kind, stem, pinned, family, in11, in12, in13) \
  {stem, component_##kind, pinned, family, {in11, in12, in13}},
static const struct library libraries[] = {CUDNNENV_LIBRARIES(CUDNNENV_LIBRARY)};
enum { library_count = sizeof libraries / sizeof libraries[0] };

static char folders[component_count][4096];
static size_t folder_lengths[component_count];
static int log_fd = -1;
static int environment_read;

static void take_entry(const char* entry) {
  for (int i = 0; i < component_count; ++i) {
    if (!starts_with(entry, pin_entries[i])) continue;
    const char* value = entry + length_of(pin_entries[i]);
    const size_t length = length_of(value);
    if (length > 0 && length < sizeof folders[i]) {
      copy(folders[i], value, length + 1);
      folder_lengths[i] = length;
    }
    return;
  }
#if defined(CUDNNENV_AUDIT_REPORT)
  if (starts_with(entry, "CUDNNENV_AUDIT_LOG=") && entry[19]) {
    log_fd =
        (int)system_call(SYS_OPENAT, AT_FDCWD, (long)(entry + 19), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0);
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

/* The pinned library a load of `base` names: lib<stem>.so or
 * lib<stem>.so.<...> (a family's also lib<stem>_<part>.so...:
 * libcudnn_ops.so.9.19.0); -1 for every other name. `number` gets the N of
 * lib<stem>.so.N..., or 0. */
static int library_of(const char* base, int* number) {
  if (!starts_with(base, "lib")) return -1;
  for (int i = 0; i < library_count; ++i) {
    const struct library* library = &libraries[i];
    if (!library->pinned || !starts_with(base + 3, library->stem)) continue;
    const char* rest = base + 3 + length_of(library->stem);
    if (library->family && *rest == '_') {
      while (*rest == '_' || (*rest >= 'a' && *rest <= 'z') || (*rest >= '0' && *rest <= '9')) ++rest;
    }
    if (!starts_with(rest, ".so") || (rest[3] != '\0' && rest[3] != '.')) continue;
    *number = 0;
    for (const char* digit = rest + 4; rest[3] == '.' && *digit >= '0' && *digit <= '9'; ++digit) {
      if (*number < 100000) *number = *number * 10 + (*digit - '0');
    }
    return i;
  }
  return -1;
}

static char probe_path[4096 + 64];

/* Whether `folder` holds lib<stem>.so.<number>. */
static int folder_holds(int component, const char* stem, int number) {
  const size_t length = folder_lengths[component], stem_length = length_of(stem);
  if (length == 0 || number <= 0 || length + 1 + 3 + stem_length + 4 + 6 + 1 > sizeof probe_path) return 0;
  size_t used = length;
  copy(probe_path, folders[component], length);
  copy(probe_path + used, "/lib", 4);
  used += 4;
  copy(probe_path + used, stem, stem_length);
  used += stem_length;
  copy(probe_path + used, ".so.", 4);
  used += 4;
  char digits[8];
  int count = 0;
  do {
    digits[count++] = (char)('0' + number % 10);
    number /= 10;
  } while (number > 0);
  while (count > 0) probe_path[used++] = digits[--count];
  probe_path[used] = '\0';
  return system_call(SYS_FACCESSAT, AT_FDCWD, (long)probe_path, 0 /* F_OK */, 0) == 0;
}

/* For a component fenced by its release (every_name 2): the column of the
 * release its folder holds, by the component's first library of the table
 * (libcudart.so.<N>), the newest first; -1 when none. Found once. */
static int pinned_release[component_count];
static int pinned_release_found[component_count];

static int release_of_folder(int component) {
  if (pinned_release_found[component]) return pinned_release[component];
  pinned_release_found[component] = 1;
  pinned_release[component] = -1;
  for (int i = 0; i < library_count; ++i) {
    if (libraries[i].component != component) continue;
    for (int column = release_count - 1; column >= 0; --column) {
      if (folder_holds(component, libraries[i].stem, libraries[i].in_release[column])) {
        pinned_release[component] = column;
        break;
      }
    }
    break;
  }
  return pinned_release[component];
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

#if defined(CUDNNENV_AUDIT_REPORT)
/* One line "pid<TAB>kind<TAB>first[<TAB>second]\n", in one write: O_APPEND
 * keeps lines of concurrent children whole. A line that does not fit is
 * dropped. */
static void log_event(char kind, const char* first, const char* second) {
  if (log_fd < 0) return;
  static char line[8192 + 64];
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
  line[used++] = kind;
  line[used++] = '\t';
  const size_t first_length = length_of(first);
  const size_t second_length = second ? length_of(second) : 0;
  if (used + first_length + 1 + second_length + 1 > sizeof line) return;
  copy(line + used, first, first_length);
  used += first_length;
  if (second) {
    line[used++] = '\t';
    copy(line + used, second, second_length);
    used += second_length;
  }
  line[used++] = '\n';
  system_call(SYS_WRITE, log_fd, (long)line, (long)used, 0);
}

static const char* rule_of(unsigned int flag) {
  switch (flag) {
    case LA_SER_LIBPATH:
      return "LD_LIBRARY_PATH";
    case LA_SER_RUNPATH:
      return "RUNPATH";
    case LA_SER_CONFIG:
      return "ld.so.cache";
    case LA_SER_DEFAULT:
      return "default";
    case LA_SER_SECURE:
      return "secure";
    default:
      return "other";
  }
}

/* The name of the object a search's cookie names (ld.so sets each object's
 * cookie to its link_map, and this module never changes it). */
static const char* requester_of(const uintptr_t* cookie) {
  const struct link_map* map = cookie ? (const struct link_map*)*cookie : 0;
  return map && map->l_name ? map->l_name : "";
}
#endif

char* la_objsearch(const char* name, uintptr_t* cookie, unsigned int flag) {
#if defined(CUDNNENV_AUDIT_REPORT)
  if (!environment_read) read_environment();
  if (flag != LA_SER_ORIG) {
    log_event('T', rule_of(flag), name);
    return (char*)name;
  }
  log_event('S', name, requester_of(cookie));
#else
  (void)cookie;
  if (flag != LA_SER_ORIG) return (char*)name;
#endif
  const char* base = name;
  for (const char* p = name; *p; ++p) {
    if (*p == '/') base = p + 1;
  }
  int number = 0;
  const int library = library_of(base, &number);
  if (library < 0) return (char*)name;
  const int component = libraries[library].component;
  if (!environment_read) read_environment();
  if (!join(folders[component], folder_lengths[component], base)) return (char*)name;
  if (every_name[component] != 1 && system_call(SYS_FACCESSAT, AT_FDCWD, (long)rewritten, 0 /* F_OK */, 0) != 0) {
    /* Not in the folder: fenced (the load fails) when the name is one of
     * the pinned release's; else the program's own. */
    const int column = every_name[component] == 2 ? release_of_folder(component) : -1;
    if (column < 0 || number == 0 || libraries[library].in_release[column] != number) return (char*)name;
  }
#if defined(CUDNNENV_AUDIT_REPORT)
  log_event('T', "pin", rewritten);
#endif
  return rewritten;
}

#if defined(CUDNNENV_AUDIT_REPORT)
unsigned int la_objopen(struct link_map* map, Lmid_t lmid, uintptr_t* cookie) {
  (void)lmid;
  (void)cookie;
  if (!environment_read) read_environment();
  if (map->l_name && map->l_name[0]) log_event('O', map->l_name, 0);
  return 0;
}
#endif
