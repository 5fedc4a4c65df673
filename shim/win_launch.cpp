#include "win_launch.hpp"

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
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
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
  if (!::CreateProcessW(application, command_line.data(), nullptr, nullptr, TRUE,
                        flags | (environment ? CREATE_UNICODE_ENVIRONMENT : 0), environment, nullptr, &startup,
                        &child.process)) {
    const DWORD error = ::GetLastError();
    ::CloseHandle(child.job);
    child.job = nullptr;
    ::SetLastError(error);
    return false;
  }
  // Joined before it runs. A failure (a job that forbids nesting, before
  // Windows 8) leaves the program running outside the job: it then outlives
  // a killed launcher, which is all the job is for.
  ::AssignProcessToJobObject(child.job, child.process.hProcess);
  return true;
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
