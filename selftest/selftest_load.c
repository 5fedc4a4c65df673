/* The program of `cudnnenv selftest`: loads cuDNN as a framework does and
 * prints what cudnnGetVersion() of the copy it got returns.
 *   cudnnenv-selftest-load          loads libcudnn.so.9 by name
 *   cudnnenv-selftest-load PATH     loads that file (an absolute path: what JAX does)
 * Exit 1 with the loader's message on stderr when nothing loads. Built twice
 * on Linux: the second (-rpath) has DT_RPATH $ORIGIN/decoy-lib, which the
 * dynamic loader searches before LD_LIBRARY_PATH. */
#include <stdio.h>
#include <stddef.h>

#if defined(_WIN32)
#include <windows.h>
#else
#include <dlfcn.h>
#endif

typedef size_t (*VersionFunction)(void);

int main(int argc, char** argv) {
#if defined(_WIN32)
  HMODULE library = LoadLibraryA(argc > 1 ? argv[1] : "cudnn64_9.dll");
  if (library == NULL) {
    fprintf(stderr, "LoadLibrary failed: %lu\n", GetLastError());
    return 1;
  }
  VersionFunction version = (VersionFunction)(void*)GetProcAddress(library, "cudnnGetVersion");
#else
  void* library = dlopen(argc > 1 ? argv[1] : "libcudnn.so.9", RTLD_NOW);
  if (library == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  VersionFunction version = (VersionFunction)dlsym(library, "cudnnGetVersion");
#endif
  if (version == NULL) {
    fprintf(stderr, "no cudnnGetVersion in the library loaded\n");
    return 1;
  }
  printf("%zu\n", version());
  return 0;
}
