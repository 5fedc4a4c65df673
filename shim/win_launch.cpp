#include "win_launch.hpp"

#include "util/start_retry.hpp"

namespace cudnnenv::shim {

namespace {

BOOL WINAPI leave_to_child(DWORD) {
  return TRUE;  // Ctrl-C and Ctrl-Break are the program's to handle
}

}  // namespace

bool start_in_job(const wchar_t* application, std::wstring& command_line, wchar_t* environment, DWORD flags,
                  WinChild& child) {
  child.job = ::CreateJobObjectW(nullptr, nullptr);
  if (!child.job) {
    return false;
  }
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
  // What the program starts ends with it, unless started to leave the job
  // (CREATE_BREAKAWAY_FROM_JOB), as Windows' own shells allow.
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_BREAKAWAY_OK;
  if (!::SetInformationJobObject(child.job, JobObjectExtendedLimitInformation, &limits, sizeof limits)) {
    const DWORD error = ::GetLastError();
    ::CloseHandle(child.job);
    child.job = nullptr;
    ::SetLastError(error);
    return false;
  }
  // Before the start: a Ctrl-C in between would end the launcher and,
  // through the job, the program.
  ::SetConsoleCtrlHandler(leave_to_child, TRUE);
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  const DWORD error = util::start_with_retry(
      [&]() -> unsigned long {
        return ::CreateProcessW(application, command_line.data(), nullptr, nullptr, TRUE,
                                flags | (environment ? CREATE_UNICODE_ENVIRONMENT : 0), environment, nullptr, &startup,
                                &child.process)
                   ? 0
                   : ::GetLastError();
      },
      [] { ::Sleep(100); });
  if (error != 0) {
    ::CloseHandle(child.job);
    child.job = nullptr;
    ::SetLastError(error);
    return false;
  }
  // Joined before it runs. A failure (a job that forbids nesting, before
  // Windows 8) leaves the program running outside the job: it then outlives
  // a killed launcher, which is all the job is for.
  child.job_error = ::AssignProcessToJobObject(child.job, child.process.hProcess) ? 0 : ::GetLastError();
  return true;
}

namespace {

// `function` of kernel32 (one pointer in, one out) run as a thread of the
// child, with a copy of `text` as its argument.
DWORD begin_remote_call(const WinChild& child, const char* function, const std::wstring& text, RemoteCall& call) {
  BOOL ours = FALSE, theirs = FALSE;
  if (!::IsWow64Process(::GetCurrentProcess(), &ours) || !::IsWow64Process(child.process.hProcess, &theirs)) {
    return ::GetLastError();
  }
  if (ours != theirs) {
    return ERROR_NOT_SUPPORTED;
  }
  const HMODULE kernel32 = ::GetModuleHandleW(L"kernel32.dll");
  const FARPROC add = kernel32 ? ::GetProcAddress(kernel32, function) : nullptr;
  if (!add) {
    return ERROR_PROC_NOT_FOUND;
  }
  const SIZE_T bytes = (text.size() + 1) * sizeof(wchar_t);
  call.memory = ::VirtualAllocEx(child.process.hProcess, nullptr, bytes, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
  if (!call.memory) {
    return ::GetLastError();
  }
  if (!::WriteProcessMemory(child.process.hProcess, call.memory, text.c_str(), bytes, nullptr)) {
    const DWORD error = ::GetLastError();
    ::VirtualFreeEx(child.process.hProcess, call.memory, 0, MEM_RELEASE);
    call.memory = nullptr;
    return error;
  }
  // AddDllDirectory(PCWSTR) or LoadLibraryW(PCWSTR) as a thread's start: one pointer in, one out.
  call.thread = ::CreateRemoteThread(child.process.hProcess, nullptr, 0,
                                     reinterpret_cast<LPTHREAD_START_ROUTINE>(reinterpret_cast<void*>(add)),
                                     call.memory, 0, nullptr);
  if (!call.thread) {
    const DWORD error = ::GetLastError();
    ::VirtualFreeEx(child.process.hProcess, call.memory, 0, MEM_RELEASE);
    call.memory = nullptr;
    return error;
  }
  return 0;
}

}  // namespace

DWORD begin_add_dll_directory(const WinChild& child, const std::wstring& folder, RemoteCall& call) {
  return begin_remote_call(child, "AddDllDirectory", folder, call);
}

DWORD begin_load_library(const WinChild& child, const std::wstring& file, RemoteCall& call) {
  return begin_remote_call(child, "LoadLibraryW", file, call);
}

DWORD end_remote_call(const WinChild& child, RemoteCall& call) {
  DWORD cookie = 0;  // the low half of the function's result: 0 when it failed
  const BOOL ended = ::GetExitCodeThread(call.thread, &cookie) && cookie != STILL_ACTIVE;
  ::CloseHandle(call.thread);
  if (ended) ::VirtualFreeEx(child.process.hProcess, call.memory, 0, MEM_RELEASE);  // else still in use: left
  call = RemoteCall{};
  return !ended ? ERROR_TIMEOUT : cookie == 0 ? ERROR_GEN_FAILURE : 0;
}

DWORD add_dll_directory_in(const WinChild& child, const std::wstring& folder) {
  RemoteCall call;
  if (const DWORD error = begin_add_dll_directory(child, folder, call)) {
    return error;
  }
  ::WaitForSingleObject(call.thread, 10000);
  return end_remote_call(child, call);
}

DWORD load_library_in(const WinChild& child, const std::wstring& file) {
  RemoteCall call;
  if (const DWORD error = begin_load_library(child, file, call)) {
    return error;
  }
  ::WaitForSingleObject(call.thread, 60000);  // its DllMain, and its imports' (cuBLAS is large)
  return end_remote_call(child, call);
}

int close_child(WinChild& child) {
  DWORD code = 0;
  ::GetExitCodeProcess(child.process.hProcess, &code);
  ::CloseHandle(child.process.hThread);
  ::CloseHandle(child.process.hProcess);
  ::CloseHandle(child.job);
  child = WinChild{};
  return static_cast<int>(code);
}

int resume_and_wait(WinChild& child) {
  ::ResumeThread(child.process.hThread);
  ::WaitForSingleObject(child.process.hProcess, INFINITE);
  return close_child(child);
}

}  // namespace cudnnenv::shim
