#include "probe/probe.hpp"

#include <charconv>

#include "probe/protocol.hpp"

#include <cstdio>

#include "formats/platform.hpp"
#include "util/environment.hpp"
#include "util/process.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

std::optional<ProbeReport> parse_probe_output(std::string_view text) {
  namespace key = probe_protocol;
  ProbeReport report;
  bool have_version = false;
  auto number = [](const std::string& value) -> std::optional<std::size_t> {
    std::size_t parsed = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    return error == std::errc() && end == value.data() + value.size() && !value.empty() ? std::optional(parsed)
                                                                                        : std::nullopt;
  };
  for (const auto& [name, value] : key::parse_key_values(text)) {
    if (name == key::cudnn_version || name == key::cudart_version) {
      const auto parsed = number(value);
      if (!parsed) {
        return std::nullopt;
      }
      if (name == key::cudnn_version) {
        report.version_raw = *parsed;
        have_version = true;
      } else {
        report.cudart_raw = *parsed;
      }
    } else if (name == key::loaded_from) {
      report.loaded_from = value;
    }
  }
  return have_version ? std::optional<ProbeReport>(report) : std::nullopt;
}

fs::path probe_program_beside(const fs::path& program) {
  return program.parent_path() / (program.extension() == ".exe" ? "cudnnenv-probe.exe" : "cudnnenv-probe");
}

util::ProcessSpec probe_process(const fs::path& probe_program, const fs::path& library,
                                std::vector<std::string> arguments, std::chrono::milliseconds timeout,
                                const fs::path& runtime_dir) {
  util::ProcessSpec spec;
  spec.program = probe_program;
  spec.arguments = std::move(arguments);
  spec.arguments.push_back(util::to_utf8(library));
  spec.environment = util::Environment::current();
  spec.timeout = timeout;
  const char* search_variable = host_platform().os == Os::windows ? "PATH" : "LD_LIBRARY_PATH";
  std::string folder = util::to_utf8(library.parent_path());
  if (!runtime_dir.empty()) folder += util::path_list_separator() + util::to_utf8(runtime_dir);
  const auto existing = spec.environment.get(search_variable);
  spec.environment.set(search_variable,
                       existing && !existing->empty() ? folder + util::path_list_separator() + *existing : folder);
  return spec;
}

Result<ProbeReport> probe_in_child(const fs::path& probe_program, const fs::path& library,
                                   std::chrono::milliseconds timeout, const fs::path& runtime_dir) {
  const util::ProcessSpec spec = probe_process(probe_program, library, {}, timeout, runtime_dir);
  CUDNNENV_TRY_ASSIGN(outcome, util::run_process(spec));
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
