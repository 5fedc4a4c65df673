/* What a program linked against cmake/glibc_floor.py's stand-ins needs on a
 * glibc older than the one it was built with (the floor: 2.28).
 *
 * The static libstdc++ and libgcc of this toolchain were built against glibc
 * 2.36 and call three functions that older glibc lacks; the program defines
 * them itself, so the calls never reach glibc:
 * - __libc_single_threaded (2.32): libstdc++ skips atomic reference counts
 *   while it is set; zero here, so they are always atomic.
 * - arc4random (2.36): std::random_device; here from getrandom (2.25).
 * - _dl_find_object (2.35): the unwinder's lookup of a frame's unwind table
 *   for an exception; here from dl_iterate_phdr, as libgcc did before it.
 *
 * The start: this toolchain's Scrt1.o passes no initializer to
 * __libc_start_main, since glibc 2.34 runs the program's DT_INIT_ARRAY
 * itself; glibc before 2.34 runs it only through that initializer. The link
 * wraps main (-Wl,--wrap=main): when this file's own constructor has not run
 * by then, none has, and the wrapper runs the array in order, as
 * __libc_csu_init did, before the program's main. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/random.h>

char __libc_single_threaded = 0;

static void fill_random(void* buffer, size_t size) {
  unsigned char* at = buffer;
  while (size > 0) {
    const ssize_t got = getrandom(at, size, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      __builtin_trap(); /* arc4random cannot fail; no entropy is not a state to go on in */
    }
    at += got;
    size -= (size_t)got;
  }
}

uint32_t arc4random(void) {
  uint32_t value;
  fill_random(&value, sizeof value);
  return value;
}

void arc4random_buf(void* buffer, size_t size) {
  fill_random(buffer, size);
}

struct find_object {
  uintptr_t address;
  struct dl_find_object* result;
  int found;
};

static int find_object_in(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct find_object* search = data;
  uintptr_t start = UINTPTR_MAX, end = 0;
  const void* eh_frame = NULL;
  int contains = 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* header = &info->dlpi_phdr[i];
    const uintptr_t first = info->dlpi_addr + header->p_vaddr;
    if (header->p_type == PT_LOAD) {
      if (first < start) start = first;
      if (first + header->p_memsz > end) end = first + header->p_memsz;
      if (search->address >= first && search->address < first + header->p_memsz) contains = 1;
    } else if (header->p_type == PT_GNU_EH_FRAME) {
      eh_frame = (const void*)first;
    }
  }
  if (!contains) return 0;
  search->result->dlfo_flags = 0;
  search->result->dlfo_map_start = (void*)start;
  search->result->dlfo_map_end = (void*)end;
  search->result->dlfo_link_map = NULL;
  search->result->dlfo_eh_frame = (void*)eh_frame;
  search->found = 1;
  return 1;
}

int _dl_find_object(void* address, struct dl_find_object* result) {
  struct find_object search = {(uintptr_t)address, result, 0};
  dl_iterate_phdr(find_object_in, &search);
  return search.found ? 0 : -1;
}

typedef void (*initializer)(int, char**, char**);
extern initializer __init_array_start[] __attribute__((visibility("hidden")));
extern initializer __init_array_end[] __attribute__((visibility("hidden")));

static int constructors_ran = 0;
__attribute__((constructor)) static void note_constructors_ran(void) {
  constructors_ran = 1;
}

int __real_main(int argc, char** argv, char** envp);

int __wrap_main(int argc, char** argv, char** envp) {
  if (!constructors_ran) {
    const size_t count = (size_t)(__init_array_end - __init_array_start);
    for (size_t i = 0; i < count; ++i) __init_array_start[i](argc, argv, envp);
  }
  return __real_main(argc, argv, envp);
}
