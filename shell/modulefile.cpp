#include "shell/modulefile.hpp"

#include <cstdio>

#include "util/text.hpp"

namespace cudnnenv::shell {

std::string lua_quote(std::string_view value) {
  std::string out = "\"";
  for (const char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (byte < 0x20 || byte == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\%03u", byte);  // decimal, always three digits
      out += escaped;
    } else {
      out += c;  // UTF-8 bytes as they are: Lua strings are bytes
    }
  }
  return out + "\"";
}

std::string tcl_quote(std::string_view value) {
  // ASCII only: letters outside it as \uXXXX, so the file means the same in
  // whatever encoding tclsh reads it (the locale's).
  std::string out = "\"";
  for (std::size_t at = 0; at < value.size();) {
    const char c = value[at];
    const auto byte = static_cast<unsigned char>(c);
    char escaped[16];
    if (byte >= 0x80) {
      const auto [code, length] = util::decode_utf8(value, at);
      if (length == 0) {  // not UTF-8: refused before (modulefile_problem); never reached
        out += '?';
        ++at;
        continue;
      }
      at += length;
      const auto unit = [&](unsigned u) {
        std::snprintf(escaped, sizeof escaped, "\\u%04x", u);
        out += escaped;
      };
      if (code > 0xFFFF) {  // UTF-16 surrogates: Tcl 8.6's \u takes four digits
        unit(0xD800 + ((static_cast<unsigned>(code) - 0x10000) >> 10));
        unit(0xDC00 + ((static_cast<unsigned>(code) - 0x10000) & 0x3FF));
      } else {
        unit(static_cast<unsigned>(code));
      }
      continue;
    }
    ++at;
    if (c == '"' || c == '\\' || c == '$' || c == '[' || c == ']' || c == '{' || c == '}' || c == ';') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (byte < 0x20 || byte == 0x7f) {
      std::snprintf(escaped, sizeof escaped, "\\u%04x", byte);  // \u: four digits in Tcl 8.5 and 8.6 alike
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::optional<std::string> modulefile_problem(ModuleFormat format, const Activation& activation) {
  const auto check = [format](const std::string& name, const std::string& value) -> std::optional<std::string> {
    if (!is_valid_variable_name(name)) return "'" + name + "' is not a plain variable name";
    if (value.find('\0') != std::string::npos) return "the value of " + name + " holds a NUL byte";
    if (format == ModuleFormat::tcl && !util::is_valid_utf8(value)) {
      return "the value of " + name + " is not UTF-8, which Tcl strings cannot hold (the Lua format can)";
    }
    return std::nullopt;
  };
  for (const auto& [name, value] : activation.prepend) {
    if (auto problem = check(name, value)) return problem;
    // Lmod and Environment Modules split a path entry on ':' (the one rule
    // activate and exec apply to a list variable): a folder with one would
    // put a different folder, maybe anyone's, on the path.
    const bool drive = value.size() > 2 && value[1] == ':' && (value[2] == '\\' || value[2] == '/');  // C:\ (Windows)
    if (value.find(':', drive ? 2 : 0) != std::string::npos) {
      return "the folder '" + util::printable(value) + "' that goes on " + name +
             " holds a ':', which splits it into two folders there";
    }
  }
  for (const auto& [name, value] : activation.set) {
    if (auto problem = check(name, value)) return problem;
  }
  return std::nullopt;
}

std::string render_modulefile(ModuleFormat format, const ModuleDescription& description, const Activation& activation) {
  std::string out;
  if (format == ModuleFormat::lua) {
    out += "-- written by 'cudnnenv export modulefile'; regenerate it rather than edit it\n";
    out += "whatis(" + lua_quote("Name: " + description.family) + ")\n";
    out += "whatis(" + lua_quote("Version: " + description.version) + ")\n";
    out += "whatis(" + lua_quote("Description: " + description.whatis) + ")\n";
    out += "help(" + lua_quote(description.help) + ")\n";
    out += "family(" + lua_quote(description.family) + ")\n";
    // In the order activate() applies them, each going first, as in a shell.
    for (const auto& [name, entry] : activation.prepend) {
      out += "prepend_path(" + lua_quote(name) + ", " + lua_quote(entry) + ")\n";
    }
    for (const auto& [name, value] : activation.set) {
      out += "setenv(" + lua_quote(name) + ", " + lua_quote(value) + ")\n";
    }
    return out;
  }
  out += "#%Module1.0\n";
  out += "# written by 'cudnnenv export modulefile'; regenerate it rather than edit it\n";
  out += "proc ModulesHelp { } {\n    puts stderr " + tcl_quote(description.help) + "\n}\n";
  out += "module-whatis " + tcl_quote(description.whatis) + "\n";
  out += "conflict " + tcl_quote(description.family) + "\n";
  for (const auto& [name, entry] : activation.prepend) {
    out += "prepend-path " + tcl_quote(name) + " " + tcl_quote(entry) + "\n";
  }
  for (const auto& [name, value] : activation.set) {
    out += "setenv " + tcl_quote(name) + " " + tcl_quote(value) + "\n";
  }
  return out;
}

}  // namespace cudnnenv::shell
