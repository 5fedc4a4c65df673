#include "store/state.hpp"

#include "state_layout.hpp"
#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

fs::path StatePaths::config() const {
  return folder / layout::k_config_file;
}
fs::path StatePaths::trust() const {
  return folder / layout::k_trust_folder;
}
fs::path StatePaths::shims() const {
  return folder / "shims";
}
fs::path StatePaths::launchers(const std::string& tree, const fs::path& interpreter, const std::string& spec,
                               const std::string& runtime) const {
  util::Sha256 hash;
  std::string path = util::to_utf8(interpreter);
  if ((!spec.empty() && spec != tree) || !runtime.empty()) path += "\n" + spec + "\n" + runtime;
  hash.update(path.data(), path.size());
  return launchers() / util::path_from_utf8(tree) / hash.hex_digest().substr(0, 16);
}

fs::path StatePaths::launchers() const {
  return folder / "launchers";
}
fs::path StatePaths::downloads() const {
  return folder / "downloads";
}
fs::path StatePaths::cache() const {
  return folder / layout::k_cache_folder;
}
fs::path StatePaths::fences() const {
  return folder / "fence";
}

fs::path StatePaths::pin_checks() const {
  return cache() / "pin-checks";
}
fs::path StatePaths::health_checks() const {
  return cache() / "health-checks";
}
fs::path StatePaths::health_lock() const {
  return folder / "locks" / "slurm-health.lock";
}
fs::path StatePaths::report_log(unsigned long process_id) const {
  return cache() / ("report-" + std::to_string(process_id) + ".log");
}
fs::path StatePaths::cmd_scripts() const {
  return folder / "cmd";
}
fs::path StatePaths::profile_scripts(const std::string& profile) const {
  return folder / "profiles" / util::path_from_utf8(profile);
}
fs::path StatePaths::terminal(const std::string& name) const {
  return folder / "terminals" / util::path_from_utf8(name);
}

std::optional<std::string> own_folder_changeable_by_others(const fs::path& root) {
  std::error_code ec;
  const fs::path own = root / layout::k_own_folder;
  if (fs::exists(fs::symlink_status(own, ec))) return util::changeable_by_others(own);
  if (fs::exists(root, ec)) return util::changeable_by_others(root);
  return std::nullopt;  // no store yet: this user makes it
}

bool user_can_write(const fs::path& root) {
  const fs::path own = root / layout::k_own_folder;
  std::error_code ec;
  const bool exists = fs::exists(own, ec);
  const bool writable = (exists && util::is_writable_directory(own)) || (!exists && !fs::exists(root, ec)) ||
                        (!exists && util::is_writable_directory(root));
  return writable && !own_folder_changeable_by_others(root);
}

Result<fs::path> state_folder_for(const fs::path& root, const util::Environment& environment, Os os) {
  const auto absolute = [&](const char* variable) -> std::optional<fs::path> {
    auto value = environment.get(variable);
    if (!value || value->empty()) return std::nullopt;
    fs::path path = util::path_from_utf8(*value);
    if (!path.is_absolute()) return std::nullopt;
    return path;
  };
  if (auto chosen = environment.get("CUDNNENV_STATE_DIR"); chosen && !chosen->empty()) {
    if (!util::path_from_utf8(*chosen).is_absolute()) {
      return make_error("CUDNNENV_STATE_DIR is '" + *chosen + "', a relative path",
                        "set it to an absolute folder of your own", ExitCode::usage);
    }
    return util::path_from_utf8(*chosen);
  }
  const fs::path own = root / layout::k_own_folder;
  if (user_can_write(root)) return own;
  // A store this user cannot write (a shared one): this user's own folder.
  const auto refused = [&](const std::string& what) {
    return make_error("the store '" + util::to_utf8(root) + "' is not writable here and " + what +
                          ": there is no folder of your own for your settings and trust records",
                      "set CUDNNENV_STATE_DIR to an absolute folder of your own (or " +
                          std::string(os == Os::windows ? "LOCALAPPDATA" : "HOME") + ")",
                      ExitCode::usage);
  };
  if (os == Os::windows) {
    if (auto local = absolute("LOCALAPPDATA")) return *local / "cudnnenv";
    return refused("LOCALAPPDATA is not an absolute path");
  }
  if (auto state = absolute("XDG_STATE_HOME")) return *state / "cudnnenv";
  if (auto home = absolute("HOME")) return *home / ".local" / "state" / "cudnnenv";
  if (auto home = util::account_home_folder()) return *home / ".local" / "state" / "cudnnenv";
  return refused("HOME is not set to an absolute path");
}

}  // namespace cudnnenv
