#include <sys/utsname.h>

#include "doctor/facts.hpp"
#include "util/fs.hpp"

namespace cudnnenv {

std::string proc_driver_version() {
  auto text = util::read_file("/proc/driver/nvidia/version");
  return text ? parse_proc_driver_version(*text) : std::string();
}

std::optional<bool> cpu_has_avx() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx") != 0;
#else
  return std::nullopt;
#endif
}

std::optional<std::vector<std::string>> read_registry_path() {
  return std::nullopt;
}

std::vector<RuntimeFile> find_vc_runtime(const util::Environment&) {
  return {};
}

std::string os_description() {
  utsname name{};
  if (::uname(&name) != 0) return "Linux";
  return std::string(name.sysname) + " " + name.release + " " + name.machine;
}

std::optional<std::string> wine_version() {
  return std::nullopt;
}

std::string code_pages() {
  return {};
}

}  // namespace cudnnenv
