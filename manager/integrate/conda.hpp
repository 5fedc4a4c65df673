// conda envs: `export conda` writes activate.d/deactivate.d hooks into an
// env (shell/init's conda_hooks: sh, fish, PowerShell, and cmd on Windows)
// that activate one spec from the store each `conda activate`, and remove
// exactly those hooks again.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "integrate/change.hpp"

namespace cudnnenv {

// `prefix_text` (the env's folder, CONDA_PREFIX when not given) when it is a
// conda env (it has conda-meta/); else why not and what to give.
Result<std::filesystem::path> conda_env(const std::string& prefix_text);

// Writes the hooks activating `spec` from the store `root` with `program`
// (cmd's when `batch_program_line` is given); refuses, writing nothing, when
// one of them would be written through a link inside the env.
Result<FileChanges> write_conda_hooks(const std::filesystem::path& prefix, const std::string& program,
                                      const std::string& root, const std::string& spec,
                                      const std::optional<std::string>& batch_program_line);

// Removes every hook of the env that says cudnnenv wrote it (the other files stay).
FileChanges remove_conda_hooks(const std::filesystem::path& prefix, const std::string& program,
                               const std::string& root);

}  // namespace cudnnenv
