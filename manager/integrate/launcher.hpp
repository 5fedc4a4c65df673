// IDE launchers and the Pythons that exports pin: what `export launcher`,
// `export vscode` and `export jupyter` write beside what they print.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "pin/shims.hpp"
#include "select/resolve.hpp"
#include "store/state.hpp"
#include "util/environment.hpp"
#include "util/result.hpp"

namespace cudnnenv {

// What a launcher or a kernel pins: the profile when one chose the tree (its
// variables and its runtime rule come with it), else the tree; and the tree
// of each row beside it that was named (`named`: --runtime, --nccl given).
struct Pin {
  std::string spec;
  BesideNames beside;
};
Pin pin_of(const Selection& selection, const BesideNames& named);

// "--cudnn SPEC [--runtime NAME] [--nccl NAME]", as a command line takes them.
std::string pin_flags(const Pin& pin);

// The Python to pin: `given` (made absolute), else python3 (then python) on
// PATH, never one in `skip`; `which` names it in the hint.
Result<std::filesystem::path> find_python(const std::string& given, const util::Environment& environment,
                                          const std::vector<std::filesystem::path>& skip, const std::string& which);

// The first of python3 and python on PATH (never in `skip`) that imports
// ipykernel, which a kernel runs (`-m ipykernel_launcher`): one without it
// (a pyenv shim's Python, the system's) would die at each start. The check runs
// through util::run_python: a repository's own ipykernel.py never answers.
Result<std::filesystem::path> python_with_ipykernel(const util::Environment& environment,
                                                    const std::vector<std::filesystem::path>& skip);

// A launcher named python (python.exe) pinned to `selection`: a shim in
// launchers/<tree>/<interpreter and pin>/ (another project's export never
// rewrites it) whose every start is `cudnnenv exec --cudnn SPEC [--runtime
// NAME ...] -- PYTHON` (the sidecar's `cudnn`, `runtime`, `nccl`), for IDEs that take
// an interpreter's path. `pin` gets what it pins. Returns the launcher's path.
Result<std::filesystem::path> write_launcher(const Selection& selection, const std::filesystem::path& python,
                                             const BesideNames& named, ShimPaths paths, const StatePaths& state,
                                             Pin& pin);

}  // namespace cudnnenv
