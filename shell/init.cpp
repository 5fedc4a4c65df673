#include "shell/init.hpp"

#include "shell/init_scripts.inc"

namespace cudnnenv::shell {

namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

}  // namespace

std::optional<std::string> init_script(Shell shell, const std::string& program, const std::string& shims) {
  std::string script;
  switch (shell) {
    case Shell::bash:
      script = std::string(k_init_bash) + k_init_bash_prompt;
      break;
    case Shell::zsh:
      script = std::string(k_init_bash) + k_init_zsh_prompt;
      break;
    case Shell::fish:
      script = k_init_fish;
      break;
    case Shell::powershell:
      script = k_init_powershell;
      break;
    case Shell::cmd:
      return std::nullopt;
  }
  script = replace_all(script, "@SHELL@", to_string(shell));
  script = replace_all(script, "@PROGRAM@", quote(shell, program));
  return replace_all(script, "@SHIMS@", quote(shell, shims));
}

std::string init_line(Shell shell) {
  switch (shell) {
    case Shell::bash:
      return "eval \"$(cudnnenv init bash)\"   # in ~/.bashrc";
    case Shell::zsh:
      return "eval \"$(cudnnenv init zsh)\"   # in ~/.zshrc";
    case Shell::fish:
      return "cudnnenv init fish | source   # in ~/.config/fish/config.fish";
    case Shell::powershell:
      return "cudnnenv init powershell | Out-String | Invoke-Expression   # in $PROFILE";
    case Shell::cmd:
      return "cudnnenv init cmd --autorun   # once; 'cudnnenv deinit cmd' undoes it";
  }
  return "";
}

namespace {

std::string crlf(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

}  // namespace

CmdIntegration cmd_integration(const std::string& program, const std::string& shims) {
  return {crlf(replace_all(k_init_cmd, "@SHIMS_CMD@", quote(Shell::cmd, shims))),
          crlf(replace_all(k_cudnnenv_cmd, "@PROGRAM_CMD@", quote(Shell::cmd, program)))};
}

std::string autorun_with(const std::string& autorun, const std::string& part) {
  if (autorun.find(part) != std::string::npos) {
    return autorun;
  }
  return autorun.empty() ? part : autorun + " & " + part;
}

std::string autorun_without(const std::string& autorun, const std::string& part) {
  const std::size_t at = autorun.find(part);
  if (at == std::string::npos) {
    return autorun;
  }
  if (at >= 3 && autorun.compare(at - 3, 3, " & ") == 0) {
    return autorun.substr(0, at - 3) + autorun.substr(at + part.size());
  }
  if (autorun.compare(at + part.size(), 3, " & ") == 0) {
    return autorun.substr(0, at) + autorun.substr(at + part.size() + 3);
  }
  return autorun.substr(0, at) + autorun.substr(at + part.size());
}

}  // namespace cudnnenv::shell
