// A join the state-paths lint must catch (tests/CMakeLists.txt: lint_state_paths_catches).
#include <filesystem>

std::filesystem::path joined(const std::filesystem::path& state) {
  return state / "config.toml";
}
