// The TOML loaders: a project's .cudnnenv.toml (from cloned repositories),
// the store's config.toml with users' profiles, a tree's tree.toml (from a
// store anyone may have written to); and the activation state a shell
// hands back in _CUDNNENV_STATE. What they accept must render safely.
#include "select/profile.hpp"
#include "select/project.hpp"
#include "shell/activation.hpp"
#include "store/tree.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto project = cudnnenv::parse_project_file(text, ".cudnnenv.toml")) {
    cudnnenv::shell::Activation activation;
    activation.set = project->env;
    const auto operations = cudnnenv::shell::activate({}, activation, ':');
    for (auto shell : {cudnnenv::shell::Shell::bash, cudnnenv::shell::Shell::fish, cudnnenv::shell::Shell::powershell,
                       cudnnenv::shell::Shell::cmd}) {
      if (!cudnnenv::shell::unsafe_value(shell, operations)) {
        (void)cudnnenv::shell::render(shell, operations);
      }
    }
  }
  (void)cudnnenv::parse_config(text, "config.toml");
  (void)cudnnenv::parse_profiles(text, "config.toml");
  (void)cudnnenv::parse_record(text, "/store/tree", "/store/tree/.cudnnenv/tree.toml");
  cudnnenv::util::Environment environment;
  environment.set(cudnnenv::shell::k_state_variable, std::string(text));
  const auto undo = cudnnenv::shell::deactivate(environment, ':');
  if (!cudnnenv::shell::unsafe_value(cudnnenv::shell::Shell::bash, undo)) {
    (void)cudnnenv::shell::render(cudnnenv::shell::Shell::bash, undo);
  }
  return 0;
}
