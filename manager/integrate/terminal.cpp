#include "integrate/terminal.hpp"

#include "util/json.hpp"
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

}  // namespace cudnnenv
