// The Windows launch recipe, shared by the launcher (shim_win.cpp) and
// `cudnnenv exec` (manager/pin/launch_win.cpp): a job object that ends the
// program with the launcher (kill on close, as scoop's shim does), Ctrl-C
// and Ctrl-Break left to the program, a start with the caller's flags
// (suspended, or under the debugger for --report), the program joined to the
// job before it runs so that its own children are in it too, and the wait
// for its exit code.
#pragma once

#include <windows.h>

#include <string>

namespace cudnnenv::shim {

struct WinChild {
  PROCESS_INFORMATION process{};
  HANDLE job = nullptr;
};

// Starts `application` with `command_line` (modified in place, as
// CreateProcessW may) and `environment` (a CREATE_UNICODE_ENVIRONMENT block,
// or null: this process's). False when the job or the process cannot be made:
// GetLastError() says why.
bool start_in_job(const wchar_t* application, std::wstring& command_line, wchar_t* environment, DWORD flags,
                  WinChild& child);

// Resumes a child started suspended, waits for it, closes its handles and
// returns its exit code.
int resume_and_wait(WinChild& child);

// Closes the handles of a child that has ended; returns its exit code.
int close_child(WinChild& child);

}  // namespace cudnnenv::shim
