#include <windows.h>

#include "doctor/facts.hpp"
#include "util/text.hpp"
#include "util/win.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

std::string proc_driver_version() {
  return {};
}

std::optional<bool> cpu_has_avx() {
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx") != 0;
#else
  return std::nullopt;
#endif
}

namespace {

// One PATH value from the registry, its %VARIABLES% expanded (REG_EXPAND_SZ).
std::optional<std::wstring> registry_value(HKEY root, const wchar_t* key, const wchar_t* name) {
  DWORD type = 0;
  DWORD size = 0;
  if (::RegGetValueW(root, key, name, RRF_RT_REG_SZ | RRF_RT_REG_EXPAND_SZ | RRF_NOEXPAND, &type, nullptr, &size) !=
      ERROR_SUCCESS) {
    return std::nullopt;
  }
  std::wstring value(size / sizeof(wchar_t) + 1, L'\0');
  if (::RegGetValueW(root, key, name, RRF_RT_REG_SZ | RRF_RT_REG_EXPAND_SZ | RRF_NOEXPAND, &type, value.data(),
                     &size) != ERROR_SUCCESS) {
    return std::nullopt;
  }
  value.resize(wcsnlen(value.c_str(), value.size()));
  if (type == REG_EXPAND_SZ) {
    const DWORD needed = ::ExpandEnvironmentStringsW(value.c_str(), nullptr, 0);
    std::wstring expanded(needed, L'\0');
    if (needed > 0 && ::ExpandEnvironmentStringsW(value.c_str(), expanded.data(), needed) == needed) {
      expanded.resize(needed - 1);
      return expanded;
    }
  }
  return value;
}

}  // namespace

std::optional<std::vector<std::string>> read_registry_path() {
  auto machine =
      registry_value(HKEY_LOCAL_MACHINE, L"SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment", L"Path");
  auto user = registry_value(HKEY_CURRENT_USER, L"Environment", L"Path");
  if (!machine && !user) {
    return std::nullopt;
  }
  // A new process gets the machine's entries, then the user's.
  std::vector<std::string> entries;
  for (const auto& value : {machine, user}) {
    if (value) {
      for (const auto& entry : util::split_path_list(util::narrow(*value))) {
        entries.push_back(entry);
      }
    }
  }
  return entries;
}

std::vector<RuntimeFile> find_vc_runtime(const util::Environment& environment) {
  std::vector<RuntimeFile> files;
  const fs::path system = util::path_from_utf8(environment.get("SystemRoot").value_or("C:\\Windows")) / "System32";
  for (const wchar_t* name : {L"msvcp140.dll", L"vcruntime140.dll", L"vcruntime140_1.dll"}) {
    const fs::path file = system / name;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      continue;
    }
    RuntimeFile runtime{file, {}};
    DWORD handle = 0;
    const DWORD size = ::GetFileVersionInfoSizeW(file.c_str(), &handle);
    std::string block(size, '\0');
    VS_FIXEDFILEINFO* info = nullptr;
    UINT length = 0;
    if (size > 0 && ::GetFileVersionInfoW(file.c_str(), 0, size, block.data()) &&
        ::VerQueryValueW(block.data(), L"\\", reinterpret_cast<void**>(&info), &length) && info != nullptr) {
      runtime.version =
          std::to_string(HIWORD(info->dwFileVersionMS)) + "." + std::to_string(LOWORD(info->dwFileVersionMS)) + "." +
          std::to_string(HIWORD(info->dwFileVersionLS)) + "." + std::to_string(LOWORD(info->dwFileVersionLS));
    }
    files.push_back(runtime);
  }
  return files;
}

std::string os_description() {
  // RtlGetVersion, not GetVersionExW: the latter says 6.2 to a program
  // without a manifest naming Windows 10.
  using RtlGetVersionFunction = LONG(WINAPI*)(OSVERSIONINFOW*);
  OSVERSIONINFOW info{};
  info.dwOSVersionInfoSize = sizeof info;
  std::string text = "Windows";
  const auto get_version = reinterpret_cast<RtlGetVersionFunction>(
      reinterpret_cast<void*>(::GetProcAddress(::GetModuleHandleW(L"ntdll.dll"), "RtlGetVersion")));
  if (get_version && get_version(&info) == 0) {
    text += " " + std::to_string(info.dwMajorVersion) + "." + std::to_string(info.dwMinorVersion) + "." +
            std::to_string(info.dwBuildNumber);
  }
  SYSTEM_INFO system{};
  ::GetNativeSystemInfo(&system);
  text += system.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_AMD64   ? " x86_64"
          : system.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_ARM64 ? " arm64"
                                                                          : "";
  if (const auto wine = wine_version()) text += " (Wine " + *wine + ")";
  return text;
}

std::optional<std::string> wine_version() {
  // Wine's ntdll exports wine_get_version; Windows' has no such function.
  using WineVersionFunction = const char*(CDECL*)();
  const auto get_version = reinterpret_cast<WineVersionFunction>(
      reinterpret_cast<void*>(::GetProcAddress(::GetModuleHandleW(L"ntdll.dll"), "wine_get_version")));
  if (!get_version) return std::nullopt;
  const char* version = get_version();
  return std::string(version ? version : "");
}

std::string code_pages() {
  const UINT console = ::GetConsoleOutputCP();  // 0: no console
  return (console ? "console " + std::to_string(console) : std::string("no console")) + ", ANSI " +
         std::to_string(::GetACP());
}

}  // namespace cudnnenv
