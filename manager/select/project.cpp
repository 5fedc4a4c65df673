#include "select/project.hpp"

#include <spdlog/spdlog.h>
#include <toml++/toml.h>

#include <algorithm>
#include <iterator>
#include <system_error>

#include "formats/toml_text.hpp"
#include "shell/quote.hpp"
#include "store/component.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

Result<toml::table> parse_toml(std::string_view text, const fs::path& file) {
  return cudnnenv::parse_toml(text, file, "fix the TOML syntax at that place");
}

Error bad_key(const fs::path& file, const toml::key& key, const std::string& where, const std::string& valid) {
  return make_error(toml_place(file, key.source()) + ": unknown key '" + std::string(key.str()) + "'" + where,
                    "valid keys: " + valid);
}

Result<std::string> string_value(const fs::path& file, const toml::key& key, const toml::node& node) {
  if (auto value = node.value<std::string>()) {
    return *value;
  }
  return make_error(toml_place(file, node.source()) + ": '" + std::string(key.str()) + "' must be a string",
                    "quote the value: " + std::string(key.str()) + " = \"...\"");
}

}  // namespace

Result<void> check_variable_name(std::string_view name, const std::string& place) {
  if (!shell::is_valid_variable_name(name)) {
    return make_error(place + ": '" + std::string(name) + "' is not a variable name",
                      "[env] names are letters, digits and '_', not starting with a digit");
  }
  if (util::starts_with(name, "CUDNNENV_") || util::starts_with(name, "_CUDNNENV")) {
    return make_error(place + ": '" + std::string(name) + "' is cudnnenv's own variable",
                      "select with cudnn = \"...\" or profile = \"...\", not through [env]");
  }
  return {};
}

Result<ProjectFile> parse_project_file(std::string_view text, const fs::path& file) {
  CUDNNENV_TRY_ASSIGN(parsed, parse_toml(text, file));
  ProjectFile project;
  project.file = file;
  project.content = std::string(text);
  std::string valid = "cudnn, cuda, runtime, ";
  for (const ComponentRow* row : named_rows()) valid += std::string(row->json_key) + ", ";
  valid += "profile, path, [env], [verify], [lock]";
  for (const auto& [key, node] : *parsed) {
    const std::string name(key.str());
    // A tree of a row beside cuDNN but the runtime, by its row's key: nccl = "2.27".
    const auto rows = named_rows();
    const auto row =
        std::find_if(rows.begin(), rows.end(), [&](const ComponentRow* each) { return each->json_key == name; });
    if (row != rows.end()) {
      CUDNNENV_TRY_ASSIGN(value, string_value(file, key, node));
      project.components[(*row)->kind] = *value;
    } else if (name == "cudnn" || name == "cuda" || name == "runtime" || name == "profile" || name == "path") {
      CUDNNENV_TRY_ASSIGN(value, string_value(file, key, node));
      (name == "cudnn"     ? project.cudnn
       : name == "cuda"    ? project.cuda
       : name == "runtime" ? project.runtime
       : name == "profile" ? project.profile
                           : project.path) = *value;
    } else if (name == "env") {
      const toml::table* table = node.as_table();
      if (!table) {
        return make_error(toml_place(file, node.source()) + ": 'env' must be a table",
                          "write it as [env] with NAME = \"value\" lines");
      }
      for (const auto& [variable, value_node] : *table) {
        CUDNNENV_TRY(check_variable_name(variable.str(), toml_place(file, variable.source())));
        CUDNNENV_TRY_ASSIGN(value, string_value(file, variable, value_node));
        project.env.emplace_back(std::string(variable.str()), *value);
      }
    } else if (name == "verify") {
      const toml::table* table = node.as_table();
      if (!table) {
        return make_error(toml_place(file, node.source()) + ": 'verify' must be a table",
                          "write it as [verify] on_launch = \"load\"");
      }
      for (const auto& [verify_key, value_node] : *table) {
        if (verify_key.str() != "on_launch") {
          const Error unknown = bad_key(file, verify_key, " in [verify]", "on_launch");
          project.warnings.push_back(unknown.message + " (" + unknown.hint + ")");
          continue;
        }
        CUDNNENV_TRY_ASSIGN(value, string_value(file, verify_key, value_node));
        if (*value != "none" && *value != "load" && *value != "conv") {
          return make_error(
              toml_place(file, value_node.source()) + ": on_launch must be none, load or conv, not '" + *value + "'",
              "none: no check; load: load the library and read its version; conv: run a convolution");
        }
        project.verify_on_launch = *value;
      }
    } else if (name == "lock") {
      const toml::table* table = node.as_table();
      if (!table) {
        return make_error(toml_place(file, node.source()) + ": 'lock' must be a table",
                          "write it as [lock] platforms = [\"linux-x86_64\", \"windows-x86_64\"]");
      }
      for (const auto& [lock_key, value_node] : *table) {
        if (lock_key.str() != "platforms") {
          const Error unknown = bad_key(file, lock_key, " in [lock]", "platforms");
          project.warnings.push_back(unknown.message + " (" + unknown.hint + ")");
          continue;
        }
        const toml::array* platforms = value_node.as_array();
        if (!platforms) {
          return make_error(toml_place(file, value_node.source()) + ": 'platforms' must be a list",
                            "platforms = [\"linux-x86_64\", \"windows-x86_64\"]");
        }
        for (const auto& each : *platforms) {
          const auto platform = each.value<std::string>();
          if (!platform ||
              std::find_if(std::begin(k_lock_platforms), std::end(k_lock_platforms),
                           [&](const char* known) { return *platform == known; }) == std::end(k_lock_platforms)) {
            return make_error(toml_place(file, each.source()) + ": not a platform of the official list",
                              "the platforms: linux-x86_64, linux-sbsa, windows-x86_64");
          }
          if (std::find(project.lock_platforms.begin(), project.lock_platforms.end(), *platform) ==
              project.lock_platforms.end()) {
            project.lock_platforms.push_back(*platform);
          }
        }
      }
    } else {
      const Error unknown = bad_key(file, key, "", valid);
      project.warnings.push_back(unknown.message + " (" + unknown.hint + ")");
    }
  }
  if (project.cudnn && project.profile) {
    return make_error(util::to_utf8(file) + ": both 'cudnn' and 'profile' are set", "keep one of them");
  }
  return project;
}

Result<ProjectFile> read_project_file(const fs::path& file) {
  CUDNNENV_TRY_ASSIGN(text, util::read_file(file, k_max_settings_file));
  return parse_project_file(*text, file);
}

Platform lock_platform(std::string_view name) {
  if (name == "windows-x86_64") return {Os::windows, Arch::x86_64};
  if (name == "linux-sbsa") return {Os::linux, Arch::arm64};
  return {Os::linux, Arch::x86_64};
}

std::optional<fs::path> find_project_file(const fs::path& start) {
  std::error_code ec;
  for (fs::path dir = start;; dir = dir.parent_path()) {
    const fs::path candidate = dir / k_project_file_name;
    if (fs::is_regular_file(candidate, ec)) {
      // As git's safe.directory: another user's file in a shared folder (/tmp) chooses nothing here.
      if (const auto owner = util::foreign_owner(candidate)) {
        spdlog::debug("'{}' belongs to another user (uid {}): not taken as this project's file",
                      util::to_utf8(candidate), *owner);
      } else {
        return candidate;
      }
    }
    if (ec == std::errc::permission_denied) {
      // A folder on the way cannot be searched: say which project file, if
      // any, goes unseen, rather than silently using the one above it.
      spdlog::warn("cannot look for '{}' (a folder on the way cannot be searched): a project file there is not seen",
                   util::to_utf8(candidate));
    }
    if (!dir.has_relative_path()) {
      return std::nullopt;
    }
  }
}

Result<Config> parse_config(std::string_view text, const fs::path& file) {
  Config config;
  config.file = file;
  CUDNNENV_TRY_ASSIGN(parsed, parse_toml(text, file));
  for (const auto& [key, node] : *parsed) {
    if (key.str() == "profiles" && node.is_table()) {
      continue;  // the user's profiles: read by profile.cpp
    }
    if (key.str() == "download" && node.is_table()) {
      for (const auto& [sub, value_node] : *node.as_table()) {
        if (sub.str() != "mirror") {
          return bad_key(file, sub, " in [download]", "mirror");
        }
        CUDNNENV_TRY_ASSIGN(value, string_value(file, sub, value_node));
        config.download_mirror = *value;
      }
      continue;
    }
    if (key.str() != "default") {
      return bad_key(file, key, "", "default, [download], [profiles.NAME]");
    }
    CUDNNENV_TRY_ASSIGN(value, string_value(file, key, node));
    config.default_spec = *value;
  }
  return config;
}

Result<Config> read_config(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    return Config{file, std::nullopt, std::nullopt};
  }
  CUDNNENV_TRY_ASSIGN(text, util::read_file(file, k_max_settings_file));
  return parse_config(*text, file);
}

Result<EffectiveConfig> read_effective_config(const std::vector<fs::path>& files) {
  EffectiveConfig effective;
  for (const fs::path& file : files) {
    CUDNNENV_TRY_ASSIGN(config, read_config(file));
    if (config->default_spec) {
      effective.default_spec = config->default_spec;
      effective.default_file = file;
    }
    if (config->download_mirror) {
      effective.download_mirror = config->download_mirror;
      effective.mirror_file = file;
    }
    effective.profile_files.push_back(file);
  }
  return effective;
}

std::string toml_quote(std::string_view value) {
  std::string out = "\"";
  for (const char c : value) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

namespace {

// The first line of a header table (`[t]`, `[[t]]`) at or below `node`, 0 for none.
std::uint32_t first_header_line(const toml::node& node) {
  std::uint32_t first = 0;
  const auto take = [&](std::uint32_t line) {
    if (line != 0 && (first == 0 || line < first)) first = line;
  };
  if (const auto* table = node.as_table()) {
    if (table->is_inline()) return 0;
    take(table->source().begin.line);
    for (const auto& [key, child] : *table) take(first_header_line(child));
  } else if (const auto* array = node.as_array(); array && array->is_array_of_tables()) {
    for (const auto& element : *array) take(first_header_line(element));
  }
  return first;
}

}  // namespace

Result<std::string> set_top_level_string(std::string_view text, std::string_view key, std::string_view value,
                                         const fs::path& file) {
  // Where the key is and where the first table starts, as the reader sees them (a BOM, CRLF, multi-line values).
  CUDNNENV_TRY_ASSIGN(table, parse_toml(text, file));
  const std::string_view bom = util::starts_with(text, "\xEF\xBB\xBF") ? "\xEF\xBB\xBF" : "";
  text.remove_prefix(bom.size());
  const bool crlf = text.find("\r\n") != std::string_view::npos;
  std::vector<std::string> lines = util::split(text, '\n');
  if (!lines.empty() && lines.back().empty()) {
    lines.pop_back();  // the final newline
  }
  const std::string line = std::string(key) + " = " + toml_quote(value);
  if (const toml::node* existing = table->get(key)) {
    // Its lines (begin to end: a multi-line value) become the one new line.
    const auto begin = static_cast<std::size_t>(existing->source().begin.line);
    const auto end = std::max(begin, static_cast<std::size_t>(existing->source().end.line));
    if (begin >= 1 && end <= lines.size()) {
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(begin), lines.begin() + static_cast<std::ptrdiff_t>(end));
      lines[begin - 1] = line;
    }
  } else {
    // Before the first table, after any blank lines that end the top part.
    std::uint32_t header = 0;
    for (const auto& [name, child] : *table) {
      const std::uint32_t first = first_header_line(child);
      if (first != 0 && (header == 0 || first < header)) header = first;
    }
    std::size_t insert_at = header == 0 ? lines.size() : std::min<std::size_t>(header - 1, lines.size());
    while (insert_at > 0 && util::trim(lines[insert_at - 1]).empty()) {
      --insert_at;
    }
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(insert_at), line);
  }
  std::string out(bom);
  for (auto& each : lines) {
    if (!each.empty() && each.back() == '\r') each.pop_back();
    out += each + (crlf ? "\r\n" : "\n");
  }
  return out;
}

Result<void> write_settings(const fs::path& file, const std::vector<std::pair<std::string, std::string>>& settings,
                            TomlFileKind kind) {
  std::error_code ec;
  std::string text;
  if (fs::exists(file, ec)) {
    CUDNNENV_TRY_ASSIGN(existing, util::read_file(file, k_max_settings_file));
    text = *existing;
  }
  for (const auto& [key, value] : settings) {
    CUDNNENV_TRY_ASSIGN(edited, set_top_level_string(text, key, value, file));
    text = std::move(*edited);
  }
  if (kind == TomlFileKind::config) {
    CUDNNENV_TRY(parse_config(text, file));
  } else {
    CUDNNENV_TRY(parse_project_file(text, file));
  }
  fs::create_directories(file.parent_path(), ec);
  return util::write_file_atomic(file, text);
}

}  // namespace cudnnenv
