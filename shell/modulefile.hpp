// An activation (activation.hpp) as an environment-modules file: Lmod's Lua
// or the Tcl of Environment Modules (which Lmod reads too). Every value is a
// quoted string of that language, so a path with quotes, `$`, brackets or
// line breaks is data, never code. Names are only ever plain variable names.
#pragma once

#include <optional>
#include <string>

#include "shell/activation.hpp"

namespace cudnnenv::shell {

enum class ModuleFormat { lua, tcl };

struct ModuleDescription {
  std::string family;   // "cudnn": one module of the family loaded at a time
  std::string version;  // "8.1.0.77"
  std::string whatis;   // one line: what `module whatis` prints
  std::string help;     // what `module help` prints
};

// Why the modulefile cannot be written, if it cannot: a variable name that
// is not plain, a NUL in a value, for Tcl a value that is not UTF-8.
std::optional<std::string> modulefile_problem(ModuleFormat format, const Activation& activation);
std::string render_modulefile(ModuleFormat format, const ModuleDescription& description, const Activation& activation);

// `value` as a Lua string literal (any bytes), and as a Tcl word in double
// quotes, ASCII only (`value` must be UTF-8: Tcl strings are Unicode).
std::string lua_quote(std::string_view value);
std::string tcl_quote(std::string_view value);

}  // namespace cudnnenv::shell
