/* The audit module's name rules (shim/audit.c, compiled into this target):
 * a name ld.so searches for, any bytes, against a cuDNN folder and a CUDA 13
 * runtime folder (holding libcudart.so.13, so that the runtime's fence by
 * release is taken). la_objsearch returns the name itself or a path in one of
 * the folders; a name of neither table's libraries comes back unchanged. */
#define _GNU_SOURCE /* audit.c's <link.h>: LAV_CURRENT, LA_SER_ORIG */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.c"

static void set_folder(int component, const char* folder) {
  const size_t length = strlen(folder);
  memcpy(folders[component], folder, length + 1);
  folder_lengths[component] = length;
}

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  static char runtime[] = "/tmp/fuzz-audit-XXXXXX";
  if (!mkdtemp(runtime)) abort();
  char cudart[sizeof runtime + 32];
  strcpy(cudart, runtime);
  strcat(cudart, "/libcudart.so.13");
  const int fd = open(cudart, O_CREAT | O_WRONLY, 0644);
  if (fd < 0) abort();
  close(fd);
  environment_read = 1; /* the folders below, not this process's environment */
  set_folder(component_cudnn, "/opt/cudnn/lib");
  set_folder(component_cuda, runtime);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static char name[8192];
  if (size >= sizeof name) return 0;
  memcpy(name, data, size);
  name[size] = '\0';
  const char* found = la_objsearch(name, NULL, LA_SER_ORIG);
  if (found != name && strncmp(found, "/opt/cudnn/lib/", 15) != 0 &&
      strncmp(found, folders[component_cuda], folder_lengths[component_cuda]) != 0) {
    abort();
  }
  return 0;
}
