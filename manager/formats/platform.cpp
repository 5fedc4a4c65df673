#include "formats/platform.hpp"

namespace cudnnenv {

Platform host_platform() {
#if defined(_WIN32)
  const Os os = Os::windows;
#else
  const Os os = Os::linux;
#endif
#if defined(__x86_64__) || defined(_M_X64)
  const Arch arch = Arch::x86_64;
#elif defined(__aarch64__) || defined(_M_ARM64)
  const Arch arch = Arch::arm64;
#elif defined(__i386__) || defined(_M_IX86)
  const Arch arch = Arch::x86;
#elif defined(__powerpc64__)
  const Arch arch = Arch::ppc64le;
#else
  const Arch arch = Arch::unknown;
#endif
  return {os, arch};
}

std::string to_string(Os os) {
  return os == Os::windows ? "windows" : "linux";
}

std::string to_string(Arch arch) {
  switch (arch) {
    case Arch::x86:
      return "x86";
    case Arch::x86_64:
      return "x86_64";
    case Arch::arm64:
      return "arm64";
    case Arch::arm:
      return "arm";
    case Arch::ppc64le:
      return "ppc64le";
    case Arch::unknown:
      break;
  }
  return "unknown";
}

std::optional<Os> parse_os(std::string_view text) {
  if (text == "linux") {
    return Os::linux;
  }
  if (text == "windows") {
    return Os::windows;
  }
  return std::nullopt;
}

std::optional<Arch> parse_arch(std::string_view text) {
  for (Arch arch : {Arch::x86, Arch::x86_64, Arch::arm64, Arch::arm, Arch::ppc64le}) {
    if (text == to_string(arch)) {
      return arch;
    }
  }
  return std::nullopt;
}

std::string describe(Platform platform) {
  if (platform.os == Os::windows) {
    return std::string("Windows ") + (platform.arch == Arch::x86_64 ? "x64" : to_string(platform.arch));
  }
  return "Linux " + to_string(platform.arch);
}

}  // namespace cudnnenv
