// The per-project `.cudnnenv.toml` and the store's global `config.toml`:
// parsing into plain structs (errors as `file:line:col: message`), finding
// the nearest project file, and editing one key while keeping the rest.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/platform.hpp"
#include "store/tree.hpp"
#include "util/result.hpp"

#include "state_layout.hpp"

namespace cudnnenv {

inline constexpr const char* k_project_file_name = layout::k_project_file;

// The most a .cudnnenv.toml or config.toml may hold: each is a few lines, and
// a project file comes with any cloned repository (a link to
// /proc/self/pagemap, a 179 MB file). Counted as read.
inline constexpr std::size_t k_max_settings_file = 256 * 1024;

// The platforms of the official list, which a project's lock may target.
inline constexpr const char* k_lock_platforms[] = {"linux-x86_64", "linux-sbsa", "windows-x86_64"};
// One of those as a Platform ("linux-sbsa": Linux arm64).
Platform lock_platform(std::string_view name);

// .cudnnenv.toml:
//   cudnn = "8.1"            # a spec; or: profile = "tf2.5"
//   cuda = "11.2"            # optional CUDA qualifier
//   runtime = "13.0.2"       # optional: the CUDA runtime tree, by name or release
//   nccl = "2.27"            # optional: a tree of another row beside cuDNN (its JSON key), by name or release
//   path = "../cudnn-tree"   # a tree outside the store: needs 'cudnnenv trust'
//   [env]                    # extra variables while active
//   TF_CPP_MIN_LOG_LEVEL = "2"
//   [verify]
//   on_launch = "load"       # none | load | conv
//   [lock]
//   platforms = ["linux-x86_64", "windows-x86_64"]   # what `cudnnenv lock` resolves for (default: this one)
struct ProjectFile {
  std::filesystem::path file;
  std::string content;  // the text as read, for the trust check
  std::optional<std::string> cudnn;
  std::optional<std::string> cuda;
  std::optional<std::string> runtime;          // the CUDA runtime tree: its name or release ("13.0.2", "13.0")
  std::map<TreeKind, std::string> components;  // nccl = "...": the trees of the other rows, by name or release
  std::optional<std::string> profile;
  std::optional<std::string> path;
  std::vector<std::pair<std::string, std::string>> env;
  std::optional<std::string> verify_on_launch;
  std::vector<std::string> lock_platforms;  // [lock] platforms, each of k_lock_platforms
  // Unknown keys (`cdunn_typo = "x"`): said as `file:line:col` warnings, not
  // errors, so that a typo never stops a shim or a prompt (as mise does).
  std::vector<std::string> warnings;
};

// Whether `name` (a key of an [env] table, found at `place`: `file:line:col`)
// may name a variable: a plain name that is not cudnnenv's own (CUDNNENV_*,
// _CUDNNENV*); else an error at `place`.
Result<void> check_variable_name(std::string_view name, const std::string& place);

Result<ProjectFile> parse_project_file(std::string_view text, const std::filesystem::path& file);
Result<ProjectFile> read_project_file(const std::filesystem::path& file);

// The nearest .cudnnenv.toml in `start` or a folder above it: one file-system
// lookup per level, nothing read.
std::optional<std::filesystem::path> find_project_file(const std::filesystem::path& start);

// <root>/.cudnnenv/config.toml:  default = "8.1", [download] mirror = "https://..."
struct Config {
  std::filesystem::path file;
  std::optional<std::string> default_spec;
  std::optional<std::string> download_mirror;
};

Result<Config> parse_config(std::string_view text, const std::filesystem::path& file);
// A missing file is an empty configuration.
Result<Config> read_config(const std::filesystem::path& file);

// What config.toml says for one user: their own file (in their state
// folder) and, for a user of a shared store (a state folder of their own),
// the store's own file (<root>/.cudnnenv/config.toml) for every setting
// theirs leaves out. Every reader of a setting goes through this.
struct EffectiveConfig {
  std::optional<std::string> default_spec;
  std::filesystem::path default_file;  // the file that said it
  std::optional<std::string> download_mirror;
  std::filesystem::path mirror_file;
  // The files whose [profiles] apply (all_profiles), in the same order.
  std::vector<std::filesystem::path> profile_files;
};

// Reads `files` (config_files: a shared store's, then the user's); a setting
// of a later file wins. A missing file says nothing; a broken one is an
// error naming it.
Result<EffectiveConfig> read_effective_config(const std::vector<std::filesystem::path>& files);

// `text` with `key = "value"` set at the top level: an existing line (the
// lines of a multi-line value) is replaced in place, else the line goes
// before the first [table]; every other line and comment stays as it was,
// a UTF-8 BOM stays, and a file with CRLF line ends gets CRLF throughout.
// Where the key and the first table are comes from parsing `text` as the
// reader does; a `text` that does not parse is that error, naming `file`.
Result<std::string> set_top_level_string(std::string_view text, std::string_view key, std::string_view value,
                                         const std::filesystem::path& file);

enum class TomlFileKind { project, config };

// Writes `key = "value"` settings into `file` (a .cudnnenv.toml or
// config.toml), keeping its other lines, after checking that the result
// still parses as that kind of file (with the parser the resolver uses).
Result<void> write_settings(const std::filesystem::path& file,
                            const std::vector<std::pair<std::string, std::string>>& settings, TomlFileKind kind);

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_quote(std::string_view value);

}  // namespace cudnnenv
