// The Windows launch recipe, shared by the launcher (shim_win.cpp) and
// `cudnnenv exec` (manager/pin/launch_win.cpp): a job object that ends the
// program with the launcher (kill on close, as scoop's shim does), Ctrl-C
// and Ctrl-Break left to the program, a start with the caller's flags
// (suspended, or under the debugger for --report), the program joined to the
// job before it runs so that its own children are in it too, and the wait
// for its exit code.
#pragma once

#include <windows.h>

#include <cstddef>
#include <string>

namespace cudnnenv::shim {

// The most characters a variable's value may hold: 32,767 with the NUL that
// ends it (SetEnvironmentVariableW). One rule for the shims and exec.
inline constexpr std::size_t k_max_variable_value = 32766;

struct WinChild {
  PROCESS_INFORMATION process{};
  HANDLE job = nullptr;
  // 0, or why the program could not join the job (a job that forbids
  // nesting, before Windows 8): it then outlives a killed launcher.
  DWORD job_error = 0;
};

// Starts `application` with `command_line` (modified in place, as
// CreateProcessW may) and `environment` (a CREATE_UNICODE_ENVIRONMENT block,
// or null: this process's). False when the job or the process cannot be made:
// GetLastError() says why.
bool start_in_job(const wchar_t* application, std::wstring& command_line, wchar_t* environment, DWORD flags,
                  WinChild& child);

// AddDllDirectory(folder) run inside a child started suspended, before any
// of its own code: Python 3.8+ (ctypes, extension modules) loads with
// LOAD_LIBRARY_SEARCH_DEFAULT_DIRS, which searches the program's folder, the
// AddDllDirectory folders and System32, never PATH, and the folders a process
// added are its own (not inherited). A thread of ours in the child calls it
// (kernel32 is mapped at the same address in every process of one bitness
// in a session; the thread's start runs the child's loader first, then
// AddDllDirectory). A child of the other bitness (a 32-bit program: it
// cannot load a 64-bit cuDNN anyway) is left alone: ERROR_NOT_SUPPORTED.
// begin starts the call, end collects it once the thread has ended (a
// debugger must keep handling the child's events in between); 0 on success,
// else an error code.
struct RemoteCall {
  HANDLE thread = nullptr;
  void* memory = nullptr;
};
DWORD begin_add_dll_directory(const WinChild& child, const std::wstring& folder, RemoteCall& call);
// The same for LoadLibraryW(file) with an absolute path: the module is then
// loaded in the child, and a later load of its name by any search gets it
// (the loader reuses a loaded module of the same name).
DWORD begin_load_library(const WinChild& child, const std::wstring& file, RemoteCall& call);
// Either's end: 0 when the function returned non-zero. (Only the low half
// of LoadLibraryW's module handle comes back: a module at an address whose
// low 32 bits are all zero reads as a failure.)
DWORD end_remote_call(const WinChild& child, RemoteCall& call);
// Both, waiting up to 10 s for the thread.
DWORD add_dll_directory_in(const WinChild& child, const std::wstring& folder);
DWORD load_library_in(const WinChild& child, const std::wstring& file);

// Resumes a child started suspended, waits for it, closes its handles and
// returns its exit code.
int resume_and_wait(WinChild& child);

// Closes the handles of a child that has ended; returns its exit code.
int close_child(WinChild& child);

}  // namespace cudnnenv::shim
