#include <windows.h>

#include <set>
#include <utility>

#include <spdlog/spdlog.h>

#include "pin/launch.hpp"

#include "batch_command.hpp"
#include "util/process.hpp"
#include "util/text.hpp"
#include "util/win.hpp"
#include "util/windows_quote.hpp"
#include "win_launch.hpp"

namespace cudnnenv {

namespace {

// cmd.exe in the system folder, never one found on PATH or in the working folder.
std::wstring system_cmd() {
  wchar_t folder[MAX_PATH];
  const UINT length = ::GetSystemDirectoryW(folder, MAX_PATH);
  return std::wstring(folder, length < MAX_PATH ? length : 0) + L"\\cmd.exe";
}

using Started = shim::WinChild;

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
    command_line = util::quote_windows_argument_as<wchar_t>(plan.program.native());
    for (const auto& argument : plan.arguments) {
      command_line += L' ';
      command_line += util::quote_windows_argument_as<wchar_t>(util::widen(argument));
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
  if (!shim::start_in_job(application.c_str(), command_line, environment_block.data(), flags, started)) {
    return make_error("cannot start '" + util::to_utf8(plan.program) + "': " + util::last_error_message());
  }
  return started;
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

void warn_not_added(const LaunchPlan& plan, DWORD error) {
  if (error == ERROR_NOT_SUPPORTED) {
    spdlog::debug("'{}' is not a program of cudnnenv's bitness: no AddDllDirectory inside it",
                  util::to_utf8(plan.program));
    return;
  }
  ::SetLastError(error);
  spdlog::warn(
      "could not add '{}' to the DLL search inside '{}' (AddDllDirectory: {}): what it loads with "
      "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS (Python 3.8+) will not find the tree; PATH and SetDllDirectoryW pin the rest",
      util::to_utf8(plan.library_dir), util::to_utf8(plan.program), util::last_error_message());
}

}  // namespace

Result<int> launch(const LaunchPlan& plan) {
  CUDNNENV_TRY_ASSIGN(started, start(plan, CREATE_SUSPENDED));
  if (const DWORD error = shim::add_dll_directory_in(*started, plan.library_dir.native())) {
    warn_not_added(plan, error);
  }
  return shim::resume_and_wait(*started);
}

Result<int> launch_and_watch(const LaunchPlan& plan, std::vector<LoadedModule>& loaded, long& program_pid) {
  // Under the debug API, the program and every process it starts (cmd /c,
  // wrapper scripts, multiprocessing workers): every DLL load is an event
  // with a handle to the file, so the report names the file the loader
  // really mapped, and the process that mapped it. The programs otherwise run
  // as they would: exceptions other than each process's initial breakpoints
  // (two for a 32-bit one under WOW64) go back to them unhandled.
  CUDNNENV_TRY_ASSIGN(started, start(plan, DEBUG_PROCESS | CREATE_SUSPENDED));
  const DWORD pid = started->process.dwProcessId;
  program_pid = static_cast<long>(pid);
  shim::RemoteCall call;
  DWORD call_thread = 0;
  if (const DWORD error = shim::begin_add_dll_directory(*started, plan.library_dir.native(), call)) {
    warn_not_added(plan, error);
    ::ResumeThread(started->process.hThread);
  } else {
    call_thread = ::GetThreadId(call.thread);
  }
  std::set<std::pair<DWORD, DWORD>> breakpoints_seen;  // (process, exception code)
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
      case EXIT_THREAD_DEBUG_EVENT:
        if (call_thread != 0 && event.dwProcessId == pid && event.dwThreadId == call_thread) {
          // AddDllDirectory ran in the program: now its own code may start.
          call_thread = 0;
          if (const DWORD error = shim::end_add_dll_directory(*started, call)) warn_not_added(plan, error);
          ::ResumeThread(started->process.hThread);
        }
        break;
      case EXCEPTION_DEBUG_EVENT: {
        const DWORD code = event.u.Exception.ExceptionRecord.ExceptionCode;
        constexpr DWORD wow64_breakpoint = 0x4000001F;  // STATUS_WX86_BREAKPOINT
        const bool first = (code == EXCEPTION_BREAKPOINT || code == wow64_breakpoint) &&
                           breakpoints_seen.insert({event.dwProcessId, code}).second;
        if (!first) status = DBG_EXCEPTION_NOT_HANDLED;
        break;
      }
      default:
        break;
    }
    const bool done = event.dwDebugEventCode == EXIT_PROCESS_DEBUG_EVENT && event.dwProcessId == pid;
    ::ContinueDebugEvent(event.dwProcessId, event.dwThreadId, status);
    if (done) {
      break;
    }
  }
  // What the program started and left running ends with the job (close_child), as without --report.
  ::WaitForSingleObject(started->process.hProcess, INFINITE);
  return shim::close_child(*started);
}

}  // namespace cudnnenv
