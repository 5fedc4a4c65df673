#include "store/state.hpp"

#include "state_layout.hpp"
#include "util/fs.hpp"
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
fs::path StatePaths::downloads() const {
  return folder / "downloads";
}
fs::path StatePaths::cache() const {
  return folder / layout::k_cache_folder;
}
fs::path StatePaths::pin_checks() const {
  return cache() / "pin-checks";
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

fs::path state_folder_for(const fs::path& root, const util::Environment& environment, Os os) {
  if (auto chosen = environment.get("CUDNNENV_STATE_DIR"); chosen && !chosen->empty()) {
    return util::path_from_utf8(*chosen);
  }
  const fs::path own = root / layout::k_own_folder;
  std::error_code ec;
  const bool exists = fs::exists(own, ec);
  if ((exists && util::is_writable_directory(own)) || (!exists && !fs::exists(root, ec)) ||
      (!exists && util::is_writable_directory(root))) {
    return own;
  }
  // A store this user cannot write (a shared one): this user's own folder.
  if (os == Os::windows) {
    return util::path_from_utf8(environment.get("LOCALAPPDATA").value_or(".")) / "cudnnenv";
  }
  if (auto state = environment.get("XDG_STATE_HOME"); state && !state->empty()) {
    return util::path_from_utf8(*state) / "cudnnenv";
  }
  return util::path_from_utf8(environment.get("HOME").value_or(".")) / ".local" / "state" / "cudnnenv";
}

}  // namespace cudnnenv
