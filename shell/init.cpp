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
    case Shell::bash: script = std::string(k_init_bash) + k_init_bash_prompt; break;
    case Shell::zsh: script = std::string(k_init_bash) + k_init_zsh_prompt; break;
    case Shell::fish: script = k_init_fish; break;
    case Shell::powershell: script = k_init_powershell; break;
    case Shell::cmd: return std::nullopt;
  }
  script = replace_all(script, "@SHELL@", to_string(shell));
  script = replace_all(script, "@PROGRAM@", quote(shell, program));
  return replace_all(script, "@SHIMS@", quote(shell, shims));
}

std::string init_line(Shell shell) {
  switch (shell) {
    case Shell::bash: return "eval \"$(cudnnenv init bash)\"   # in ~/.bashrc";
    case Shell::zsh: return "eval \"$(cudnnenv init zsh)\"   # in ~/.zshrc";
    case Shell::fish: return "cudnnenv init fish | source   # in ~/.config/fish/config.fish";
    case Shell::powershell: return "cudnnenv init powershell | Out-String | Invoke-Expression   # in $PROFILE";
    case Shell::cmd: return "cudnnenv init cmd --autorun";
  }
  return "";
}

}  // namespace cudnnenv::shell
