/* The program of `cudnnenv selftest`: loads cuDNN as a framework does and
 * prints what cudnnGetVersion() of the copy it got returns, a tab, and the
 * file that copy was loaded from (the loader's own name for it: dladdr's,
 * GetModuleFileNameW's), so that the selftest names exactly what loaded.
 *
 * Linux:
 *   cudnnenv-selftest-load          loads libcudnn.so.9 by name
 *   cudnnenv-selftest-load NAME     loads that name (libcudnn.so.8), or that
 *                                   file by absolute path (what JAX does)
 *   cudnnenv-selftest-load NAME SUB also SUB by bare name afterwards, as
 *                                   cuDNN's dispatcher opens a sub-library
 * Built three times on Linux: -rpath has DT_RPATH $ORIGIN/decoy-lib, which
 * the dynamic loader searches before LD_LIBRARY_PATH, and -runpath the same
 * folder as DT_RUNPATH (the linkers' default), searched after it.
 *
 * Windows: [--name DLL] STYLE ..., the DLL cudnn64_9.dll unless named
 * (cudnn64_8.dll); the style:
 *   bare                LoadLibraryW(DLL)
 *   altered             LoadLibraryExW with LOAD_WITH_ALTERED_SEARCH_PATH (TensorFlow)
 *   default-dirs        SetDefaultDllDirectories(LOAD_LIBRARY_SEARCH_DEFAULT_DIRS),
 *                       then a load with that flag (Python 3.8+'s ctypes)
 *   add-dll-directory DIR
 *                       the same after AddDllDirectory(DIR), a folder of the
 *                       program's own (Python's os.add_dll_directory)
 *   path FILE           LoadLibraryW(FILE), by full path (PyTorch's torch\lib)
 *   child DIR           puts DIR first on PATH and starts itself with `bare` (and --name),
 *                       as a program that starts another does (a grandchild
 *                       of the launcher); its exit code is this one's
 *   sub DLL             `bare`, then LoadLibraryW(DLL), as cuDNN 9's dispatcher
 *                       opens a sub-library by bare name
 * With a sub-library, a line for it too, "-<tab>NAME" when it did not load.
 * Exit 1 with the loader's message on stderr when a library does not load,
 * 2 on a wrong command line. */
#if !defined(_WIN32)
#define _GNU_SOURCE /* dladdr */
#endif
#include <stddef.h>
#include <stdio.h>

#if defined(_WIN32)
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0A00
#endif
#include <windows.h>
#include <process.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#else
#include <dlfcn.h>
#endif

typedef size_t (*VersionFunction)(void);

/* VERSION<tab>FILE; `file` is UTF-8. */
static int print_version(VersionFunction version, const char* file) {
  if (version == NULL) {
    fprintf(stderr, "no cudnnGetVersion in the library loaded\n");
    return 1;
  }
  printf("%zu\t%s\n", version(), file);
  return 0;
}

#if defined(_WIN32)

static const wchar_t* g_name = L"cudnn64_9.dll"; /* --name */

static int usage(void) {
  fprintf(stderr,
          "usage: cudnnenv-selftest-load [--name DLL] bare | altered | default-dirs | add-dll-directory DIR | "
          "path FILE | child DIR\n");
  return 2;
}

/* PATH = DIR;PATH, then this program again with `bare` (and the DLL's
 * name), its output on ours. */
static int start_child(const wchar_t* self, const wchar_t* folder) {
  const wchar_t* path = _wgetenv(L"PATH");
  size_t size = wcslen(folder) + (path ? wcslen(path) : 0) + 2;
  wchar_t* value = (wchar_t*)malloc(size * sizeof(wchar_t));
  if (value == NULL) return 1;
  swprintf(value, size, L"%ls;%ls", folder, path ? path : L"");
  if (_wputenv_s(L"PATH", value) != 0) return 1;
  free(value);
  fflush(stdout);
  /* _wspawnv joins its arguments with spaces: a path with one is quoted. */
  size_t quoted_size = wcslen(self) + 3;
  wchar_t* quoted = (wchar_t*)malloc(quoted_size * sizeof(wchar_t));
  if (quoted == NULL) return 1;
  swprintf(quoted, quoted_size, L"\"%ls\"", self);
  const wchar_t* arguments[] = {quoted, L"--name", g_name, L"bare", NULL};
  intptr_t status = _wspawnv(_P_WAIT, self, arguments);
  free(quoted);
  if (status == -1) {
    fprintf(stderr, "cannot start the child: %lu\n", GetLastError());
    return 1;
  }
  return (int)status;
}

static int print_module(HMODULE library);

int main(void) {
  int argc = 0;
  wchar_t** argv = CommandLineToArgvW(GetCommandLineW(), &argc);
  if (argv == NULL) return usage();
  if (argc >= 3 && wcscmp(argv[1], L"--name") == 0) {
    g_name = argv[2];
    argv += 2;
    argc -= 2;
  }
  if (argc < 2) return usage();
  const wchar_t* style = argv[1];
  HMODULE library = NULL;
  const wchar_t* sub = NULL;
  if ((wcscmp(style, L"bare") == 0 && argc == 2) || (wcscmp(style, L"sub") == 0 && argc == 3)) {
    if (argc == 3) sub = argv[2];
    library = LoadLibraryW(g_name);
  } else if (wcscmp(style, L"altered") == 0 && argc == 2) {
    library = LoadLibraryExW(g_name, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
  } else if (wcscmp(style, L"default-dirs") == 0 && argc == 2) {
    SetDefaultDllDirectories(LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
    library = LoadLibraryExW(g_name, NULL, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
  } else if (wcscmp(style, L"add-dll-directory") == 0 && argc == 3) {
    SetDefaultDllDirectories(LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
    if (AddDllDirectory(argv[2]) == NULL) {
      fprintf(stderr, "AddDllDirectory failed: %lu\n", GetLastError());
      return 1;
    }
    library = LoadLibraryExW(g_name, NULL, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
  } else if (wcscmp(style, L"path") == 0 && argc == 3) {
    library = LoadLibraryW(argv[2]);
  } else if (wcscmp(style, L"child") == 0 && argc == 3) {
    wchar_t self[32768];
    const DWORD length = GetModuleFileNameW(NULL, self, 32768);
    if (length == 0 || length >= 32768) return 1;
    return start_child(self, argv[2]);
  } else {
    return usage();
  }
  const int status = print_module(library);
  if (status != 0 || sub == NULL) return status;
  HMODULE second = LoadLibraryW(sub);
  if (second == NULL) {
    char name[1024];
    WideCharToMultiByte(CP_UTF8, 0, sub, -1, name, (int)sizeof(name), NULL, NULL);
    printf("-\t%s\n", name);
  }
  return print_module(second);
}

/* The module's VERSION<tab>FILE line; 1 when it did not load. */
static int print_module(HMODULE library) {
  if (library == NULL) {
    fprintf(stderr, "LoadLibrary failed: %lu\n", GetLastError());
    return 1;
  }
  static wchar_t file[32768];
  static char file_utf8[4 * 32768];
  const DWORD length = GetModuleFileNameW(library, file, 32768);
  if (length == 0 || length >= 32768 ||
      WideCharToMultiByte(CP_UTF8, 0, file, -1, file_utf8, (int)sizeof(file_utf8), NULL, NULL) == 0) {
    fprintf(stderr, "GetModuleFileNameW failed: %lu\n", GetLastError());
    return 1;
  }
  return print_version((VersionFunction)(void*)GetProcAddress(library, "cudnnGetVersion"), file_utf8);
}

#else

/* NAME's VERSION<tab>FILE line; 1 when it did not load. */
static int load(const char* name) {
  void* library = dlopen(name, RTLD_NOW);
  if (library == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  VersionFunction version = (VersionFunction)dlsym(library, "cudnnGetVersion");
  Dl_info where;
  if (version != NULL && (dladdr((void*)version, &where) == 0 || where.dli_fname == NULL)) {
    fprintf(stderr, "dladdr found no file for cudnnGetVersion\n");
    return 1;
  }
  return print_version(version, version != NULL ? where.dli_fname : "");
}

int main(int argc, char** argv) {
  const int status = load(argc > 1 ? argv[1] : "libcudnn.so.9");
  if (status != 0 || argc < 3) return status;
  if (load(argv[2]) == 0) return 0;
  printf("-\t%s\n", argv[2]);
  return 1;
}

#endif
