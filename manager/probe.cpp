#include "probe.hpp"

#include <cstdio>

#include "util/dynlib.hpp"
#include "util/environment.hpp"
#include "util/process.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

Result<ProbeReport> probe_in_process(const fs::path& library) {
  auto loaded = util::DynamicLibrary::open(library);
  if (!loaded) {
    return std::move(loaded).error();
  }
  using VersionFunction = std::size_t (*)();
  auto get_version = reinterpret_cast<VersionFunction>(loaded->symbol("cudnnGetVersion"));
  if (!get_version) {
    return make_error("'" + util::to_utf8(library) + "' does not export cudnnGetVersion",
                      "it is not a cuDNN library");
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
    return 1;
  }
  std::printf("cudnn_version=%zu\n", report->version_raw);
  if (report->cudart_raw) {
    std::printf("cudart_version=%zu\n", *report->cudart_raw);
  }
  std::printf("loaded_from=%s\n", report->loaded_from.c_str());
  return 0;
}

std::optional<ProbeReport> parse_probe_output(std::string_view text) {
  ProbeReport report;
  bool have_version = false;
  for (const auto& line : util::split(text, '\n')) {
    const auto equals = line.find('=');
    if (equals == std::string::npos) {
      continue;
    }
    const std::string key = line.substr(0, equals);
    const std::string value(util::trim(line.substr(equals + 1)));
    try {
      if (key == "cudnn_version") {
        report.version_raw = std::stoull(value);
        have_version = true;
      } else if (key == "cudart_version") {
        report.cudart_raw = std::stoull(value);
      } else if (key == "loaded_from") {
        report.loaded_from = value;
      }
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return have_version ? std::optional<ProbeReport>(report) : std::nullopt;
}

Result<ProbeReport> probe_in_child(const fs::path& executable, const fs::path& library,
                                   std::chrono::milliseconds timeout) {
  util::ProcessSpec spec;
  spec.program = executable;
  spec.arguments = {"__probe", util::to_utf8(library)};
  spec.environment = util::Environment::current();
  spec.timeout = timeout;
#ifdef _WIN32
  const char* search_variable = "PATH";
#else
  const char* search_variable = "LD_LIBRARY_PATH";
#endif
  const std::string folder = util::to_utf8(library.parent_path());
  const auto existing = spec.environment.get(search_variable);
  spec.environment.set(search_variable,
                       existing && !existing->empty() ? folder + util::path_list_separator() + *existing : folder);

  auto outcome = util::run_process(spec);
  if (!outcome) {
    return std::move(outcome).error();
  }
  const std::string name = "'" + util::to_utf8(library) + "'";
  if (outcome->timed_out) {
    return make_error("loading " + name + " did not finish within " + std::to_string(timeout.count() / 1000) + " s",
                      "the library hangs while loading: check it with 'cudnnenv verify'");
  }
  if (outcome->signal != 0) {
    return make_error("loading " + name + " crashed the probe (signal " + std::to_string(outcome->signal) + ")",
                      "the library is damaged or built for another system");
  }
  if (outcome->exit_code != 0) {
    std::string reason(util::trim(outcome->err));
    return make_error(reason.empty() ? "cannot load " + name : reason,
                      "a dependency may be missing, or the file is built for another system");
  }
  auto report = parse_probe_output(outcome->out);
  if (!report) {
    return make_error("the probe of " + name + " printed no version");
  }
  return *report;
}

}  // namespace cudnnenv
