// Operating systems and CPU architectures that cuDNN trees are built for,
// and the host's own.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cudnnenv {

enum class Os { linux, windows };
enum class Arch { unknown, x86, x86_64, arm64, arm, ppc64le };

struct Platform {
  Os os = Os::linux;
  Arch arch = Arch::x86_64;
  bool operator==(const Platform&) const = default;
};

// The platform this program was built for.
Platform host_platform();

// Whether this program runs on Windows (host_platform().os, said once).
inline bool windows_host() {
  return host_platform().os == Os::windows;
}

std::string to_string(Os os);      // "linux", "windows"
std::string to_string(Arch arch);  // "x86_64", "x86", "arm64", ...
std::optional<Os> parse_os(std::string_view text);
std::optional<Arch> parse_arch(std::string_view text);

// "Windows x64", "Linux x86_64": how users and vendors name a platform.
std::string describe(Platform platform);

}  // namespace cudnnenv
