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
