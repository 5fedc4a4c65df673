#include "select/lock.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <iterator>

#include "formats/redist.hpp"
#include "formats/toml_text.hpp"
#include "formats/version.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_header =
    "# cudnnenv.lock: written by 'cudnnenv lock' from .cudnnenv.toml; do not edit it by hand.\n"
    "# 'cudnnenv sync' installs exactly these archives; commit this file beside .cudnnenv.toml.\n";

bool known_platform(std::string_view platform) {
  return std::find(std::begin(k_lock_platforms), std::end(k_lock_platforms), platform) != std::end(k_lock_platforms);
}

// A file name of the official list's shape: no folder, no control character, not '.' or '..'.
bool is_file_name(std::string_view name) {
  return !name.empty() && name.size() <= 255 && name != "." && name != ".." &&
         std::none_of(name.begin(), name.end(), [](char c) {
           return c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
         });
}

std::string printable_field(std::string_view text) {
  return util::printable(std::string(text.substr(0, 200)));
}

class Reader {
 public:
  explicit Reader(const fs::path& file) : m_file(file) {}

  Error error(const toml::node& node, const std::string& what) const {
    return make_error(toml_place(m_file, node.source()) + ": " + what,
                      "write it again with 'cudnnenv lock' (it is generated from .cudnnenv.toml)");
  }

  Result<std::string> string(const toml::table& table, const char* key, const toml::node& where) const {
    const toml::node* node = table.get(key);
    if (!node) return error(where, "'" + std::string(key) + "' is missing");
    auto value = node->value<std::string>();
    if (!value) return error(*node, "'" + std::string(key) + "' must be a string");
    if (value->size() > 4096) return error(*node, "'" + std::string(key) + "' is longer than any lock holds");
    return *value;
  }

  Result<std::optional<std::string>> optional_string(const toml::table& table, const char* key) const {
    const toml::node* node = table.get(key);
    if (!node) return std::optional<std::string>();
    CUDNNENV_TRY_ASSIGN(value, string(table, key, *node));
    return std::optional<std::string>(std::move(*value));
  }

 private:
  fs::path m_file;
};

// Only the keys `allowed` in `table` ("in [[runtime]]" for messages).
Result<void> known_keys(const Reader& reader, const toml::table& table, const std::vector<std::string_view>& allowed,
                        const std::string& where) {
  for (const auto& [key, node] : table) {
    if (std::find(allowed.begin(), allowed.end(), key.str()) == allowed.end()) {
      return reader.error(node, "unknown key '" + printable_field(key.str()) + "' " + where);
    }
  }
  return {};
}

Result<std::uint64_t> size_of(const Reader& reader, const toml::table& table) {
  const toml::node* size = table.get("size");
  if (!size) return std::uint64_t{0};
  const auto value = size->value_exact<std::int64_t>();
  if (!value || *value < 0) return reader.error(*size, "'size' must be a number of bytes");
  return static_cast<std::uint64_t>(*value);
}

Result<std::string> sha256_field(const Reader& reader, const toml::table& table, const char* key) {
  CUDNNENV_TRY_ASSIGN(sha256, reader.string(table, key, table));
  if (!util::is_sha256_hex(*sha256)) {
    return reader.error(*table.get(key), "'" + printable_field(*sha256) + "' is not a SHA-256 (64 hex digits)");
  }
  return std::move(*sha256);
}

Result<std::string> platform_field(const Reader& reader, const toml::table& table) {
  CUDNNENV_TRY_ASSIGN(platform, reader.string(table, "platform", table));
  if (!known_platform(*platform)) {
    return reader.error(*table.get("platform"), "'" + printable_field(*platform) +
                                                    "' is no platform of the official list (linux-x86_64, "
                                                    "linux-sbsa, windows-x86_64)");
  }
  return std::move(*platform);
}

Result<LockedArchive> parse_archive(const Reader& reader, const toml::table& table) {
  CUDNNENV_TRY(
      known_keys(reader, table, {"platform", "version", "cuda", "file", "url", "size", "sha256"}, "in [[cudnn]]"));
  LockedArchive archive;
  CUDNNENV_TRY_ASSIGN(platform, platform_field(reader, table));
  CUDNNENV_TRY_ASSIGN(version, reader.string(table, "version", table));
  if (!parse_version(*version)) {
    return reader.error(*table.get("version"), "'" + printable_field(*version) + "' is not a cuDNN version");
  }
  CUDNNENV_TRY_ASSIGN(cuda, reader.string(table, "cuda", table));
  if (!util::starts_with(*cuda, "cuda") || !parse_cuda_version(cuda->substr(4))) {
    return reader.error(*table.get("cuda"),
                        "'" + printable_field(*cuda) + "' is not a CUDA variant (cuda12, cuda11.2)");
  }
  CUDNNENV_TRY_ASSIGN(file, reader.string(table, "file", table));
  if (!is_file_name(*file)) {
    return reader.error(*table.get("file"), "'" + printable_field(*file) + "' is not an archive's file name");
  }
  CUDNNENV_TRY_ASSIGN(url, reader.string(table, "url", table));
  if (!util::starts_with(*url, "https://") && !util::starts_with(*url, "http://")) {
    return reader.error(*table.get("url"), "'" + printable_field(*url) + "' is not an http or https URL");
  }
  CUDNNENV_TRY_ASSIGN(sha256, sha256_field(reader, table, "sha256"));
  CUDNNENV_TRY_ASSIGN(size, size_of(reader, table));
  archive.size = *size;
  archive.platform = std::move(*platform);
  archive.version = std::move(*version);
  archive.cuda = std::move(*cuda);
  archive.file = std::move(*file);
  archive.url = std::move(*url);
  archive.sha256 = std::move(*sha256);
  return archive;
}

Result<LockedComponent> parse_component(const Reader& reader, const toml::table& table) {
  CUDNNENV_TRY(known_keys(reader, table, {"name", "version", "path", "size", "sha256"}, "in [[runtime.component]]"));
  LockedComponent component;
  CUDNNENV_TRY_ASSIGN(name, reader.string(table, "name", table));
  if (name->empty() || name->size() > 64 || !std::all_of(name->begin(), name->end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      })) {
    return reader.error(*table.get("name"), "'" + printable_field(*name) + "' is not a CUDA component's name");
  }
  CUDNNENV_TRY_ASSIGN(version, reader.string(table, "version", table));
  if (!parse_version(*version)) {
    return reader.error(*table.get("version"), "'" + printable_field(*version) + "' is not a version");
  }
  CUDNNENV_TRY_ASSIGN(path, reader.string(table, "path", table));
  if (!is_safe_relative_path(*path)) {
    return reader.error(*table.get("path"), "'" + printable_field(*path) + "' is not a plain relative path");
  }
  CUDNNENV_TRY_ASSIGN(size, size_of(reader, table));
  CUDNNENV_TRY_ASSIGN(sha256, sha256_field(reader, table, "sha256"));
  component.name = std::move(*name);
  component.version = std::move(*version);
  component.path = std::move(*path);
  component.size = *size;
  component.sha256 = std::move(*sha256);
  return component;
}

Result<LockedRuntime> parse_runtime(const Reader& reader, const toml::table& table) {
  CUDNNENV_TRY(
      known_keys(reader, table, {"platform", "release", "manifest", "manifest_sha256", "component"}, "in [[runtime]]"));
  LockedRuntime runtime;
  CUDNNENV_TRY_ASSIGN(platform, platform_field(reader, table));
  CUDNNENV_TRY_ASSIGN(release, reader.string(table, "release", table));
  if (!parse_version(*release)) {
    return reader.error(*table.get("release"), "'" + printable_field(*release) + "' is not a CUDA release");
  }
  CUDNNENV_TRY_ASSIGN(manifest, reader.string(table, "manifest", table));
  if (!util::starts_with(*manifest, "https://") && !util::starts_with(*manifest, "http://")) {
    return reader.error(*table.get("manifest"), "'" + printable_field(*manifest) + "' is not the manifest's URL");
  }
  CUDNNENV_TRY_ASSIGN(sha256, sha256_field(reader, table, "manifest_sha256"));
  const toml::node* components = table.get("component");
  const toml::array* array = components ? components->as_array() : nullptr;
  if (!array) {
    return reader.error(components ? *components : static_cast<const toml::node&>(table),
                        "[[runtime]] needs its [[runtime.component]] tables");
  }
  for (const auto& entry : *array) {
    const toml::table* component = entry.as_table();
    if (!component) return reader.error(entry, "each [[runtime.component]] entry must be a table");
    CUDNNENV_TRY_ASSIGN(parsed, parse_component(reader, *component));
    runtime.components.push_back(std::move(*parsed));
  }
  runtime.platform = std::move(*platform);
  runtime.release = std::move(*release);
  runtime.manifest = std::move(*manifest);
  runtime.manifest_sha256 = std::move(*sha256);
  return runtime;
}

// A [[nccl]] (a row's JSON key) entry.
Result<LockedTree> parse_tree(const Reader& reader, const toml::table& table, const ComponentRow& row) {
  const std::string where = "in [[" + std::string(row.json_key) + "]]";
  CUDNNENV_TRY(
      known_keys(reader, table, {"platform", "release", "cuda", "file", "url", "size", "sha256"}, where.c_str()));
  LockedTree tree;
  tree.kind = row.kind;
  CUDNNENV_TRY_ASSIGN(platform, platform_field(reader, table));
  CUDNNENV_TRY_ASSIGN(release, reader.string(table, "release", table));
  if (!parse_version(*release)) {
    return reader.error(*table.get("release"),
                        "'" + printable_field(*release) + "' is not a " + std::string(row.noun) + " release");
  }
  CUDNNENV_TRY_ASSIGN(cuda, reader.optional_string(table, "cuda"));
  if (*cuda && !parse_cuda_version(**cuda)) {
    return reader.error(*table.get("cuda"), "'" + printable_field(**cuda) + "' is not a CUDA version (13.0)");
  }
  CUDNNENV_TRY_ASSIGN(file, reader.string(table, "file", table));
  if (!is_file_name(*file)) {
    return reader.error(*table.get("file"), "'" + printable_field(*file) + "' is not an archive's file name");
  }
  CUDNNENV_TRY_ASSIGN(url, reader.optional_string(table, "url"));
  // Only where the row's own rule puts that file: a lock from a cloned repository names no other host.
  if (*url && (!row.trees->archive_url || row.trees->archive_url(*file) != **url)) {
    return reader.error(*table.get("url"),
                        "'" + printable_field(**url) + "' is not where NVIDIA serves " + printable_field(*file));
  }
  CUDNNENV_TRY_ASSIGN(sha256, sha256_field(reader, table, "sha256"));
  CUDNNENV_TRY_ASSIGN(size, size_of(reader, table));
  tree.platform = std::move(*platform);
  tree.release = std::move(*release);
  tree.cuda = cuda->value_or("");
  tree.file = std::move(*file);
  tree.url = url->value_or("");
  tree.size = *size;
  tree.sha256 = std::move(*sha256);
  return tree;
}

const ComponentRow* named_row_of_key(std::string_view key) {
  for (const ComponentRow* row : named_rows()) {
    if (row->json_key == key) return row;
  }
  return nullptr;
}

Result<LockInput> parse_input(const Reader& reader, const toml::table& table) {
  std::vector<std::string_view> keys{"cudnn", "cuda", "profile", "runtime", "platforms"};
  for (const ComponentRow* row : named_rows()) keys.push_back(row->json_key);
  CUDNNENV_TRY(known_keys(reader, table, keys, "in [input]"));
  LockInput input;
  for (const ComponentRow* row : named_rows()) {
    CUDNNENV_TRY_ASSIGN(value, reader.optional_string(table, std::string(row->json_key).c_str()));
    if (*value) input.components[row->kind] = **value;
  }
  CUDNNENV_TRY_ASSIGN(cudnn, reader.optional_string(table, "cudnn"));
  CUDNNENV_TRY_ASSIGN(cuda, reader.optional_string(table, "cuda"));
  CUDNNENV_TRY_ASSIGN(profile, reader.optional_string(table, "profile"));
  CUDNNENV_TRY_ASSIGN(runtime, reader.optional_string(table, "runtime"));
  input.cudnn = std::move(*cudnn);
  input.cuda = std::move(*cuda);
  input.profile = std::move(*profile);
  input.runtime = std::move(*runtime);
  const toml::node* platforms = table.get("platforms");
  const toml::array* array = platforms ? platforms->as_array() : nullptr;
  if (!array)
    return reader.error(platforms ? *platforms : static_cast<const toml::node&>(table),
                        "'platforms' must be a list of platforms");
  for (const auto& each : *array) {
    auto value = each.value<std::string>();
    if (!value || !known_platform(*value)) {
      return reader.error(each, "'platforms' holds something that is no platform of the official list");
    }
    if (std::find(input.platforms.begin(), input.platforms.end(), *value) != input.platforms.end()) {
      return reader.error(each, "'platforms' names '" + *value + "' twice");
    }
    input.platforms.push_back(*value);
  }
  return input;
}

std::string quoted_or_none(const std::optional<std::string>& value) {
  return value ? "\"" + util::printable(*value) + "\"" : std::string("nothing");
}

}  // namespace

Result<Downloaded> fetch_locked_tree(const LockedTree& tree, const std::optional<fs::path>& local,
                                     DownloadOptions options) {
  const ComponentRow& row = component(tree.kind);
  const std::string path = mirror_path(tree);
  OfficialArchive archive{tree.release, tree.platform, tree.cuda, tree.file, tree.sha256, tree.size, {}, "the lock"};
  if (options.nvidia_layout) {
    const fs::path base = options.folder;
    options.folder = base / util::path_from_utf8(path).parent_path();
    options.folder_base = base;
    options.nvidia_layout = false;
    CUDNNENV_TRY(util::create_directories_below(base, options.folder));
  }
  if (local) return take_local_archive(archive, *local, options);
  std::string url;
  if (!options.mirror.empty()) {
    CUDNNENV_TRY_ASSIGN(in_mirror, mirror_file_url(options.mirror, path));
    url = std::move(*in_mirror);
    options.mirror.clear();
  } else if (!tree.url.empty()) {
    url = tree.url;
  } else {
    return make_error("the lock names " + std::string(row.noun) + " " + tree.release + " as " +
                          util::printable(tree.file) + " (SHA-256 " + tree.sha256 +
                          "), which NVIDIA serves from no address a lock can name",
                      "install that file: cudnnenv install " + std::string(row.json_key) + " " +
                          util::command_word(tree.file) + "  (or give sync a --mirror that holds " + path + ")",
                      ExitCode::not_found);
  }
  archive.url = url;
  return fetch_archive(archive, options);
}

const LockedArchive* LockFile::for_platform(std::string_view platform) const {
  for (const auto& archive : cudnn) {
    if (archive.platform == platform) return &archive;
  }
  return nullptr;
}

const LockedRuntime* LockFile::runtime_for(std::string_view platform) const {
  for (const auto& each : runtime) {
    if (each.platform == platform) return &each;
  }
  return nullptr;
}

const LockedTree* LockFile::tree_for(TreeKind kind, std::string_view platform) const {
  for (const auto& each : trees) {
    if (each.kind == kind && each.platform == platform) return &each;
  }
  return nullptr;
}

std::string mirror_path(const LockedTree& tree) {
  constexpr std::string_view host = "https://developer.download.nvidia.com/";
  if (util::starts_with(tree.url, host)) return tree.url.substr(host.size());
  return "components/" + std::string(component(tree.kind).json_key) + "/" + tree.file;
}

std::string serialize_lock(const LockFile& lock) {
  std::string text = k_header;
  text += "format = " + std::to_string(k_lock_format) + "\n\n[input]\n";
  if (lock.input.cudnn) text += "cudnn = " + toml_quote(*lock.input.cudnn) + "\n";
  if (lock.input.cuda) text += "cuda = " + toml_quote(*lock.input.cuda) + "\n";
  if (lock.input.profile) text += "profile = " + toml_quote(*lock.input.profile) + "\n";
  if (lock.input.runtime) text += "runtime = " + toml_quote(*lock.input.runtime) + "\n";
  for (const ComponentRow* row : named_rows()) {
    if (auto named = lock.input.components.find(row->kind); named != lock.input.components.end()) {
      text += std::string(row->json_key) + " = " + toml_quote(named->second) + "\n";
    }
  }
  std::vector<std::string> platforms;
  for (const auto& platform : lock.input.platforms) platforms.push_back(toml_quote(platform));
  text += "platforms = [" + util::join(platforms, ", ") + "]\n";
  for (const auto& archive : lock.cudnn) {
    text += "\n[[cudnn]]\n";
    text += "platform = " + toml_quote(archive.platform) + "\n";
    text += "version = " + toml_quote(archive.version) + "\n";
    text += "cuda = " + toml_quote(archive.cuda) + "\n";
    text += "file = " + toml_quote(archive.file) + "\n";
    text += "url = " + toml_quote(archive.url) + "\n";
    if (archive.size != 0) text += "size = " + std::to_string(archive.size) + "\n";
    text += "sha256 = " + toml_quote(archive.sha256) + "\n";
  }
  for (const auto& runtime : lock.runtime) {
    text += "\n[[runtime]]\n";
    text += "platform = " + toml_quote(runtime.platform) + "\n";
    text += "release = " + toml_quote(runtime.release) + "\n";
    text += "manifest = " + toml_quote(runtime.manifest) + "\n";
    text += "manifest_sha256 = " + toml_quote(runtime.manifest_sha256) + "\n";
    for (const auto& component : runtime.components) {
      text += "\n[[runtime.component]]\n";
      text += "name = " + toml_quote(component.name) + "\n";
      text += "version = " + toml_quote(component.version) + "\n";
      text += "path = " + toml_quote(component.path) + "\n";
      if (component.size != 0) text += "size = " + std::to_string(component.size) + "\n";
      text += "sha256 = " + toml_quote(component.sha256) + "\n";
    }
  }
  for (const ComponentRow* row : named_rows()) {
    for (const auto& tree : lock.trees) {
      if (tree.kind != row->kind) continue;
      text += "\n[[" + std::string(row->json_key) + "]]\n";
      text += "platform = " + toml_quote(tree.platform) + "\n";
      text += "release = " + toml_quote(tree.release) + "\n";
      if (!tree.cuda.empty()) text += "cuda = " + toml_quote(tree.cuda) + "\n";
      text += "file = " + toml_quote(tree.file) + "\n";
      if (!tree.url.empty()) text += "url = " + toml_quote(tree.url) + "\n";
      if (tree.size != 0) text += "size = " + std::to_string(tree.size) + "\n";
      text += "sha256 = " + toml_quote(tree.sha256) + "\n";
    }
  }
  return text;
}

Result<LockFile> parse_lock(std::string_view text, const fs::path& file) {
  if (text.size() > k_max_lock_file) {
    return make_error("'" + util::to_utf8(file) + "' is larger than any lock (" + util::human_size(text.size()) + ")",
                      "write it again with 'cudnnenv lock'");
  }
  CUDNNENV_TRY_ASSIGN(table, parse_toml(text, file, "write it again with 'cudnnenv lock'"));
  const Reader reader(file);
  LockFile lock;
  lock.file = file;
  const toml::node* format = table->get("format");
  if (!format || format->value_exact<std::int64_t>() != k_lock_format) {
    return make_error("'" + util::to_utf8(file) + "' is not a lock of format " + std::to_string(k_lock_format) +
                          " (a newer cudnnenv may have written it)",
                      "update cudnnenv, or write the lock again with 'cudnnenv lock'");
  }
  bool has_input = false;
  for (const auto& [key, node] : *table) {
    const std::string name(key.str());
    if (name == "format") continue;
    if (name == "input") {
      const toml::table* input = node.as_table();
      if (!input) return reader.error(node, "'input' must be a table");
      CUDNNENV_TRY_ASSIGN(parsed, parse_input(reader, *input));
      lock.input = std::move(*parsed);
      has_input = true;
    } else if (name == "cudnn") {
      const toml::array* entries = node.as_array();
      if (!entries) return reader.error(node, "'cudnn' must be a list of [[cudnn]] tables");
      for (const auto& entry : *entries) {
        const toml::table* archive = entry.as_table();
        if (!archive) return reader.error(entry, "each [[cudnn]] entry must be a table");
        CUDNNENV_TRY_ASSIGN(parsed, parse_archive(reader, *archive));
        if (lock.for_platform(parsed->platform)) {
          return reader.error(entry, "a second [[cudnn]] entry for " + parsed->platform);
        }
        lock.cudnn.push_back(std::move(*parsed));
      }
    } else if (name == "runtime") {
      const toml::array* entries = node.as_array();
      if (!entries) return reader.error(node, "'runtime' must be a list of [[runtime]] tables");
      for (const auto& entry : *entries) {
        const toml::table* runtime = entry.as_table();
        if (!runtime) return reader.error(entry, "each [[runtime]] entry must be a table");
        CUDNNENV_TRY_ASSIGN(parsed, parse_runtime(reader, *runtime));
        if (lock.runtime_for(parsed->platform)) {
          return reader.error(entry, "a second [[runtime]] entry for " + parsed->platform);
        }
        lock.runtime.push_back(std::move(*parsed));
      }
    } else if (const ComponentRow* row = named_row_of_key(name)) {
      const toml::array* entries = node.as_array();
      if (!entries) return reader.error(node, "'" + name + "' must be a list of [[" + name + "]] tables");
      for (const auto& entry : *entries) {
        const toml::table* tree = entry.as_table();
        if (!tree) return reader.error(entry, "each [[" + name + "]] entry must be a table");
        CUDNNENV_TRY_ASSIGN(parsed, parse_tree(reader, *tree, *row));
        if (lock.tree_for(row->kind, parsed->platform)) {
          return reader.error(entry, "a second [[" + name + "]] entry for " + parsed->platform);
        }
        lock.trees.push_back(std::move(*parsed));
      }
    } else {
      return reader.error(node, "unknown key '" + printable_field(name) + "'");
    }
  }
  if (!has_input)
    return make_error("'" + util::to_utf8(file) + "' has no [input]", "write it again with 'cudnnenv lock'");
  return lock;
}

Result<bool> write_lock(const LockFile& lock) {
  // What a killed lock left beside the file goes, also when the lock is up to date (and so not written).
  util::remove_stale_temporaries(lock.file);
  const std::string text = serialize_lock(lock);
  if (std::error_code ec; fs::exists(lock.file, ec)) {
    if (const auto existing = util::read_file(lock.file, k_max_lock_file); existing && *existing == text) return false;
  }
  CUDNNENV_TRY(util::write_file_atomic(lock.file, text));
  return true;
}

Result<LockFile> read_lock(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    return make_error("no lock: '" + util::to_utf8(file) + "' does not exist",
                      "'cudnnenv lock' writes it from .cudnnenv.toml", ExitCode::not_found);
  }
  CUDNNENV_TRY_ASSIGN(text, util::read_file(file, k_max_lock_file));
  return parse_lock(*text, file);
}

Result<OfficialArchive> locked_official_archive(const LockedArchive& locked, bool allow_unverified) {
  if (const OfficialArchive* official = find_official_by_sha256(locked.sha256);
      official && official->file_name == locked.file) {
    return *official;
  }
  if (!allow_unverified) {
    return make_error("the lock names " + util::printable(locked.file) + " with SHA-256 " + locked.sha256 +
                          ", which is no official archive",
                      "write the lock again with 'cudnnenv lock', or pass --allow-unverified to fetch it from " +
                          util::printable(locked.url) + " as the lock says",
                      ExitCode::usage);
  }
  return OfficialArchive{locked.version, locked.platform, locked.cuda, locked.file,
                         locked.sha256,  locked.size,     locked.url,  "the lock"};
}

fs::path lock_path_for(const fs::path& project_file) {
  return project_file.parent_path() / k_lock_file_name;
}

LockInput lock_input_of(const ProjectFile& project) {
  LockInput input;
  input.cudnn = project.cudnn;
  input.cuda = project.cuda;
  input.profile = project.profile;
  input.runtime = project.runtime;
  for (const ComponentRow* row : named_rows()) {
    if (auto named = project.components.find(row->kind); named != project.components.end()) {
      input.components[row->kind] = named->second;
    }
  }
  input.platforms = project.lock_platforms;
  return input;
}

std::vector<std::string> lock_differences(const LockInput& locked, const LockInput& now) {
  std::vector<std::string> differences;
  const auto compare = [&](const char* key, const std::optional<std::string>& was,
                           const std::optional<std::string>& is) {
    if (was == is) return;
    differences.push_back(std::string(key) + ": the lock was made for " + quoted_or_none(was) +
                          ", .cudnnenv.toml now says " + quoted_or_none(is));
  };
  compare("cudnn", locked.cudnn, now.cudnn);
  compare("cuda", locked.cuda, now.cuda);
  compare("profile", locked.profile, now.profile);
  compare("runtime", locked.runtime, now.runtime);
  for (const ComponentRow* row : named_rows()) {
    const auto named = [&](const LockInput& input) {
      const auto found = input.components.find(row->kind);
      return found == input.components.end() ? std::optional<std::string>() : std::optional(found->second);
    };
    compare(std::string(row->json_key).c_str(), named(locked), named(now));
  }
  if (!now.platforms.empty() && locked.platforms != now.platforms) {
    differences.push_back("platforms: the lock was made for " + util::join(locked.platforms, ", ") +
                          ", .cudnnenv.toml now targets " + util::join(now.platforms, ", "));
  }
  return differences;
}

std::vector<std::string> lock_staleness(const LockFile& locked, const LockFile& now) {
  std::vector<std::string> differences = lock_differences(locked.input, now.input);
  const auto archive_words = [](const LockedArchive* archive) {
    return archive ? "cuDNN " + archive->version + " (" + archive->cuda + ")" : std::string("no cuDNN archive");
  };
  const auto runtime_words = [](const LockedRuntime* runtime) {
    return runtime ? "the CUDA " + runtime->release + " runtime" : std::string("no CUDA runtime");
  };
  for (const auto& platform : now.input.platforms.empty() ? locked.input.platforms : now.input.platforms) {
    const LockedArchive* was = locked.for_platform(platform);
    const LockedArchive* is = now.for_platform(platform);
    if ((was == nullptr) != (is == nullptr) || (was && (was->file != is->file || was->sha256 != is->sha256))) {
      differences.push_back(platform + ": the lock has " + archive_words(was) + ", .cudnnenv.toml now resolves to " +
                            archive_words(is));
    }
    const LockedRuntime* was_runtime = locked.runtime_for(platform);
    const LockedRuntime* is_runtime = now.runtime_for(platform);
    if ((was_runtime == nullptr) != (is_runtime == nullptr) || (was_runtime && !(*was_runtime == *is_runtime))) {
      differences.push_back(platform + ": the lock has " + runtime_words(was_runtime) +
                            ", .cudnnenv.toml now resolves to " + runtime_words(is_runtime));
    }
    for (const ComponentRow* row : named_rows()) {
      const LockedTree* was_tree = locked.tree_for(row->kind, platform);
      const LockedTree* is_tree = now.tree_for(row->kind, platform);
      const auto words = [&](const LockedTree* tree) {
        return tree ? std::string(row->noun) + " " + tree->release + " (" + tree->file + ")"
                    : "no " + std::string(row->noun);
      };
      if ((was_tree == nullptr) != (is_tree == nullptr) || (was_tree && !(*was_tree == *is_tree))) {
        differences.push_back(platform + ": the lock has " + words(was_tree) + ", .cudnnenv.toml now resolves to " +
                              words(is_tree));
      }
    }
  }
  if (differences.empty() && serialize_lock(locked) != serialize_lock(now)) {
    differences.push_back(
        "its text is not what 'cudnnenv lock' writes now (another cudnnenv wrote it, or a hand edited it)");
  }
  return differences;
}

Result<ProjectFile> lockable_project(const fs::path& folder) {
  const auto file = find_project_file(folder);
  if (!file) {
    return make_error("no .cudnnenv.toml here or in a folder above",
                      "cudnnenv use 9.19 --local  (writes one naming the cuDNN this project needs)",
                      ExitCode::not_found);
  }
  CUDNNENV_TRY_ASSIGN(project, read_project_file(*file));
  if (project->path) {
    return make_error(util::to_utf8(*file) + " names a folder (path = \"" + util::printable(*project->path) +
                          "\"), which no lock or sync can fetch",
                      "name a version instead: cudnn = \"9.19\"", ExitCode::usage);
  }
  if (!project->cudnn && !project->profile) {
    return make_error(util::to_utf8(*file) + " names no cuDNN (cudnn = \"...\" or profile = \"...\")",
                      "cudnnenv use 9.19 --local", ExitCode::not_found);
  }
  return project;
}

std::optional<std::string> stale_lock_note(const fs::path& project_file) {
  const fs::path lock_file = lock_path_for(project_file);
  if (std::error_code ec; !fs::exists(lock_file, ec)) return std::nullopt;
  auto locked = read_lock(lock_file);
  auto project = read_project_file(project_file);
  if (!locked || !project) {
    return util::to_utf8(lock_file) + " could not be compared with " + util::to_utf8(project_file) + " (" +
           (locked ? project.error().message : locked.error().message) + "): 'cudnnenv lock' writes it again";
  }
  const auto differences = lock_differences(locked->input, lock_input_of(*project));
  if (differences.empty()) return std::nullopt;
  return util::to_utf8(lock_file) + " no longer matches it (" + util::join(differences, "; ") +
         "): 'cudnnenv lock' writes it again (then commit it); until then current, exec and the shims take what " +
         util::to_utf8(project_file.filename()) + " says";
}

Result<void> check_locked_runtime(const LockedRuntime& locked, const CudaRelease& release) {
  const std::string hint = "cudnnenv lock  (writes it again from what the manifest says now; then commit it)";
  if (release.manifest_sha256 != locked.manifest_sha256) {
    return make_error("the manifest of CUDA " + release.release.str() +
                          " is not the one the lock names: its SHA-256 is " + release.manifest_sha256 +
                          ", the lock says " + locked.manifest_sha256,
                      hint, ExitCode::failure);
  }
  for (const auto& component : locked.components) {
    const auto found = std::find_if(release.manifest.archives.begin(), release.manifest.archives.end(),
                                    [&](const RedistArchive& archive) { return archive.component == component.name; });
    if (found == release.manifest.archives.end() || found->sha256 != component.sha256 ||
        found->relative_path != component.path) {
      return make_error("the manifest of CUDA " + release.release.str() + " does not name " +
                            util::printable(component.path) + " with the SHA-256 the lock says (" + component.sha256 +
                            ")",
                        hint, ExitCode::failure);
    }
  }
  return {};
}

}  // namespace cudnnenv
