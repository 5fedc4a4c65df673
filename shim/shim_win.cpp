// cudnnenv-shim.exe on Windows: copied as NAME.exe beside NAME.shim (as
// scoop's shims are). It puts the tree's bin folder first on the child's
// PATH and calls SetDllDirectoryW(bin), which real Windows passes to child
// processes (Wine does not: under Wine, PATH alone carries the pin). The
// child starts suspended, joins a job object that dies with the launcher,
// then runs; Ctrl-C and Ctrl-Break are left to it, and its exit code is
// returned. Reporting loads and policy checks belong to the launcher issue.
#include <windows.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "sidecar.hpp"

namespace {

std::wstring widen(const char* text) {
  const int length = ::MultiByteToWideChar(CP_UTF8, 0, text, -1, nullptr, 0);
  std::wstring wide(static_cast<std::size_t>(length > 0 ? length - 1 : 0), L'\0');
  ::MultiByteToWideChar(CP_UTF8, 0, text, -1, wide.data(), length);
  return wide;
}

int fail(const wchar_t* what, const std::wstring& detail) {
  std::fwprintf(stderr, L"cudnnenv-shim: error: %ls%ls\n", what, detail.c_str());
  return 127;
}

// The part of the command line after argv[0], by the rules the MSVC runtime
// uses to split it (argv[0] ends at the first unquoted space; quotes toggle).
const wchar_t* after_program_name(const wchar_t* line) {
  bool quoted = false;
  for (; *line; ++line) {
    if (*line == L'"') {
      quoted = !quoted;
    } else if (!quoted && (*line == L' ' || *line == L'\t')) {
      break;
    }
  }
  while (*line == L' ' || *line == L'\t') {
    ++line;
  }
  return line;
}

BOOL WINAPI ignore_control(DWORD) { return TRUE; }  // the child handles Ctrl-C

}  // namespace

int wmain() {
  std::wstring self(32768, L'\0');
  self.resize(::GetModuleFileNameW(nullptr, self.data(), static_cast<DWORD>(self.size())));
  std::wstring sidecar_path = self;
  const std::size_t dot = sidecar_path.rfind(L'.');
  sidecar_path = (dot != std::wstring::npos ? sidecar_path.substr(0, dot) : sidecar_path) + L".shim";

  HANDLE file = ::CreateFileW(sidecar_path.c_str(), GENERIC_READ, FILE_SHARE_READ, nullptr, OPEN_EXISTING, 0, nullptr);
  if (file == INVALID_HANDLE_VALUE) {
    return fail(L"cannot read ", sidecar_path);
  }
  static char text[16384];
  DWORD size = 0;
  ::ReadFile(file, text, sizeof text, &size, nullptr);
  ::CloseHandle(file);
  static cudnnenv::shim::Sidecar sidecar;
  char error[256];
  if (!cudnnenv::shim::parse_sidecar(text, size, sidecar, error, sizeof error)) {
    return fail(L"", sidecar_path + L": " + widen(error));
  }
  const std::wstring target = widen(sidecar.path);
  if (::CompareStringOrdinal(target.c_str(), -1, self.c_str(), -1, TRUE) == CSTR_EQUAL) {
    return fail(L"the shim would start itself: ", sidecar_path);
  }

  if (sidecar.library_dir[0] != '\0') {
    const std::wstring bin = widen(sidecar.library_dir);
    std::wstring path(32767, L'\0');
    path.resize(::GetEnvironmentVariableW(L"PATH", path.data(), static_cast<DWORD>(path.size())));
    const std::wstring pinned = path.empty() ? bin : bin + L";" + path;
    ::SetEnvironmentVariableW(L"PATH", pinned.c_str());  // inherited by the child: what Wine honours
    ::SetDllDirectoryW(bin.c_str());                     // inherited on real Windows, ahead of PATH
  }

  std::wstring command_line = L"\"" + target + L"\"";
  if (sidecar.args[0] != '\0') {
    command_line += L" " + widen(sidecar.args);
  }
  const wchar_t* rest = after_program_name(::GetCommandLineW());
  if (*rest) {
    command_line += L" ";
    command_line += rest;
  }

  HANDLE job = ::CreateJobObjectW(nullptr, nullptr);
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
  ::SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof limits);

  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  PROCESS_INFORMATION process{};
  if (!::CreateProcessW(target.c_str(), command_line.data(), nullptr, nullptr, TRUE, CREATE_SUSPENDED, nullptr,
                        nullptr, &startup, &process)) {
    return fail(L"cannot start ", target);
  }
  ::AssignProcessToJobObject(job, process.hProcess);
  ::SetConsoleCtrlHandler(ignore_control, TRUE);
  ::ResumeThread(process.hThread);
  ::WaitForSingleObject(process.hProcess, INFINITE);
  DWORD code = 0;
  ::GetExitCodeProcess(process.hProcess, &code);
  return static_cast<int>(code);
}
