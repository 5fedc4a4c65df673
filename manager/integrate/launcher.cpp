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

Pin pin_of(const Selection& selection, const BesideNames& named) {
  Pin pin{selection.profile ? selection.profile->name : selection.tree.name, {}};
  for (const auto& [kind, text] : named) {
    if (const TreeRecord* tree = selection.tree_of(kind); tree && !text.empty()) pin.beside[kind] = tree->name;
  }
  return pin;
}

std::string pin_flags(const Pin& pin) {
  std::string flags = "--cudnn " + util::command_word(pin.spec);
  const auto beside = beside_flags(pin.beside);
  for (std::size_t i = 0; i + 1 < beside.size(); i += 2)
    flags += " " + beside[i] + " " + util::command_word(beside[i + 1]);
  return flags;
}

namespace {

// What names the launcher's folder besides the interpreter and the spec:
// the runtime's name (as before NCCL had a row), then each other row's as `key=name`.
std::string beside_identity(const BesideNames& beside) {
  std::string text;
  if (auto runtime = beside.find(TreeKind::cuda); runtime != beside.end()) text = runtime->second;
  for (const auto& [kind, name] : beside) {
    if (kind != TreeKind::cuda) text += "\n" + std::string(component(kind).json_key) + "=" + name;
  }
  return text;
}

}  // namespace

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

Result<fs::path> write_launcher(const Selection& selection, const fs::path& python, const BesideNames& named,
                                ShimPaths paths, const StatePaths& state, Pin& pin) {
  pin = pin_of(selection, named);
  paths.shims_dir = state.launchers(selection.tree.name, python, pin.spec, beside_identity(pin.beside));
  ShimSpec spec;
  spec.name = "python";
  spec.target = python;
  spec.cudnn = pin.spec;
  spec.beside = pin.beside;
  CUDNNENV_TRY_ASSIGN(shim, add_shim(spec, paths));
  return shim->file;
}

}  // namespace cudnnenv
