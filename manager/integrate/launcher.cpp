#include "integrate/launcher.hpp"

#include <algorithm>
#include <chrono>
#include <system_error>

#include <spdlog/spdlog.h>

#include "pin/launch.hpp"
#include "util/process.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

Pin pin_of(const Selection& selection, const std::string& runtime_named) {
  return {selection.profile ? selection.profile->name : selection.tree.name,
          runtime_named.empty() || !selection.runtime() ? std::string() : selection.runtime()->name};
}

std::string pin_flags(const Pin& pin) {
  return "--cudnn " + util::command_word(pin.spec) +
         (pin.runtime.empty() ? std::string() : " --runtime " + util::command_word(pin.runtime));
}

Result<fs::path> find_python(const std::string& given, const util::Environment& environment,
                             const std::vector<fs::path>& skip, const std::string& which) {
  std::error_code ec;
  if (!given.empty()) {
    fs::path python = fs::absolute(util::path_from_utf8(given), ec);
    if (!fs::is_regular_file(python, ec)) {
      return make_error("no program '" + util::printable(given) + "'", "give " + which + " with --python",
                        ExitCode::not_found);
    }
    return python;
  }
  for (const char* command : {"python3", "python"}) {
    if (auto found = find_program(command, environment, skip)) return *found;
  }
  return make_error("no python3 or python on PATH", "give " + which + " with --python", ExitCode::not_found);
}

Result<fs::path> python_with_ipykernel(const util::Environment& environment, const std::vector<fs::path>& skip) {
  std::vector<std::string> tried;
  for (const char* command : {"python3", "python"}) {
    auto found = find_program(command, environment, skip);
    if (!found) continue;
    const std::string shown = util::to_utf8(*found);
    if (std::find(tried.begin(), tried.end(), shown) != tried.end()) continue;
    tried.push_back(shown);
    util::PythonSpec spec;
    spec.python = *found;
    spec.script = "import ipykernel";
    spec.environment = environment;
    auto outcome = util::run_python(spec);
    if (outcome && outcome->exit_code == 0) return *found;
    spdlog::debug("export jupyter: '{}' cannot import ipykernel", shown);
  }
  if (tried.empty()) {
    return make_error("no python3 or python on PATH", "give the Python that has ipykernel with --python",
                      ExitCode::not_found);
  }
  std::string names;
  for (const auto& name : tried) names += (names.empty() ? "'" : ", '") + name + "'";
  return make_error("no Python on PATH has ipykernel (" + names +
                        " cannot import it): a kernel started with it "
                        "would die at once",
                    "install it into that Python: " + util::command_word(tried.front()) +
                        " -m pip install ipykernel; or give one that has it: --python PATH",
                    ExitCode::not_found);
}

Result<fs::path> write_launcher(const Selection& selection, const fs::path& python, const std::string& runtime_named,
                                ShimPaths paths, const StatePaths& state, Pin& pin) {
  pin = pin_of(selection, runtime_named);
  paths.shims_dir = state.launchers(selection.tree.name, python, pin.spec, pin.runtime);
  ShimSpec spec;
  spec.name = "python";
  spec.target = python;
  spec.cudnn = pin.spec;
  spec.runtime = pin.runtime;
  CUDNNENV_TRY_ASSIGN(shim, add_shim(spec, paths));
  return shim->file;
}

}  // namespace cudnnenv
