#include <windows.h>

#include "pin/launch.hpp"

#include "batch_command.hpp"
#include "util/process.hpp"
#include "util/text.hpp"
#include "util/win.hpp"

namespace cudnnenv {

namespace {

BOOL WINAPI leave_to_child(DWORD) {
  return TRUE;
}  // Ctrl-C and Ctrl-Break are the program's to handle

// cmd.exe in the system folder, never one found on PATH or in the working folder.
std::wstring system_cmd() {
  wchar_t folder[MAX_PATH];
  const UINT length = ::GetSystemDirectoryW(folder, MAX_PATH);
  return std::wstring(folder, length < MAX_PATH ? length : 0) + L"\\cmd.exe";
}

struct Started {
  PROCESS_INFORMATION process{};
  HANDLE job = nullptr;
};

// The command line rebuilt by the rules the program's runtime splits it
// with, the environment block, the tree's bin for SetDllDirectoryW.
Result<Started> start(const LaunchPlan& plan, DWORD flags) {
  std::wstring application = plan.program.native();
  std::wstring command_line;
  if (shim::is_batch_file(std::wstring_view(application))) {
    // Through cmd.exe by hand, quoted for cmd (plan_launch refused what cannot be).
    std::vector<std::wstring> arguments;
    for (const auto& argument : plan.arguments) arguments.push_back(util::widen(argument));
    command_line = shim::batch_command_line(std::wstring_view(application), arguments);
    application = system_cmd();
  } else {
    command_line = util::widen(util::quote_windows_argument(util::to_utf8(plan.program)));
    for (const auto& argument : plan.arguments) {
      command_line += L' ';
      command_line += util::widen(util::quote_windows_argument(argument));
    }
  }
  std::wstring environment_block;
  for (const auto& [name, value] : plan.environment.variables()) {
    environment_block += util::widen(name) + L'=' + util::widen(value);
    environment_block += L'\0';
  }
  environment_block += L'\0';

  // PATH (in the block above) is what Wine honours; SetDllDirectoryW is
  // inherited by the child on real Windows and searched before PATH
  // (loader-facts.md section 2).
  ::SetDllDirectoryW(plan.library_dir.c_str());
  Started started;
  started.job = ::CreateJobObjectW(nullptr, nullptr);
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
  ::SetInformationJobObject(started.job, JobObjectExtendedLimitInformation, &limits, sizeof limits);
  // Before the start: a Ctrl-C in between would end this process and, through
  // the job, the program (scoop's shim does the same).
  ::SetConsoleCtrlHandler(leave_to_child, TRUE);
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  if (!::CreateProcessW(application.c_str(), command_line.data(), nullptr, nullptr, TRUE,
                        flags | CREATE_UNICODE_ENVIRONMENT, environment_block.data(), nullptr, &startup,
                        &started.process)) {
    const std::string reason = util::last_error_message();
    ::CloseHandle(started.job);
    return make_error("cannot start '" + util::to_utf8(plan.program) + "': " + reason);
  }
  // Joined before it runs, so that its own children are in the job too.
  ::AssignProcessToJobObject(started.job, started.process.hProcess);
  return started;
}

int finish(Started& started) {
  DWORD code = 0;
  ::GetExitCodeProcess(started.process.hProcess, &code);
  ::CloseHandle(started.process.hThread);
  ::CloseHandle(started.process.hProcess);
  ::CloseHandle(started.job);
  return static_cast<int>(code);
}

std::string path_of(HANDLE file) {
  if (!file) {
    return {};
  }
  std::wstring path(32768, L'\0');
  const DWORD length = ::GetFinalPathNameByHandleW(file, path.data(), static_cast<DWORD>(path.size()),
                                                   FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
  path.resize(length < path.size() ? length : 0);
  if (path.rfind(L"\\\\?\\UNC\\", 0) == 0) {
    path = L"\\\\" + path.substr(8);
  } else if (path.rfind(L"\\\\?\\", 0) == 0) {
    path = path.substr(4);
  }
  return util::narrow(path);
}

}  // namespace

Result<int> launch(const LaunchPlan& plan) {
  CUDNNENV_TRY_ASSIGN(started, start(plan, CREATE_SUSPENDED));
  ::ResumeThread(started->process.hThread);
  ::WaitForSingleObject(started->process.hProcess, INFINITE);
  return finish(*started);
}

Result<int> launch_and_watch(const LaunchPlan& plan, std::vector<LoadedModule>& loaded) {
  // Under the debug API: every DLL load is an event with a handle to the
  // file, so the report names the file the loader really mapped. The
  // program otherwise runs as it would: exceptions other than the initial
  // breakpoint go back to it unhandled.
  CUDNNENV_TRY_ASSIGN(started, start(plan, DEBUG_ONLY_THIS_PROCESS));
  const DWORD pid = started->process.dwProcessId;
  bool initial_breakpoint = true;
  for (;;) {
    DEBUG_EVENT event{};
    if (!::WaitForDebugEvent(&event, INFINITE)) {
      break;
    }
    DWORD status = DBG_CONTINUE;
    switch (event.dwDebugEventCode) {
      case CREATE_PROCESS_DEBUG_EVENT:
        if (event.u.CreateProcessInfo.hFile) ::CloseHandle(event.u.CreateProcessInfo.hFile);
        break;
      case LOAD_DLL_DEBUG_EVENT:
        loaded.push_back({static_cast<long>(event.dwProcessId), path_of(event.u.LoadDll.hFile)});
        if (event.u.LoadDll.hFile) ::CloseHandle(event.u.LoadDll.hFile);
        break;
      case EXCEPTION_DEBUG_EVENT:
        if (initial_breakpoint && event.u.Exception.ExceptionRecord.ExceptionCode == EXCEPTION_BREAKPOINT) {
          initial_breakpoint = false;
        } else {
          status = DBG_EXCEPTION_NOT_HANDLED;
        }
        break;
      default:
        break;
    }
    const bool done = event.dwDebugEventCode == EXIT_PROCESS_DEBUG_EVENT && event.dwProcessId == pid;
    ::ContinueDebugEvent(event.dwProcessId, event.dwThreadId, status);
    if (done) {
      break;
    }
  }
  ::WaitForSingleObject(started->process.hProcess, INFINITE);
  return finish(*started);
}

}  // namespace cudnnenv
