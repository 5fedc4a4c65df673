// cudnnenv-shim.exe on Windows: `cudnnenv shim add NAME` makes NAME.exe in
// the shims folder a hard link (or copy) of it, with NAME.shim beside it
// (scoop's layout). Started as NAME.exe, it finds which tree is selected
// here from a cached decision (launch_key.hpp), makes the changes of the
// launch environment `cudnnenv exec` recorded with it (the tree's bin folder
// first on the child's PATH, the selection's variables) and calls
// SetDllDirectoryW(bin), which real
// Windows passes to child processes (Wine does not: under Wine, PATH alone
// carries the pin). The child starts suspended, joins a job object that dies
// with the launcher, then runs; Ctrl-C and Ctrl-Break are left to it, and its
// exit code is returned. Without a cached decision it runs `cudnnenv exec`,
// which resolves, checks, records one and starts the program.
#include <windows.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "batch_command.hpp"
#include "launch_key.hpp"
#include "sidecar.hpp"
#include "util/windows_quote.hpp"
#include "win_launch.hpp"

namespace {

using cudnnenv::shim::k_key_max;
using cudnnenv::shim::k_path_max;

std::wstring widen(const char* text) {
  const int length = ::MultiByteToWideChar(CP_UTF8, 0, text, -1, nullptr, 0);
  std::wstring wide(static_cast<std::size_t>(length > 0 ? length - 1 : 0), L'\0');
  ::MultiByteToWideChar(CP_UTF8, 0, text, -1, wide.data(), length);
  return wide;
}

// A line on stderr, whole: the console gets UTF-16 (WriteConsoleW), a pipe
// or file UTF-8, as cudnnenv writes (the C runtime's wide output stops at
// the first letter outside the code page).
std::string narrow(const std::wstring& text) {
  const int length =
      ::WideCharToMultiByte(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), nullptr, 0, nullptr, nullptr);
  std::string utf8(static_cast<std::size_t>(length > 0 ? length : 0), '\0');
  ::WideCharToMultiByte(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), utf8.data(), length, nullptr, nullptr);
  return utf8;
}

void write_error(const std::wstring& line) {
  const HANDLE handle = ::GetStdHandle(STD_ERROR_HANDLE);
  DWORD mode = 0;
  DWORD written = 0;
  if (::GetConsoleMode(handle, &mode)) {
    ::WriteConsoleW(handle, line.data(), static_cast<DWORD>(line.size()), &written, nullptr);
    return;
  }
  const std::string utf8 = narrow(line);
  ::WriteFile(handle, utf8.data(), static_cast<DWORD>(utf8.size()), &written, nullptr);
}

int fail(const wchar_t* what, const std::wstring& detail) {
  write_error(L"cudnnenv-shim: error: " + std::wstring(what) + detail + L"\n");
  return 127;
}

// `entry` first on the ';' list `name`, earlier copies of it removed.
std::wstring prepended(const std::wstring& name, const std::wstring& entry) {
  std::wstring value(32767, L'\0');
  value.resize(::GetEnvironmentVariableW(name.c_str(), value.data(), static_cast<DWORD>(value.size())));
  std::wstring result = entry;
  for (std::size_t start = 0; start <= value.size();) {
    std::size_t end = value.find(L';', start);
    if (end == std::wstring::npos) end = value.size();
    const std::wstring existing = value.substr(start, end - start);
    if (!existing.empty() && existing != entry) result += L";" + existing;
    start = end + 1;
  }
  return result;
}

// The recorded launch environment's changes; false (with the variable's
// name and the length its value would have) when a value does not fit in a
// variable.
bool apply_changes(const cudnnenv::shim::LaunchDecision& decision, std::wstring& failed, std::size_t& length) {
  for (int i = 0; i < decision.change_count; ++i) {
    const cudnnenv::shim::EnvironmentChange& change = decision.changes[i];
    const std::wstring name = widen(change.name);
    if (change.op == '-') {
      ::SetEnvironmentVariableW(name.c_str(), nullptr);
      continue;
    }
    const std::wstring value = change.op == '+' ? prepended(name, widen(change.value)) : widen(change.value);
    if (value.size() > cudnnenv::shim::k_max_variable_value ||
        !::SetEnvironmentVariableW(name.c_str(), value.c_str())) {
      failed = name;
      length = value.size();
      return false;
    }
  }
  return true;
}

// One argument quoted by the rules the MSVC runtime splits command lines with.
std::wstring quote(const std::wstring& argument) {
  return cudnnenv::util::quote_windows_argument_as<wchar_t>(argument);
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

bool same_file(const std::wstring& a, const std::wstring& b) {
  auto identify = [](const std::wstring& path, BY_HANDLE_FILE_INFORMATION& info) {
    HANDLE file = ::CreateFileW(path.c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
    if (file == INVALID_HANDLE_VALUE) return false;
    const BOOL got = ::GetFileInformationByHandle(file, &info);
    ::CloseHandle(file);
    return got != FALSE;
  };
  BY_HANDLE_FILE_INFORMATION first{}, second{};
  return identify(a, first) && identify(b, second) && first.dwVolumeSerialNumber == second.dwVolumeSerialNumber &&
         first.nFileIndexHigh == second.nFileIndexHigh && first.nFileIndexLow == second.nFileIndexLow;
}

// NAME.exe (or .com) on PATH, skipping the shims folder, in any spelling,
// and any file that is this launcher (a hard link of it elsewhere).
std::wstring find_target(const std::wstring& name, const std::wstring& shims_dir, const std::wstring& self) {
  std::wstring path(32767, L'\0');
  path.resize(::GetEnvironmentVariableW(L"PATH", path.data(), static_cast<DWORD>(path.size())));
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(L';', start);
    if (end == std::wstring::npos) end = path.size();
    std::wstring folder = path.substr(start, end - start);
    start = end + 1;
    while (!folder.empty() && (folder.back() == L'\\' || folder.back() == L'/')) folder.pop_back();
    if (folder.empty() || ::CompareStringOrdinal(folder.c_str(), -1, shims_dir.c_str(), -1, TRUE) == CSTR_EQUAL) {
      continue;
    }
    for (const wchar_t* extension : {L".exe", L".com"}) {
      const std::wstring candidate = folder + L"\\" + name + extension;
      const DWORD attributes = ::GetFileAttributesW(candidate.c_str());
      if (attributes != INVALID_FILE_ATTRIBUTES && !(attributes & FILE_ATTRIBUTE_DIRECTORY) &&
          !same_file(candidate, self)) {
        return candidate;
      }
    }
  }
  return {};
}

// A whole small file; its size, or -1.
long read_small(const std::wstring& path, char* text, DWORD size) {
  HANDLE file = ::CreateFileW(path.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                              0, nullptr);
  if (file == INVALID_HANDLE_VALUE) return -1;
  DWORD got = 0;
  const BOOL read = ::ReadFile(file, text, size, &got, nullptr);
  ::CloseHandle(file);
  return read ? static_cast<long>(got) : -1;
}

// The sidecar's args, then the user's arguments exactly as they were typed.
void append_arguments(std::wstring& command_line, const char* sidecar_args, const wchar_t* rest) {
  if (sidecar_args[0] != '\0') command_line += L" " + widen(sidecar_args);
  if (*rest) command_line += std::wstring(L" ") + rest;
}

// `dll_folder`, when given, is added to the DLL search inside the program
// before it runs (AddDllDirectory there: what Python 3.8+ searches); a
// failure is said, and the program runs pinned by PATH and SetDllDirectoryW.
int run(const std::wstring& program, std::wstring& command_line, const std::wstring& dll_folder = {}) {
  cudnnenv::shim::WinChild child;
  if (!cudnnenv::shim::start_in_job(program.c_str(), command_line, nullptr, CREATE_SUSPENDED, child)) {
    return fail(L"cannot start ", program);
  }
  if (!dll_folder.empty()) {
    const DWORD error = cudnnenv::shim::add_dll_directory_in(child, dll_folder);
    if (error != 0 && error != ERROR_NOT_SUPPORTED) {  // not supported: a 32-bit program, which loads no 64-bit cuDNN
      write_error(L"cudnnenv-shim: warning: could not add " + dll_folder + L" to the DLL search inside " + program +
                  L" (error " + std::to_wstring(error) +
                  L"): what it loads with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS (Python 3.8+) will not find the tree\n");
    }
  }
  return cudnnenv::shim::resume_and_wait(child);
}

}  // namespace

int wmain() {
  std::wstring self(32768, L'\0');
  self.resize(::GetModuleFileNameW(nullptr, self.data(), static_cast<DWORD>(self.size())));
  const std::size_t slash = self.find_last_of(L"\\/");
  const std::wstring shims_dir = self.substr(0, slash);
  std::wstring name = self.substr(slash + 1);
  if (name.size() > 4 && ::CompareStringOrdinal(name.c_str() + name.size() - 4, -1, L".exe", -1, TRUE) == CSTR_EQUAL) {
    name.resize(name.size() - 4);
  }
  const std::wstring sidecar_path = shims_dir + L"\\" + name + L".shim";
  static char text[16384];
  const long size = read_small(sidecar_path, text, sizeof text - 1);
  if (size < 0) {
    return fail(L"cannot read ", sidecar_path);
  }
  cudnnenv::shim::Sidecar sidecar;
  char error[256];
  if (!cudnnenv::shim::parse_sidecar(text, static_cast<std::size_t>(size), sidecar, error, sizeof error,
                                     narrow(name).c_str())) {
    return fail(L"", sidecar_path + L": " + widen(error));
  }

  // A shim that reaches itself again and again stops instead of spawning forever.
  wchar_t depth_text[16] = {};
  ::GetEnvironmentVariableW(L"CUDNNENV_SHIM_DEPTH", depth_text, 16);
  const int depth = _wtoi(depth_text);
  if (depth >= 16) {
    return fail(L"16 shims started one another: a loop? the last was ", self);
  }
  ::SetEnvironmentVariableW(L"CUDNNENV_SHIM_DEPTH", std::to_wstring(depth + 1).c_str());

  const wchar_t* rest = after_program_name(::GetCommandLineW());
  const std::wstring target = sidecar.path[0] ? widen(sidecar.path) : find_target(name, shims_dir, self);
  std::wstring library_dir;  // the cuDNN tree's folder, from the recorded decision
  if (sidecar.cudnn[0] != '\0') {
    // A launcher pinned to one tree: every start through `cudnnenv exec
    // --cudnn TREE [--runtime NAME ...]` (no --shims-dir: no decision recorded
    // for the shims).
    const std::wstring program = widen(sidecar.cudnnenv);
    std::wstring command_line =
        quote(program) + L" --root " + quote(widen(sidecar.root)) + L" exec --cudnn " + quote(widen(sidecar.cudnn));
    for (int row = 1; row < cudnnenv::shim::k_component_rows; ++row) {
      if (sidecar.beside[row][0]) {
        command_line += L" " + widen(cudnnenv::shim::k_beside_flags[row]) + L" " + quote(widen(sidecar.beside[row]));
      }
    }
    command_line += L" -- " + quote(widen(sidecar.path));
    append_arguments(command_line, sidecar.args, rest);
    return run(program, command_line);
  }
  static char key[k_key_max];
  static char cache_path[k_path_max + 64];
  static char state[k_path_max];
  static char cached[k_key_max + 3 * k_path_max];
  cudnnenv::shim::LaunchDecision decision;
  long cached_size = -1;
  if (!target.empty() && cudnnenv::shim::state_folder(sidecar.state, sidecar.root, state, sizeof state) &&
      cudnnenv::shim::launch_key(sidecar.root, state, key, sizeof key) &&
      cudnnenv::shim::launch_cache_path(state, key, cache_path, sizeof cache_path)) {
    cached_size = read_small(widen(cache_path), cached, sizeof cached - 1);
  }
  // A decision holds for the program it was made for: another one may have
  // a copy of a DLL in its own folder, which only the slow path loads past.
  if (cached_size > 0 && cudnnenv::shim::read_decision(cached, static_cast<std::size_t>(cached_size), key, decision) &&
      ::CompareStringOrdinal(widen(decision.program).c_str(), -1, target.c_str(), -1, TRUE) == CSTR_EQUAL) {
    library_dir = widen(decision.library_dir);
    std::wstring failed;
    std::size_t length = 0;
    if (!apply_changes(decision, failed, length)) {
      return fail(failed.c_str(), L" would hold " + std::to_wstring(length) +
                                      L" characters, more than the 32,766 Windows allows in a variable; shorten " +
                                      failed + L", or move the store (--root) to a shorter folder: " + library_dir);
    }
  } else {
    // The slow path: cudnnenv resolves, checks, records the decision and
    // starts the program (or says why it cannot); its exit code is returned.
    const std::wstring program = widen(sidecar.cudnnenv);
    std::wstring command_line = quote(program) + L" --root " + quote(widen(sidecar.root)) + L" exec --shims-dir " +
                                quote(shims_dir) + L" -- " + quote(sidecar.path[0] ? widen(sidecar.path) : name);
    append_arguments(command_line, sidecar.args, rest);
    return run(program, command_line);
  }
  if (same_file(target, self)) {
    return fail(L"the shim would start itself: ", sidecar_path);
  }
  ::SetDllDirectoryW(library_dir.c_str());  // inherited on real Windows, ahead of PATH

  std::wstring command_line = quote(target);
  append_arguments(command_line, sidecar.args, rest);
  if (cudnnenv::shim::is_batch_file(std::wstring_view(target))) {
    // cmd parses a batch file's command line again: split it as the C
    // runtime would, refuse what cmd cannot receive, quote the rest for cmd.
    auto words = cudnnenv::shim::split_command_line(std::wstring_view(command_line));
    words.erase(words.begin());
    for (const auto& word : words) {
      if (const char* problem = cudnnenv::shim::batch_argument_problem(std::wstring_view(word))) {
        return fail(L"refused an argument for a batch file: ", L"'" + word + L"' has " + widen(problem));
      }
    }
    if (const char* problem = cudnnenv::shim::batch_argument_problem(std::wstring_view(target))) {
      return fail(L"refused the batch file ", target + L": its path has " + widen(problem));
    }
    std::wstring batch_line = cudnnenv::shim::batch_command_line(std::wstring_view(target), words);
    wchar_t folder[MAX_PATH];
    const UINT length = ::GetSystemDirectoryW(folder, MAX_PATH);
    return run(std::wstring(folder, length < MAX_PATH ? length : 0) + L"\\cmd.exe", batch_line);
  }
  return run(target, command_line, library_dir);
}
