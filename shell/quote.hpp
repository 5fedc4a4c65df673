// Quoting per shell: a value is always data, never code, whatever it holds
// (spaces, quotes, $, backquotes, %, !, non-ASCII letters).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnenv::shell {

enum class Shell { bash, zsh, fish, powershell, cmd };

// Every shell, in the order help lists them: parsing, the CLI's checks and
// hints, and completion read this table. A shell added here needs a case in
// every switch over Shell (quoting, rendering, the integration: -Werror=switch
// and no `default:`), so one without its renderer does not compile
// (tests/lint/shell_table.sh shows it).
inline constexpr Shell k_shells[] = {Shell::bash, Shell::zsh, Shell::fish, Shell::powershell, Shell::cmd};

// A name of k_shells ("pwsh" too, for powershell).
std::optional<Shell> parse_shell(std::string_view name);
std::string to_string(Shell shell);
// Whether `cudnnenv completion SHELL` writes a script for it (cmd has none).
bool has_completion(Shell shell);

// The names of the shells `keep` accepts (all when empty), in table order.
std::vector<std::string> shell_names(const std::function<bool(Shell)>& keep = {});
// The same as prose: "bash, zsh, fish, powershell or cmd".
std::string shell_choices(const std::function<bool(Shell)>& keep = {});

// Whether `name` can be an environment variable's name in every shell
// cudnnenv writes for: a letter or '_', then letters, digits and '_' (ASCII).
// Names are never quoted, so anything else is refused before it reaches a
// script (a key like `X;touch PWNED;#` would run as code).
bool is_valid_variable_name(std::string_view name);

// The first line of every script cudnnenv prints for a shell integration to
// evaluate (`cudnnenv __script SHELL ...`): the integration evaluates output
// only when it starts with this line, so help or any other text printed in
// its place reaches the terminal as text. A comment in each shell (cmd: the
// batch line `@rem cudnnenv script`).
inline constexpr std::string_view k_script_marker = "# cudnnenv script";
std::string script_marker_line(Shell shell);

// `value` as one word of `shell`.
std::string quote(Shell shell, std::string_view value);

// The line that sets environment variable `name` to `value` in `shell`.
std::string set_variable(Shell shell, std::string_view name, std::string_view value);

// The line that removes environment variable `name` in `shell`, quietly
// when it is not set.
std::string unset_variable(Shell shell, std::string_view name);

}  // namespace cudnnenv::shell
