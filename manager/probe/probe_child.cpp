// The child's half of the probe, built into the small cudnnenv-probe
// program: cudnnenv itself is linked statically (it starts on every shell
// prompt and launch), and a static program cannot load a glibc library.
#include <cstdio>

#include "probe/probe.hpp"
#include "probe/protocol.hpp"
#include "util/dynlib.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

Result<ProbeReport> probe_in_process(const fs::path& library) {
  CUDNNENV_TRY_ASSIGN(loaded, util::DynamicLibrary::open(library));
  using VersionFunction = std::size_t (*)();
  auto get_version = reinterpret_cast<VersionFunction>(loaded->symbol("cudnnGetVersion"));
  if (!get_version) {
    return make_error("'" + util::to_utf8(library) + "' does not export cudnnGetVersion", "it is not a cuDNN library");
  }
  ProbeReport report;
  report.version_raw = get_version();
  if (auto get_cudart = reinterpret_cast<VersionFunction>(loaded->symbol("cudnnGetCudartVersion"))) {
    report.cudart_raw = get_cudart();
  }
  report.loaded_from = util::to_utf8(loaded->loaded_path());
  return report;
}

std::optional<std::pair<std::string, std::string>> runtime_library_version(const util::DynamicLibrary& library,
                                                                           std::string_view file_name) {
  using IntOut = int (*)(int*);
  using Property = int (*)(int, int*);  // libraryPropertyType: 0 major, 1 minor, 2 patch
  using TwoInts = int (*)(int*, int*);
  using TwoUnsigned = int (*)(unsigned*, unsigned*);
  using SizeT = std::size_t (*)();
  const auto dotted = [](int major, int minor) { return std::to_string(major) + "." + std::to_string(minor); };
  // The library's own function, by its file's name: dlsym also finds what a
  // library's dependencies export (cuSOLVER's handle reaches cuBLAS's).
  const std::string name = util::to_lower(file_name);
  const auto named = [&](std::string_view stem) {
    return util::starts_with(name, "lib" + std::string(stem) + ".") ||
           util::starts_with(name, std::string(stem) + "64_") || util::starts_with(name, std::string(stem) + "_");
  };
  const auto property = [&](const char* function) -> std::optional<std::pair<std::string, std::string>> {
    auto get = reinterpret_cast<Property>(library.symbol(function));
    int major = 0, minor = 0, patch = 0;
    if (!get || get(0, &major) != 0 || get(1, &minor) != 0 || get(2, &patch) != 0) return std::nullopt;
    return std::pair{dotted(major, minor) + "." + std::to_string(patch), std::string(function)};
  };
  if (named("cudart")) {
    auto get = reinterpret_cast<IntOut>(library.symbol("cudaRuntimeGetVersion"));
    int version = 0;
    // 13000: 13.0 (CUDART_VERSION's encoding).
    if (get && get(&version) == 0) {
      return std::pair{dotted(version / 1000, version % 1000 / 10), "cudaRuntimeGetVersion"};
    }
  } else if (named("cublaslt")) {
    if (auto get = reinterpret_cast<SizeT>(library.symbol("cublasLtGetVersion"))) {
      return std::pair{std::to_string(get()), "cublasLtGetVersion"};
    }
  } else if (named("cublas")) {
    return property("cublasGetProperty");
  } else if (named("cufft") || named("cufftw")) {
    return property("cufftGetProperty");
  } else if (named("curand")) {
    return property("curandGetProperty");
  } else if (named("cusolver") || named("cusolvermg")) {
    return property("cusolverGetProperty");
  } else if (named("cusparse")) {
    return property("cusparseGetProperty");
  } else if (named("nvrtc")) {
    auto get = reinterpret_cast<TwoInts>(library.symbol("nvrtcVersion"));
    int major = 0, minor = 0;
    if (get && get(&major, &minor) == 0) return std::pair{dotted(major, minor), "nvrtcVersion"};
  } else if (named("nccl")) {
    // NCCL_VERSION_CODE: 22705 is 2.27.5 (from 2.9 on; 2.8.4 was 2804).
    auto get = reinterpret_cast<IntOut>(library.symbol("ncclGetVersion"));
    int code = 0;
    if (get && get(&code) == 0 && code > 0) {
      const int major = code >= 10000 ? code / 10000 : code / 1000;
      const int minor = code >= 10000 ? code % 10000 / 100 : code % 1000 / 100;
      return std::pair{dotted(major, minor) + "." + std::to_string(code % 100), "ncclGetVersion"};
    }
  } else if (named("nvinfer")) {
    // NV_TENSORRT_VERSION: 101303 is 10.13.3; 8601 is 8.6.1 (before 10: major*1000).
    using Int = int (*)();
    if (auto get = reinterpret_cast<Int>(library.symbol("getInferLibVersion")); get && get() > 0) {
      const int code = get();
      const int major = code >= 100000 ? code / 10000 : code / 1000;
      const int minor = code >= 100000 ? code % 10000 / 100 : code % 1000 / 100;
      return std::pair{dotted(major, minor) + "." + std::to_string(code % 100), "getInferLibVersion"};
    }
  } else if (named("nvjitlink")) {
    auto get = reinterpret_cast<TwoUnsigned>(library.symbol("nvJitLinkVersion"));
    unsigned major = 0, minor = 0;
    if (get && get(&major, &minor) == 0) return std::pair{dotted(int(major), int(minor)), "nvJitLinkVersion"};
  }
  return std::nullopt;
}

int run_probe_child(const fs::path& library) {
  auto report = probe_in_process(library);
  if (!report) {
    std::fprintf(stderr, "%s\n", report.error().message.c_str());
    return static_cast<int>(probe_protocol::ProbeExit::failed);
  }
  namespace key = probe_protocol;
  std::printf("%s=%zu\n", key::cudnn_version.data(), report->version_raw);
  if (report->cudart_raw) {
    std::printf("%s=%zu\n", key::cudart_version.data(), *report->cudart_raw);
  }
  std::printf("%s=%s\n", key::loaded_from.data(), report->loaded_from.c_str());
  return static_cast<int>(probe_protocol::ProbeExit::ok);
}

}  // namespace cudnnenv
