// Activation as data: what activating a tree changes in a shell's
// environment, computed once against that environment and rendered per
// shell (as mamba's EnvironmentTransform is). What activation changed is
// kept in the shell itself, in _CUDNNENV_STATE, so that deactivation
// removes exactly the list entries it added (wherever they are now) and
// gives every variable it set back its earlier value, or unsets it;
// whatever the user changed meanwhile stays. Activating again deactivates
// first, so nothing grows. Knows nothing about trees: the caller says what
// to prepend and set.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "shell/quote.hpp"
#include "util/environment.hpp"

namespace cudnnenv::shell {

struct Activation {
  std::vector<std::pair<std::string, std::string>> prepend;  // (list variable, entry), in order
  std::vector<std::pair<std::string, std::string>> set;      // (variable, value)
};

// One step of a script: set `name` to `value`, or unset it.
struct Operation {
  std::string name;
  std::optional<std::string> value;  // nullopt: unset
};

constexpr const char* k_state_variable = "_CUDNNENV_STATE";

// The steps that undo the activation recorded in `environment`, if any.
std::vector<Operation> deactivate(const util::Environment& environment, char list_separator);

// The steps that (after undoing any earlier activation) apply `activation`
// and record it.
std::vector<Operation> activate(const util::Environment& environment, const Activation& activation,
                                char list_separator);

// Whether `activation` is applied already, as `activate` would apply it:
// activating again would change no variable (the state, the list entries
// and every value set). The hook's test of "nothing changed".
bool is_applied(const util::Environment& environment, const Activation& activation, char list_separator);

// Why `operations` cannot be rendered for `shell` safely, if they cannot:
// a name that is not a plain variable name (names are never quoted); a NUL
// byte in a value; for cmd, a double quote or a line break (Windows paths
// hold neither). `render` must only be called on operations that pass.
std::optional<std::string> unsafe_value(Shell shell, const std::vector<Operation>& operations);

// `operations` as a script for `shell`. cmd: CRLF lines, '@' on each, and a
// value with '!' set by a branch that is right whether delayed expansion is
// on or off (on, carets are processed in lines holding a '!'). Also for cmd,
// which reads a batch file in the console's code page: `sources` are
// variables of the cmd that runs the script, with their values then (PATH,
// _CUDNNENV_ROOT...). A value's ';' entry with letters outside ASCII is
// written as a reference to where it comes from (%NAME:~start,length%, an
// entry of the old list; %NAME%, a whole value, also inside an entry), so the
// script is ASCII wherever its text comes from those. A variable stops being
// a source after the line that sets it.
std::string render(Shell shell, const std::vector<Operation>& operations,
                   std::vector<std::pair<std::string, std::string>> sources = {});

// `list` without one occurrence of the element `entry` (the first), and the
// separator that went with it; every other byte as it was.
std::string remove_entry(const std::string& list, const std::string& entry, char separator);

}  // namespace cudnnenv::shell
