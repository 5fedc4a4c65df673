/* The test libraries of `cudnnenv selftest`: stand-ins for cuDNN with
 * cuDNN's version functions, reporting a sentinel version that is no real
 * release (9.90.1 and 9.90.2), so that the selftest can tell which copy a
 * program loaded. Installed under a name no program looks for
 * (cudnnenv-selftest-9.90.N.so / .dll); the selftest copies them into a
 * temporary store under cuDNN's names. */
#include <stddef.h>

#if defined(_WIN32)
#define EXPORT __declspec(dllexport)
#else
#define EXPORT __attribute__((visibility("default")))
#endif

#ifndef SENTINEL_VERSION
#error "SENTINEL_VERSION must be defined (99001 for 9.90.1)"
#endif

EXPORT size_t cudnnGetVersion(void) {
  return SENTINEL_VERSION;
}

EXPORT size_t cudnnGetCudartVersion(void) {
  return 13000;
}

/* libraryPropertyType: 0 major, 1 minor, 2 patch. */
EXPORT int cudnnGetProperty(int type, int* value) {
  switch (type) {
    case 0:
      *value = SENTINEL_VERSION / 10000;
      return 0;
    case 1:
      *value = (SENTINEL_VERSION % 10000) / 100;
      return 0;
    case 2:
      *value = SENTINEL_VERSION % 100;
      return 0;
    default:
      return 3; /* CUDNN_STATUS_BAD_PARAM */
  }
}

EXPORT const char* cudnnGetErrorString(int status) {
  return status == 0 ? "CUDNN_STATUS_SUCCESS" : "CUDNN_STATUS_NOT_SUPPORTED";
}
