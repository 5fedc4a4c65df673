#include "shell/init.hpp"

#include <algorithm>

#include "shell/init_scripts.inc"
#include "util/fs.hpp"
#include "util/text.hpp"

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
  // The project file's text and its lock's, read without a process: bash's
  // read of N characters, zsh's read -k from standard input.
  script = replace_all(
      script, "@READ@",
      shell == Shell::zsh ? "IFS= read -r -u 0 -k 65536 _cudnnenv_text" : "IFS= read -r -N 65536 _cudnnenv_text");
  script = replace_all(
      script, "@READ_LOCK@",
      shell == Shell::zsh ? "IFS= read -r -u 0 -k 65536 _cudnnenv_lock" : "IFS= read -r -N 65536 _cudnnenv_lock");
  script = replace_all(script, "@SHELL@", to_string(shell));
  script = replace_all(script, "@PROGRAM@", quote(shell, program));
  return replace_all(script, "@SHIMS@", quote(shell, shims));
}

std::optional<std::string> completion_script(Shell shell, const std::string& program) {
  switch (shell) {
    case Shell::bash:
      return replace_all(k_completion_bash, "@PROGRAM@", quote(shell, program));
    case Shell::zsh:
      return replace_all(k_completion_zsh, "@PROGRAM@", quote(shell, program));
    case Shell::fish:
      return replace_all(k_completion_fish, "@PROGRAM@", quote(shell, program));
    case Shell::powershell:
      return replace_all(k_completion_powershell, "@PROGRAM@", quote(shell, program));
    case Shell::cmd:
      return std::nullopt;
  }
  return std::nullopt;
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

std::string crlf(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

namespace {

// Text a batch file can hold whatever the code page, and whether delayed
// expansion is on: printable ASCII without '"' (ends the quoting) or '!'.
bool batch_safe(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](unsigned char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '!'; });
}

// Inside a batch file's double quotes only '%' needs doubling.
std::string batch_literal(std::string_view text) {
  return replace_all(std::string(text), "%", "%%");
}

std::string windows_text(const std::filesystem::path& path) {
  std::string text = util::to_utf8(path);
  std::replace(text.begin(), text.end(), '/', '\\');
  return text;
}

bool starts_with_folder(const std::string& path, std::string folder) {
  while (!folder.empty() && folder.back() == '\\') folder.pop_back();
  if (folder.empty() || path.size() <= folder.size() || path[folder.size()] != '\\') return false;
  return util::to_lower(path.substr(0, folder.size())) == util::to_lower(folder);
}

}  // namespace

Result<std::string> batch_path_line(const BatchPathFacts& facts, const std::string& variable) {
  const std::string target = windows_text(facts.target);
  const std::string set = "@set \"" + variable + "=";
  if (batch_safe(target)) {
    return set + batch_literal(target) + "\"";
  }
  auto variables = facts.variables;
  std::stable_sort(variables.begin(), variables.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  for (const auto& [name, value] : variables) {
    if (is_valid_variable_name(name) && starts_with_folder(target, value)) {
      const std::string rest = target.substr(value.size() - (value.back() == '\\' ? 1 : 0));
      if (batch_safe(rest)) {
        return set + "%" + name + "%" + batch_literal(rest) + "\"";
      }
    }
  }
  const std::string relative = windows_text(facts.target.lexically_relative(facts.folder));
  if (!relative.empty() && batch_safe(relative)) {
    return set + "%~dp0" + batch_literal(relative) + "\"";  // %~dp0 ends with a backslash
  }
  const std::string name = util::to_utf8(facts.target.filename());
  if (facts.on_path && batch_safe(name) && name.find_first_of(" ;,=()&^%") == std::string::npos) {
    return "@for %%p in (" + name + ") do @set \"" + variable + "=%%~$PATH:p\"\n@if not defined " + variable +
           " (echo cudnnenv: error: " + name +
           " is not on PATH, where it was when this file was written 1>&2 & exit /b 1)";
  }
  if (facts.short_path && batch_safe(*facts.short_path)) {
    return set + batch_literal(*facts.short_path) + "\"";
  }
  return make_error("'" + target +
                        "' cannot be named in a batch file: cmd reads batch files in the console's code page, and this "
                        "path has letters outside ASCII with no ASCII way to it (no variable such as USERPROFILE holds "
                        "its folder, it is not on PATH, it has no short name)",
                    "put its folder on PATH, or move it to a folder whose path is ASCII; then run this again");
}

CmdIntegration cmd_integration(const std::string& program_line) {
  return {crlf(k_init_cmd), crlf(replace_all(k_cudnnenv_cmd, "@PROGRAM_LINE@", program_line))};
}

namespace {

// `door`: the door the activation names (cudnnenv activate --by DOOR).
std::string activation_batch(const std::string& about, const std::string& program_line, const std::string& find_lines,
                             const std::string& verb, const std::string& door) {
  std::string text = replace_all(k_profile_cmd, "@ABOUT@", about);
  text = replace_all(text, "@PROGRAM_LINE@", program_line);
  text = replace_all(text, "@FIND_LINES@", find_lines);
  return crlf(
      replace_all(text, "@COMMAND@", verb == "activate" ? "activate \"%_CUDNNENV_PROFILE%\" --by " + door : verb));
}

}  // namespace

std::string profile_batch(const std::string& program_line, const std::string& verb) {
  const std::string about = "@rem " + std::string(verb == "activate" ? "Activates" : "Deactivates") +
                            " the cudnnenv profile named by this file's folder, in this cmd\n"
                            "@rem (`call` this file), with no integration loaded; written by `cudnnenv\n"
                            "@rem profile generate`. The store (ROOT\\.cudnnenv\\profiles\\NAME) and the\n"
                            "@rem profile's name are this file's folders, found when it runs.";
  return activation_batch(about, program_line,
                          "@for %%i in (\"%~dp0..\\..\\..\") do @set \"_CUDNNENV_ROOT=%%~fi\"\n"
                          "@for %%i in (\"%~dp0.\") do @set \"_CUDNNENV_PROFILE=%%~nxi\"",
                          verb, "profile");
}

std::string terminal_batch(const std::string& about, const std::string& program_line, const std::string& root_line) {
  // `for /d` over `*` from inside the folder: Wine's cmd matches nothing for a
  // quoted set ("%~dp0tree\*"), which a path with spaces would need.
  return activation_batch(
      "@rem " + about +
          "\n@rem Activates the tree (or profile) named by the folder in tree\\ beside this file, in the\n"
          "@rem cmd a terminal opens with it (cmd /k).",
      program_line,
      root_line +
          "\n@for %%i in (\"%_CUDNNENV_ROOT%\") do @set \"_CUDNNENV_ROOT=%%~fi\"\n"
          "@pushd \"%~dp0tree\"\n@for /d %%i in (*) do @set \"_CUDNNENV_PROFILE=%%~nxi\"\n@popd",
      "activate", "terminal");
}

std::string conda_batch(const std::string& program_line, const std::string& root, const std::string& spec,
                        const std::string& verb) {
  const std::string about = "@rem " + std::string(k_conda_marker) + "\n@rem " +
                            (verb == "activate" ? "Activates" : "Deactivates") +
                            " the cudnnenv tree of this conda env when conda activates it.";
  return activation_batch(about, program_line,
                          "@set \"_CUDNNENV_ROOT=" + root + "\"\n@set \"_CUDNNENV_PROFILE=" + spec + "\"", verb,
                          "conda");
}

std::vector<HookFile> conda_hooks(const std::string& program, const std::string& root, const std::string& spec,
                                  const std::optional<std::string>& batch_program_line) {
  const std::string marker = std::string("# ") + k_conda_marker + "\n";
  std::vector<HookFile> files;
  for (const auto& [shell, extension] :
       {std::pair{Shell::bash, ".sh"}, std::pair{Shell::fish, ".fish"}, std::pair{Shell::powershell, ".ps1"}}) {
    const std::string head = shell == Shell::powershell ? crlf(marker) : marker;
    files.push_back({std::string("activate.d/cudnnenv-activate") + extension,
                     head + apply_command(shell, program, root, "activate " + quote(shell, spec) + " --by conda")});
    files.push_back({std::string("deactivate.d/cudnnenv-deactivate") + extension,
                     head + apply_command(shell, program, root, "deactivate")});
  }
  if (batch_program_line) {
    files.push_back({"activate.d/cudnnenv-activate.bat", conda_batch(*batch_program_line, root, spec, "activate")});
    files.push_back(
        {"deactivate.d/cudnnenv-deactivate.bat", conda_batch(*batch_program_line, root, spec, "deactivate")});
  }
  return files;
}

std::string apply_command(Shell shell, const std::string& program, const std::string& root,
                          const std::string& arguments) {
  const std::string command = quote(shell, program) + " --root " + quote(shell, root) + " " + arguments;
  switch (shell) {
    case Shell::fish:
      return command + " --shell fish | source\n";
    case Shell::powershell:
      // cudnnenv's UTF-8 output decoded as UTF-8 (see shell/init.ps1).
      return "$encoding = [Console]::OutputEncoding\r\ntry {\r\n    [Console]::OutputEncoding = "
             "[Text.Encoding]::UTF8\r\n    & " +
             command +
             " --shell powershell | Out-String | Invoke-Expression\r\n} finally {\r\n"
             "    [Console]::OutputEncoding = $encoding\r\n}\r\n";
    case Shell::bash:
    case Shell::zsh:
      return "eval \"$(" + command + " --shell bash)\"\n";  // zsh takes the same script
    case Shell::cmd:
      // Written to a file and called: cmd applies a script only from a batch file.
      return "@" + command + " --shell cmd > \"%TEMP%\\cudnnenv-apply.bat\" && call \"%TEMP%\\cudnnenv-apply.bat\"\r\n";
  }
  return {};
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
