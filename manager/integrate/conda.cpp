#include "integrate/conda.hpp"

#include "shell/init.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

Result<fs::path> conda_env(const std::string& prefix_text) {
  if (prefix_text.empty()) {
    return make_error("no conda env named: CONDA_PREFIX is not set", "activate the env first, or give --prefix PATH",
                      ExitCode::usage);
  }
  const fs::path prefix = util::path_from_utf8(prefix_text);
  std::error_code ec;
  if (!fs::is_directory(prefix / "conda-meta", ec)) {
    return make_error("'" + prefix_text + "' is not a conda env (it has no conda-meta folder)",
                      "give the env's folder: conda env list shows them", ExitCode::not_found);
  }
  return prefix;
}

Result<FileChanges> write_conda_hooks(const fs::path& prefix, const std::string& program, const std::string& root,
                                      const std::string& spec, const std::optional<std::string>& batch_program_line) {
  const fs::path hooks = prefix / "etc" / "conda";
  const auto files = shell::conda_hooks(program, root, spec, batch_program_line);
  for (const auto& file : files) {
    CUDNNENV_TRY(no_link_on_the_way(prefix, hooks / util::path_from_utf8(file.path)));
  }
  FileChanges changes;
  for (const auto& file : files) {
    const fs::path path = hooks / util::path_from_utf8(file.path);
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    CUDNNENV_TRY(util::write_file_atomic(path, file.text));
    changes.push_back({FileChange::Kind::wrote, path, {}});
  }
  return changes;
}

FileChanges remove_conda_hooks(const fs::path& prefix, const std::string& program, const std::string& root) {
  const fs::path hooks = prefix / "etc" / "conda";
  FileChanges changes;
  // Every name a hook of ours can have, deleted only when it says it is ours.
  for (const auto& file : shell::conda_hooks(program, root, "x", std::string())) {
    const fs::path path = hooks / util::path_from_utf8(file.path);
    auto text = util::read_file(path);
    if (!text || text->find(shell::k_conda_marker) == std::string::npos) continue;
    std::error_code ec;
    if (fs::remove(path, ec)) changes.push_back({FileChange::Kind::removed, path, {}});
  }
  return changes;
}

}  // namespace cudnnenv
