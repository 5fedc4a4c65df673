#include <windows.h>
#include <fcntl.h>
#include <io.h>

#include "util/console.hpp"
#include "util/win.hpp"

namespace cudnnenv::util {

void write_utf8(std::FILE* stream, std::string_view text) {
  std::fflush(stream);
  HANDLE handle = reinterpret_cast<HANDLE>(::_get_osfhandle(::_fileno(stream)));
  DWORD mode = 0;
  if (handle != INVALID_HANDLE_VALUE && ::GetConsoleMode(handle, &mode)) {
    const std::wstring wide = widen(text);
    DWORD written = 0;
    ::WriteConsoleW(handle, wide.data(), static_cast<DWORD>(wide.size()), &written, nullptr);
    return;
  }
  // A file or a pipe: the bytes as they are (a script for cmd already has its CRLF).
  const int old_mode = ::_setmode(::_fileno(stream), _O_BINARY);
  std::fwrite(text.data(), 1, text.size(), stream);
  std::fflush(stream);
  ::_setmode(::_fileno(stream), old_mode);
}

bool is_terminal(std::FILE* stream) {
  HANDLE handle = reinterpret_cast<HANDLE>(::_get_osfhandle(::_fileno(stream)));
  DWORD mode = 0;
  return handle != INVALID_HANDLE_VALUE && ::GetConsoleMode(handle, &mode);
}

bool enable_colours(std::FILE* stream) {
  HANDLE handle = reinterpret_cast<HANDLE>(::_get_osfhandle(::_fileno(stream)));
  DWORD mode = 0;
  if (handle == INVALID_HANDLE_VALUE || !::GetConsoleMode(handle, &mode)) return false;
  return (mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0 ||
         ::SetConsoleMode(handle, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0;
}

std::optional<std::string> encode_for_console(std::string_view utf8) {
  bool ascii = true;
  for (const char c : utf8) {
    ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  }
  if (ascii) {
    return std::string(utf8);
  }
  // The console's code page, or the OEM one when there is no console.
  UINT code_page = ::GetConsoleOutputCP();
  if (code_page == 0) code_page = ::GetOEMCP();
  if (code_page == CP_UTF8) {
    return std::string(utf8);
  }
  const std::wstring wide = widen(utf8);
  BOOL lossy = FALSE;
  const int length = ::WideCharToMultiByte(code_page, WC_NO_BEST_FIT_CHARS, wide.c_str(), static_cast<int>(wide.size()),
                                           nullptr, 0, nullptr, &lossy);
  if (length <= 0 || lossy) {
    return std::nullopt;
  }
  std::string encoded(static_cast<std::size_t>(length), '\0');
  ::WideCharToMultiByte(code_page, WC_NO_BEST_FIT_CHARS, wide.c_str(), static_cast<int>(wide.size()), encoded.data(),
                        length, nullptr, &lossy);
  return encoded;
}

namespace {

const wchar_t* const k_command_processor = L"Software\\Microsoft\\Command Processor";

}  // namespace

Result<std::string> read_cmd_autorun() {
  std::wstring value(32768, L'\0');
  DWORD size = static_cast<DWORD>(value.size() * sizeof(wchar_t));
  const LSTATUS status =
      ::RegGetValueW(HKEY_CURRENT_USER, k_command_processor, L"AutoRun",
                     RRF_RT_REG_SZ | RRF_RT_REG_EXPAND_SZ | RRF_NOEXPAND, nullptr, value.data(), &size);
  if (status == ERROR_FILE_NOT_FOUND) {
    return std::string();
  }
  if (status != ERROR_SUCCESS) {
    return make_error("cannot read cmd's AutoRun: " + last_error_message(static_cast<DWORD>(status)));
  }
  value.resize(size / sizeof(wchar_t) > 0 ? size / sizeof(wchar_t) - 1 : 0);
  return narrow(value);
}

Result<void> write_cmd_autorun(const std::string& value) {
  HKEY key = nullptr;
  if (const LSTATUS status = ::RegCreateKeyExW(HKEY_CURRENT_USER, k_command_processor, 0, nullptr, 0, KEY_SET_VALUE,
                                               nullptr, &key, nullptr);
      status != ERROR_SUCCESS) {
    return make_error("cannot open cmd's settings: " + last_error_message(static_cast<DWORD>(status)));
  }
  LSTATUS status = ERROR_SUCCESS;
  if (value.empty()) {
    status = ::RegDeleteValueW(key, L"AutoRun");
    if (status == ERROR_FILE_NOT_FOUND) status = ERROR_SUCCESS;
  } else {
    const std::wstring wide = widen(value);
    status = ::RegSetValueExW(key, L"AutoRun", 0, REG_SZ, reinterpret_cast<const BYTE*>(wide.c_str()),
                              static_cast<DWORD>((wide.size() + 1) * sizeof(wchar_t)));
  }
  ::RegCloseKey(key);
  if (status != ERROR_SUCCESS) {
    return make_error("cannot write cmd's AutoRun: " + last_error_message(static_cast<DWORD>(status)));
  }
  return {};
}

std::optional<ExecutionPolicy> powershell_execution_policy() {
  auto read = [](HKEY root, const wchar_t* key) -> std::string {
    wchar_t value[64] = {};
    DWORD size = sizeof value;
    if (::RegGetValueW(root, key, L"ExecutionPolicy", RRF_RT_REG_SZ, nullptr, value, &size) != ERROR_SUCCESS) {
      return {};
    }
    return narrow(value);
  };
  // Precedence: MachinePolicy, UserPolicy, Process, CurrentUser, LocalMachine (about_Execution_Policies).
  const wchar_t* policies = L"Software\\Policies\\Microsoft\\Windows\\PowerShell";
  const wchar_t* shell_ids = L"Software\\Microsoft\\PowerShell\\1\\ShellIds\\Microsoft.PowerShell";
  if (auto value = read(HKEY_LOCAL_MACHINE, policies); !value.empty()) return ExecutionPolicy{value, "MachinePolicy"};
  if (auto value = read(HKEY_CURRENT_USER, policies); !value.empty()) return ExecutionPolicy{value, "UserPolicy"};
  wchar_t process[64] = {};
  if (::GetEnvironmentVariableW(L"PSExecutionPolicyPreference", process, 64) > 0) {
    return ExecutionPolicy{narrow(process), "Process"};
  }
  if (auto value = read(HKEY_CURRENT_USER, shell_ids); !value.empty()) return ExecutionPolicy{value, "CurrentUser"};
  if (auto value = read(HKEY_LOCAL_MACHINE, shell_ids); !value.empty()) return ExecutionPolicy{value, "LocalMachine"};
  return ExecutionPolicy{"Restricted", "the default on Windows clients"};
}

}  // namespace cudnnenv::util
