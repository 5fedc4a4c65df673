// cudnnenv-probe --gpus: the driver and its GPUs (doctor, snapshot).
// cudnnenv-probe [--load-only | --conv [--device D]] LIBRARY: loads one library by
// absolute path and prints what it reports (cudnnGetVersion,
// cudnnGetCudartVersion, the mapped file) as key=value lines; with --conv,
// also runs the GPU convolution check; with --load-only, only loads it (the
// sub-libraries export no version). Run by cudnnenv in a child process
// with a timeout, so that a crashing or hanging library cannot take it down.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "probe/probe.hpp"
#include "probe/protocol.hpp"
#include "util/dynlib.hpp"
#include "util/text.hpp"

namespace {

using cudnnenv::probe_protocol::ProbeExit;

int probe_main(const std::vector<std::string>& arguments) {
  bool conv = false;
  bool sgemm = false;
  bool load_only = false;
  std::optional<cudnnenv::probe_protocol::DeviceChoice> devices = cudnnenv::probe_protocol::DeviceChoice{};
  std::string library;
  if (arguments.size() == 2 && arguments[1] == "--gpus") {
    const int code = cudnnenv::run_gpu_probe();
    std::fflush(nullptr);
    std::_Exit(code);
  }
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    if (arguments[i] == "--conv") {
      conv = true;
    } else if (arguments[i] == "--sgemm") {
      sgemm = true;
    } else if (arguments[i] == "--load-only") {
      load_only = true;
    } else if (arguments[i] == "--device" && i + 1 < arguments.size()) {
      devices = cudnnenv::probe_protocol::parse_device_choice(arguments[++i]);
    } else if (library.empty()) {
      library = arguments[i];
    } else {
      library.clear();
      break;
    }
  }
  if (library.empty() || !devices) {
    std::fprintf(stderr,
                 "usage: cudnnenv-probe --gpus | [--load-only | --conv [--device D] | --sgemm [--device D]] LIBRARY\n"
                 "  D: a GPU's index, 'all', or indices joined by commas (0,2,5)\n");
    return static_cast<int>(ProbeExit::usage);
  }
  const auto path = cudnnenv::util::path_from_utf8(library);
  if (load_only) {
    auto library = cudnnenv::util::DynamicLibrary::open(path);
    if (!library) {
      std::fprintf(stderr, "%s\n", library.error().message.c_str());
      return static_cast<int>(ProbeExit::failed);
    }
    std::printf("%s=%s\n", cudnnenv::probe_protocol::loaded_from.data(),
                cudnnenv::util::to_utf8(library->loaded_path()).c_str());
    if (const auto version = cudnnenv::runtime_library_version(*library, cudnnenv::util::to_utf8(path.filename()))) {
      std::printf("%s=%s\n%s=%s\n", cudnnenv::probe_protocol::library_version.data(), version->first.c_str(),
                  cudnnenv::probe_protocol::library_version_from.data(), version->second.c_str());
    }
    // Out at once, as --conv: the library's own tear-down adds nothing to the
    // report (and CUDA's libraries keep allocations a leak checker of a
    // sanitized build would count as this program's).
    std::fflush(nullptr);
    std::_Exit(static_cast<int>(ProbeExit::ok));
  }
  if (sgemm) {
    const int code = cudnnenv::run_sgemm_probe(path, *devices);
    std::fflush(nullptr);
    std::_Exit(code);
  }
  if (conv) {
    // Out at once: the report is written, and the driver's own tear-down at
    // exit (contexts, modules) only adds to what verify waits for.
    const int code = cudnnenv::run_conv_probe(path, *devices);
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return cudnnenv::run_probe_child(path);
}

}  // namespace

#ifdef _WIN32
#include "util/win.hpp"

int wmain(int argc, wchar_t** argv) {
  std::vector<std::string> arguments;
  for (int i = 0; i < argc; ++i) {
    arguments.push_back(cudnnenv::util::narrow(argv[i]));
  }
  return probe_main(arguments);
}
#else
int main(int argc, char** argv) {
  return probe_main(std::vector<std::string>(argv, argv + argc));
}
#endif
