#include "util/shortcut.hpp"

namespace cudnnenv::util {

namespace {

Error windows_only() {
  return make_error("shell links (.lnk) and the Start menu are Windows's", "", ExitCode::usage);
}

}  // namespace

Result<void> write_shortcut(const std::filesystem::path&, const Shortcut&) {
  return windows_only();
}
Result<Shortcut> read_shortcut(const std::filesystem::path&) {
  return windows_only();
}
Result<std::filesystem::path> start_menu_programs() {
  return windows_only();
}
Result<std::filesystem::path> system_folder() {
  return windows_only();
}

}  // namespace cudnnenv::util
