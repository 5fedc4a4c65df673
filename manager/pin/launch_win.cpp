#include <windows.h>

#include <cstdint>
#include <cstring>
#include <cwchar>
#include <map>
#include <set>
#include <utility>

#include <spdlog/spdlog.h>

#include "pin/launch.hpp"
#include "pin/why.hpp"

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

// The child's environment block: cmd's per-drive folders ("=C:=C:\\work",
// which no variable API lists and a program's relative "D:file" needs) as
// they are here, then the plan's variables. A value over 32,766 characters
// (shim::k_max_variable_value) is refused (Windows would cut or refuse it, and a pinned PATH is the
// likely one).
Result<std::wstring> environment_block_of(const util::Environment& environment) {
  std::wstring block;
  wchar_t* current = ::GetEnvironmentStringsW();
  for (const wchar_t* entry = current; entry && *entry; entry += std::wcslen(entry) + 1) {
    if (entry[0] == L'=') {
      block += entry;
      block += L'\0';
    }
  }
  ::FreeEnvironmentStringsW(current);
  for (const auto& [name, value] : environment.variables()) {
    const std::wstring wide = util::widen(value);
    if (wide.size() > shim::k_max_variable_value) {
      return make_error(
          name + " would hold " + std::to_string(wide.size()) +
              " characters, more than the 32,766 Windows allows in a variable",
          name == "PATH" ? "shorten PATH, or move the store (--root) to a shorter folder" : "shorten " + name);
    }
    block += util::widen(name) + L'=' + wide;
    block += L'\0';
  }
  block += L'\0';
  return block;
}

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
  CUDNNENV_TRY_ASSIGN(environment_block, environment_block_of(plan.environment));

  // PATH (in the block above) is what Wine honours; SetDllDirectoryW is
  // inherited by the child on real Windows and searched before PATH
  // (loader-facts.md section 2).
  ::SetDllDirectoryW(plan.library_dir.c_str());
  Started started;
  if (!shim::start_in_job(application.c_str(), command_line, environment_block->data(), flags, started)) {
    return make_error("cannot start '" + util::to_utf8(plan.program) + "': " + util::last_error_message());
  }
  if (started.job_error != 0) {
    ::SetLastError(started.job_error);
    spdlog::debug("'{}' runs outside cudnnenv's job ({}): it outlives a killed cudnnenv", util::to_utf8(plan.program),
                  util::last_error_message());
  }
  return started;
}

std::string path_of(HANDLE file) {
  return file ? util::narrow(util::final_path_of(file)) : std::string();
}

// The name the loader left in `process` for a DLL (lpImageName: where a
// pointer to it lies; either may be null), for when the event's file handle
// names none: Wine's GetFinalPathNameByHandleW gives nothing past MAX_PATH.
std::string image_name(HANDLE process, const LOAD_DLL_DEBUG_INFO& info) {
  if (!process || !info.lpImageName) return {};
  BOOL wow64 = FALSE;
  ::IsWow64Process(process, &wow64);
  std::uint64_t address = 0;  // a 32-bit process holds a 32-bit pointer
  const SIZE_T pointer_size = wow64 ? 4 : sizeof(void*);
  SIZE_T got = 0;
  if (!::ReadProcessMemory(process, info.lpImageName, &address, pointer_size, &got) || got != pointer_size ||
      address == 0) {
    return {};
  }
  // One character at a time past a failed block read: the name may end just before an unreadable page.
  const std::size_t unit = info.fUnicode ? 2 : 1;
  std::string bytes;
  char block[256];
  while (bytes.size() < 2 * 32768) {
    const auto* at = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(address + bytes.size()));
    if (!::ReadProcessMemory(process, at, block, sizeof block, &got)) {
      if (!::ReadProcessMemory(process, at, block, unit, &got) || got != unit) return {};
    }
    bool ended = false;
    for (std::size_t i = 0; i + unit <= got && !ended; i += unit) {
      ended = block[i] == 0 && (unit == 1 || block[i + 1] == 0);
      if (!ended) bytes.append(block + i, unit);
    }
    if (ended) break;
  }
  std::wstring name;
  if (info.fUnicode) {
    name.resize(bytes.size() / 2);
    std::memcpy(name.data(), bytes.data(), name.size() * 2);
  } else {
    name.resize(bytes.size());
    name.resize(static_cast<std::size_t>(::MultiByteToWideChar(CP_ACP, 0, bytes.data(), static_cast<int>(bytes.size()),
                                                               name.data(), static_cast<int>(name.size()))));
  }
  if (name.rfind(L"\\\\?\\", 0) == 0) name = name.substr(4);
  return util::narrow(name);
}

// The loader's own account of each load (loader snaps): FLG_SHOW_LDR_SNAPS
// in the NtGlobalFlag of `process`'s PEB, which its loader reads when it
// starts; the text comes as OUTPUT_DEBUG_STRING events. A 64-bit process of
// this bitness only (the PEB's offset); Wine's loader writes no such text.
void show_loader_snaps(HANDLE process) {
#if defined(_WIN64)
  BOOL wow64 = FALSE;
  if (!process || !::IsWow64Process(process, &wow64) || wow64) return;
  using Query = LONG(WINAPI*)(HANDLE, int, void*, ULONG, ULONG*);
  const auto query = reinterpret_cast<Query>(
      reinterpret_cast<void*>(::GetProcAddress(::GetModuleHandleW(L"ntdll.dll"), "NtQueryInformationProcess")));
  struct {
    void* reserved1;
    void* peb;
    void* reserved2[4];
  } basic{};
  if (!query || query(process, 0 /* ProcessBasicInformation */, &basic, sizeof basic, nullptr) != 0 || !basic.peb)
    return;
  constexpr std::size_t nt_global_flag = 0xBC;   // PEB64
  constexpr DWORD show_loader_snaps_flag = 0x2;  // FLG_SHOW_LDR_SNAPS
  auto* at = static_cast<char*>(basic.peb) + nt_global_flag;
  DWORD flags = 0;
  SIZE_T got = 0;
  if (::ReadProcessMemory(process, at, &flags, sizeof flags, &got) && got == sizeof flags) {
    flags |= show_loader_snaps_flag;
    ::WriteProcessMemory(process, at, &flags, sizeof flags, &got);
  }
#else
  (void)process;
#endif
}

// The text of an OUTPUT_DEBUG_STRING event, as UTF-8.
std::string debug_string(HANDLE process, const OUTPUT_DEBUG_STRING_INFO& info) {
  if (!process || info.nDebugStringLength == 0) return {};
  const std::size_t unit = info.fUnicode ? 2 : 1;
  std::string bytes(static_cast<std::size_t>(info.nDebugStringLength) * unit, '\0');
  SIZE_T got = 0;
  if (!::ReadProcessMemory(process, info.lpDebugStringData, bytes.data(), bytes.size(), &got)) return {};
  bytes.resize(got);
  if (!info.fUnicode) {
    if (const auto end = bytes.find('\0'); end != std::string::npos) bytes.resize(end);
    return bytes;
  }
  std::wstring wide(bytes.size() / 2, L'\0');
  std::memcpy(wide.data(), bytes.data(), wide.size() * 2);
  if (const auto end = wide.find(L'\0'); end != std::wstring::npos) wide.resize(end);
  return util::narrow(wide);
}

// What runs inside the program before its own code: AddDllDirectory of the
// tree's folder, then of each tree's beside it (the CUDA runtime's; what Python 3.8+'s
// LOAD_LIBRARY_SEARCH_DEFAULT_DIRS loads search; they never search PATH);
// then LoadLibraryW of each DLL a copy would shadow (LaunchPlan::preload).
struct RemoteStep {
  bool load = false;  // LoadLibraryW; else AddDllDirectory
  std::filesystem::path path;
};

std::vector<RemoteStep> remote_steps(const LaunchPlan& plan) {
  std::vector<RemoteStep> steps;
  for (const auto& folder : plan.folders) steps.push_back({false, folder});
  for (const auto& file : plan.preload) steps.push_back({true, file});
  return steps;
}

DWORD begin_step(const Started& started, const RemoteStep& step, shim::RemoteCall& call) {
  return step.load ? shim::begin_load_library(started, step.path.native(), call)
                   : shim::begin_add_dll_directory(started, step.path.native(), call);
}

void warn_not_done(const LaunchPlan& plan, const RemoteStep& step, DWORD error) {
  if (error == ERROR_NOT_SUPPORTED) {
    spdlog::debug("'{}' is not a program of cudnnenv's bitness: nothing is run inside it", util::to_utf8(plan.program));
    return;
  }
  ::SetLastError(error);
  if (step.load) {
    spdlog::warn(
        "could not load '{}' inside '{}' ({}): a copy of that name found before the pinned folders may "
        "load instead",
        util::to_utf8(step.path), util::to_utf8(plan.program), util::last_error_message());
    return;
  }
  spdlog::warn(
      "could not add '{}' to the DLL search inside '{}' (AddDllDirectory: {}): what it loads with "
      "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS (Python 3.8+) will not find the tree; PATH and SetDllDirectoryW pin the rest",
      util::to_utf8(step.path), util::to_utf8(plan.program), util::last_error_message());
}

}  // namespace

Result<int> launch(const LaunchPlan& plan) {
  CUDNNENV_TRY_ASSIGN(started, start(plan, CREATE_SUSPENDED));
  for (const auto& step : remote_steps(plan)) {
    const DWORD error = step.load ? shim::load_library_in(*started, step.path.native())
                                  : shim::add_dll_directory_in(*started, step.path.native());
    if (error) {
      warn_not_done(plan, step, error);
      if (error == ERROR_NOT_SUPPORTED) break;  // another bitness: nothing can run inside it
    }
  }
  return shim::resume_and_wait(*started);
}

Result<int> launch_and_watch(const LaunchPlan& plan, std::vector<LoadedModule>& loaded, WatchedRun& run) {
  // Under the debug API, the program and every process it starts (cmd /c,
  // wrapper scripts, multiprocessing workers): every DLL load is an event
  // with a handle to the file, so the report names the file the loader
  // really mapped, and the process that mapped it. The programs otherwise run
  // as they would: exceptions other than each process's initial breakpoints
  // (two for a 32-bit one under WOW64) go back to them unhandled.
  CUDNNENV_TRY_ASSIGN(started, start(plan, DEBUG_PROCESS | CREATE_SUSPENDED));
  const DWORD pid = started->process.dwProcessId;
  run.program_pid = static_cast<long>(pid);
  // A process that outlives the program (started outside its job) is let
  // go of below; none is ended because this debugger exits.
  ::DebugSetProcessKillOnExit(FALSE);
  // Each remote step in turn, as a thread of the program; its own code
  // starts once the last has run.
  shim::RemoteCall call;
  DWORD call_thread = 0;
  const auto steps = remote_steps(plan);
  std::size_t next_step = 0;
  bool resumed = false;  // the program's own code runs: what loads now is its own doing
  const auto begin_next = [&]() {
    while (next_step < steps.size()) {
      const auto& step = steps[next_step++];
      if (const DWORD error = begin_step(*started, step, call)) {
        warn_not_done(plan, step, error);
        if (error == ERROR_NOT_SUPPORTED) break;
        continue;
      }
      call_thread = ::GetThreadId(call.thread);
      return;
    }
    resumed = true;
    ::ResumeThread(started->process.hThread);
  };
  begin_next();
  std::set<std::pair<DWORD, DWORD>> breakpoints_seen;  // (process, exception code)
  std::map<DWORD, HANDLE> processes;
  std::map<DWORD, std::string> loader_text;  // per process
  for (;;) {
    DEBUG_EVENT event{};
    if (!::WaitForDebugEvent(&event, INFINITE)) {
      break;
    }
    DWORD status = DBG_CONTINUE;
    switch (event.dwDebugEventCode) {
      case CREATE_PROCESS_DEBUG_EVENT:
        processes[event.dwProcessId] = event.u.CreateProcessInfo.hProcess;  // the system closes it
        show_loader_snaps(event.u.CreateProcessInfo.hProcess);
        if (event.dwProcessId != pid) ++run.started;
        if (event.u.CreateProcessInfo.hFile) ::CloseHandle(event.u.CreateProcessInfo.hFile);
        break;
      case EXIT_PROCESS_DEBUG_EVENT:
        processes.erase(event.dwProcessId);
        break;
      case LOAD_DLL_DEBUG_EVENT: {
        std::string name = path_of(event.u.LoadDll.hFile);
        if (name.empty()) name = image_name(processes[event.dwProcessId], event.u.LoadDll);
        loaded.push_back({static_cast<long>(event.dwProcessId), std::move(name), !resumed && event.dwProcessId == pid});
      }
        if (event.u.LoadDll.hFile) ::CloseHandle(event.u.LoadDll.hFile);
        break;
      case OUTPUT_DEBUG_STRING_EVENT:
        loader_text[event.dwProcessId] += debug_string(processes[event.dwProcessId], event.u.DebugString);
        break;
      case EXIT_THREAD_DEBUG_EVENT:
        if (call_thread != 0 && event.dwProcessId == pid && event.dwThreadId == call_thread) {
          // The step ran in the program: the next, else its own code may start.
          call_thread = 0;
          if (const DWORD error = shim::end_remote_call(*started, call)) {
            warn_not_done(plan, steps[next_step - 1], error);
          }
          begin_next();
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
  // What the program started and left running ends with the job
  // (close_child), as without --report; what left the job runs on, no
  // longer watched: what it loads from now on is not in the report.
  run.running_at_exit = static_cast<int>(processes.size());
  for (const auto& [process, text] : loader_text) {
    auto searches = parse_loader_snaps(static_cast<long>(process), text);
    run.loader_text = run.loader_text || text.find("LdrLoadDll") != std::string::npos;
    run.searches.insert(run.searches.end(), searches.begin(), searches.end());
  }
  for (const auto& [process, handle] : processes) {
    ::DebugActiveProcessStop(process);
  }
  ::WaitForSingleObject(started->process.hProcess, INFINITE);
  return shim::close_child(*started);
}

}  // namespace cudnnenv
