#include "shell/quote.hpp"

namespace cudnnenv::shell {

std::optional<Shell> parse_shell(std::string_view name) {
  for (const Shell shell : k_shells) {
    if (name == to_string(shell)) return shell;
  }
  if (name == "pwsh") return Shell::powershell;
  return std::nullopt;
}

bool has_completion(Shell shell) {
  switch (shell) {
    case Shell::bash:
    case Shell::zsh:
    case Shell::fish:
    case Shell::powershell:
      return true;
    case Shell::cmd:
      return false;
  }
  return false;
}

std::vector<std::string> shell_names(const std::function<bool(Shell)>& keep) {
  std::vector<std::string> names;
  for (const Shell shell : k_shells) {
    if (!keep || keep(shell)) names.push_back(to_string(shell));
  }
  return names;
}

std::string shell_choices(const std::function<bool(Shell)>& keep) {
  const std::vector<std::string> names = shell_names(keep);
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return text;
}

std::string script_marker_line(Shell shell) {
  return shell == Shell::cmd ? "@rem cudnnenv script\r\n" : std::string(k_script_marker) + "\n";
}

std::string to_string(Shell shell) {
  switch (shell) {
    case Shell::bash:
      return "bash";
    case Shell::zsh:
      return "zsh";
    case Shell::fish:
      return "fish";
    case Shell::powershell:
      return "powershell";
    case Shell::cmd:
      return "cmd";
  }
  return "";
}

bool is_valid_variable_name(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) {
    return false;
  }
  for (const char c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) {
      return false;
    }
  }
  return true;
}

std::string quote(Shell shell, std::string_view value) {
  std::string out;
  switch (shell) {
    case Shell::bash:
    case Shell::zsh:
      // Nothing is special inside single quotes; a quote closes, escapes, reopens.
      out = "'";
      for (const char c : value) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      }
      return out + "'";
    case Shell::fish:
      // fish single quotes: only \\ and \' are escapes.
      out = "'";
      for (const char c : value) {
        if (c == '\\' || c == '\'') {
          out += '\\';
        }
        out += c;
      }
      return out + "'";
    case Shell::powershell: {
      // Single quotes with '' doubling. PowerShell also takes the typographic
      // quotes U+2018..U+201B as quote characters: double those too.
      out = "'";
      for (std::size_t i = 0; i < value.size(); ++i) {
        const char c = value[i];
        if (c == '\'') {
          out += "''";
          continue;
        }
        if (static_cast<unsigned char>(c) == 0xE2 && i + 2 < value.size() &&
            static_cast<unsigned char>(value[i + 1]) == 0x80 && static_cast<unsigned char>(value[i + 2]) >= 0x98 &&
            static_cast<unsigned char>(value[i + 2]) <= 0x9B) {
          out.append(value.substr(i, 3));
          out.append(value.substr(i, 3));
          i += 2;
          continue;
        }
        out += c;
      }
      return out + "'";
    }
    case Shell::cmd:
      // Inside set "NAME=value" only % (expansion) needs doubling in a batch file.
      for (const char c : value) {
        out += c == '%' ? std::string("%%") : std::string(1, c);
      }
      return out;
  }
  return out;
}

std::string set_variable(Shell shell, std::string_view name, std::string_view value) {
  const std::string variable(name);
  switch (shell) {
    case Shell::bash:
    case Shell::zsh:
      return "export " + variable + "=" + quote(shell, value);
    case Shell::fish:
      return "set -gx " + variable + " " + quote(shell, value);
    case Shell::powershell:
      return "$Env:" + variable + " = " + quote(shell, value);
    case Shell::cmd:
      return "set \"" + variable + "=" + quote(shell, value) + "\"";
  }
  return "";
}

std::string unset_variable(Shell shell, std::string_view name) {
  const std::string variable(name);
  switch (shell) {
    case Shell::bash:
    case Shell::zsh:
      return "unset " + variable;
    case Shell::fish:
      return "set -e " + variable;
    case Shell::powershell:
      return "Remove-Item -ErrorAction SilentlyContinue Env:" + variable;
    case Shell::cmd:
      return "set \"" + variable + "=\"";
  }
  return "";
}

}  // namespace cudnnenv::shell
