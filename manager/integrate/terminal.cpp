#include "integrate/terminal.hpp"

#include "select/project.hpp"
#include "shell/init.hpp"
#include "shell/quote.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"
#include "util/shortcut.hpp"
#include "util/text.hpp"

namespace cudnnenv {

std::string terminal_program(TerminalShell shell) {
  return shell == TerminalShell::cmd ? "%SystemRoot%\\System32\\cmd.exe"
                                     : "%SystemRoot%\\System32\\WindowsPowerShell\\v1.0\\powershell.exe";
}

Result<std::string> terminal_arguments(TerminalShell shell, std::string_view script) {
  if (!util::is_valid_utf8(script)) {
    return make_error("the path '" + util::printable(script) + "' is not UTF-8 text");
  }
  for (const char c : script) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f || c == '"' || c == '%') {
      return make_error(
          "the path '" + util::printable(script) +
              "' cannot be put on a terminal's command line: it holds a '%', a '\"' or a control character, which cmd "
              "and Windows Terminal would read as part of the command",
          "give cudnnenv a state folder without it: set CUDNNENV_STATE_DIR (or --root a store whose path has none)");
    }
  }
  const std::string path(script);
  return shell == TerminalShell::cmd ? "/k \"\"" + path + "\"\""
                                     : "-NoExit -ExecutionPolicy Bypass -File \"" + path + "\"";
}

std::optional<std::string> script_in_terminal_arguments(std::string_view arguments) {
  for (const auto& [before, after] : {std::pair<std::string_view, std::string_view>{"/k \"\"", "\"\""},
                                      {"-NoExit -ExecutionPolicy Bypass -File \"", "\""}}) {
    if (util::starts_with(arguments, before) && util::ends_with(arguments, after) &&
        arguments.size() > before.size() + after.size()) {
      return std::string(arguments.substr(before.size(), arguments.size() - before.size() - after.size()));
    }
  }
  return std::nullopt;
}

std::string terminal_fragment_json(const std::string& display_name, const std::string& command_line) {
  const Json profile{{"name", display_name}, {"commandline", command_line}, {"startingDirectory", "%USERPROFILE%"}};
  const Json fragment{{"profiles", Json::array({profile})}};
  return fragment.dump(4, ' ', false, Json::error_handler_t::replace) + "\n";  // the caller refuses what is not UTF-8
}

std::string shortcut_file_name(const std::string& display_name) {
  std::string name;
  for (const char c : display_name) {
    const auto byte = static_cast<unsigned char>(c);
    const bool refused = byte < 0x20 || byte == 0x7f || std::string_view("\\/:*?\"<>|").find(c) != std::string::npos;
    name += refused ? '_' : c;
  }
  // Windows drops a trailing dot or space from a file name.
  while (!name.empty() && (name.back() == '.' || name.back() == ' ')) name.pop_back();
  return (name.empty() ? std::string("cudnnenv") : name) + ".lnk";
}

namespace {

namespace fs = std::filesystem;

// The script of the terminal in `folder`, when cudnnenv wrote it.
std::optional<fs::path> terminal_script(const fs::path& folder) {
  for (const char* name : {"activate.bat", "activate.ps1"}) {
    auto text = util::read_file(folder / name, k_max_settings_file);
    if (text && text->find(k_terminal_marker) != std::string::npos) return folder / name;
  }
  return std::nullopt;
}

// Deletes the shortcuts in the Start menu's cudnnenv folder that open the
// terminal in `folder` (and no other).
void remove_shortcuts_to(const fs::path& folder, FileChanges& changes) {
  auto programs = util::start_menu_programs();
  if (!programs) return;
  for (const auto& entry : util::directory_entries(*programs / "cudnnenv")) {
    if (!entry.is_regular_file || entry.path.extension() != ".lnk") continue;
    auto shortcut = util::read_shortcut(entry.path);
    // The script's own folder, compared whole (NTFS: without case): 'cudnnenv-tf2' is not 'cudnnenv-tf2.5'.
    const auto script = shortcut ? script_in_terminal_arguments(shortcut->arguments) : std::nullopt;
    const bool same =
        script && util::to_lower(util::to_utf8(util::path_from_utf8(std::string(*script)).parent_path())) ==
                      util::to_lower(util::to_utf8(folder));
    std::error_code ec;
    if (same && fs::remove(entry.path, ec)) changes.push_back({FileChange::Kind::removed, entry.path, {}});
  }
}

}  // namespace

Result<FileChanges> write_terminal(const TerminalExport& terminal, std::string& command_line) {
  const bool powershell = terminal.shell == TerminalShell::powershell;
  const fs::path& folder = terminal.folder;
  std::error_code ec;
  if (fs::exists(folder, ec) && !terminal_script(folder)) {
    return make_error("'" + util::to_utf8(folder) + "' is there and cudnnenv did not write it",
                      "pick another name with --name");
  }
  const fs::path script = folder / (powershell ? "activate.ps1" : "activate.bat");
  CUDNNENV_TRY_ASSIGN(arguments, terminal_arguments(terminal.shell, util::to_utf8(script)));
  // The name to activate is a folder's name (tree\NAME): cmd reads it as the
  // file system has it, whatever the console's code page.
  util::remove_tree(folder / "tree");
  fs::create_directories(folder / "tree" / util::path_from_utf8(terminal.what), ec);
  if (ec) return make_error("cannot create '" + util::to_utf8(folder) + "': " + ec.message());
  const std::string about =
      std::string(k_terminal_marker) + "; 'cudnnenv export terminal --remove --name " + terminal.name + "' deletes it";
  // PowerShell's: UTF-8 with its mark (Windows PowerShell 5 reads a file without one in the ANSI code page).
  const std::string text =
      powershell ? "\xEF\xBB\xBF# " + about + "\r\n" +
                       shell::apply_command(
                           shell::Shell::powershell, terminal.program, terminal.root,
                           "activate " + shell::quote(shell::Shell::powershell, terminal.what) + " --by terminal")
                 : shell::terminal_batch(about, terminal.program_line, terminal.root_line);
  CUDNNENV_TRY(util::write_file_atomic(script, text));
  command_line = terminal_program(terminal.shell) + " " + *arguments;
  FileChanges changes;
  fs::create_directories(terminal.fragments, ec);
  const fs::path fragment = terminal.fragments / (terminal.name + ".json");
  CUDNNENV_TRY(util::write_file_atomic(fragment, terminal_fragment_json(terminal.display_name, command_line)));
  changes.push_back({FileChange::Kind::wrote, fragment, "(Windows Terminal profile '" + terminal.display_name + "')"});
  if (terminal.shortcut) {
    CUDNNENV_TRY_ASSIGN(programs, util::start_menu_programs());
    CUDNNENV_TRY_ASSIGN(system, util::system_folder());
    remove_shortcuts_to(folder, changes);  // one of an earlier display name
    const fs::path menu = *programs / "cudnnenv";
    fs::create_directories(menu, ec);
    util::Shortcut shortcut;
    shortcut.target = powershell ? *system / "WindowsPowerShell" / "v1.0" / "powershell.exe" : *system / "cmd.exe";
    shortcut.arguments = *arguments;
    shortcut.working_directory = terminal.user_profile;
    shortcut.description = terminal.display_name;
    const fs::path file = menu / util::path_from_utf8(shortcut_file_name(terminal.display_name));
    CUDNNENV_TRY(util::write_shortcut(file, shortcut));
    changes.push_back({FileChange::Kind::wrote, file, "(Start menu)"});
  }
  return changes;
}

Result<FileChanges> remove_terminal(const fs::path& folder, const fs::path& fragments) {
  const std::string name = util::to_utf8(folder.filename());
  if (!terminal_script(folder)) {
    return make_error("no terminal '" + name + "' that cudnnenv wrote in " + util::to_utf8(folder.parent_path()),
                      "the names are the folders there, and the files in " + util::to_utf8(fragments),
                      ExitCode::not_found);
  }
  FileChanges changes;
  std::error_code ec;
  const fs::path fragment = fragments / (name + ".json");
  if (fs::remove(fragment, ec)) changes.push_back({FileChange::Kind::removed, fragment, {}});
  remove_shortcuts_to(folder, changes);
  if (!util::remove_tree(folder)) {
    return make_error("cannot remove '" + util::to_utf8(folder) + "': something in it is left",
                      "close what uses it, then run this again");
  }
  changes.push_back({FileChange::Kind::removed, folder, {}});
  return changes;
}

}  // namespace cudnnenv
