#include "download/mirror.hpp"

#include <algorithm>
#include <set>

#include "formats/redist.hpp"
#include "formats/version.hpp"
#include "store/official.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_rewrite_hint = "make the mirror again with 'cudnnenv mirror create' (it writes the index)";

// A short string field of an entry: absent is "", anything but a string of at most 512 bytes is an error.
Result<std::string> text_field(const Json& entry, const char* key, const std::string& where, bool required) {
  const auto found = entry.find(key);
  if (found == entry.end() || found->is_null()) {
    if (required) return make_error(where + " has no '" + key + "'", std::string(k_rewrite_hint));
    return std::string();
  }
  if (!found->is_string() || found->get_ref<const std::string&>().size() > 512) {
    return make_error(where + ": '" + key + "' is not a short string", std::string(k_rewrite_hint));
  }
  return found->get<std::string>();
}

Result<MirrorFile> parse_entry(const Json& entry, const std::string& where) {
  if (!entry.is_object()) return make_error(where + " is not an object", std::string(k_rewrite_hint));
  MirrorFile file;
  CUDNNENV_TRY_ASSIGN(path, text_field(entry, "path", where, true));
  if (!is_safe_relative_path(*path)) {
    return make_error(where + ": the path '" + util::printable(*path) + "' is not a plain relative path",
                      std::string(k_rewrite_hint));
  }
  CUDNNENV_TRY_ASSIGN(sha256, text_field(entry, "sha256", where, true));
  if (!util::is_sha256_hex(*sha256)) {
    return make_error(where + ": '" + util::printable(*sha256) + "' is not a SHA-256 (64 hex digits)",
                      std::string(k_rewrite_hint));
  }
  const auto size = entry.find("size");
  if (size == entry.end() || !size->is_number_unsigned()) {
    return make_error(where + ": 'size' is not a number of bytes", std::string(k_rewrite_hint));
  }
  CUDNNENV_TRY_ASSIGN(what, text_field(entry, "what", where, false));
  CUDNNENV_TRY_ASSIGN(platform, text_field(entry, "platform", where, false));
  CUDNNENV_TRY_ASSIGN(release, text_field(entry, "cuda_release", where, false));
  if (!platform->empty() && *platform != "linux-x86_64" && *platform != "linux-sbsa" && *platform != "windows-x86_64") {
    return make_error(where + ": '" + util::printable(*platform) + "' is no platform of the official list",
                      std::string(k_rewrite_hint));
  }
  if (!release->empty() && !parse_version(*release)) {
    return make_error(where + ": '" + util::printable(*release) + "' is not a CUDA release",
                      std::string(k_rewrite_hint));
  }
  file.path = std::move(*path);
  file.sha256 = std::move(*sha256);
  file.size = size->get<std::uint64_t>();
  file.what = std::move(*what);
  file.platform = std::move(*platform);
  file.cuda_release = std::move(*release);
  return file;
}

std::string file_name_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string check_file(const fs::path& folder, const MirrorFile& file) {
  const fs::path on_disk = folder / util::path_from_utf8(file.path);
  std::error_code ec;
  // Only the mirror's own files are read: never a link (planted by whoever
  // can write the mirror, to a file only root may read), never a file
  // whose real path leaves the mirror (a folder on the way linked out).
  if (auto link = util::link_on_the_way(folder, on_disk)) {
    return "not in the mirror: '" + util::printable(util::to_utf8(*link)) + "' is a link";
  }
  if (util::entry_exists(on_disk)) {
    const fs::path real = util::final_path(on_disk);
    const fs::path inside = real.lexically_relative(util::final_path(folder));
    if (inside.empty() || *inside.begin() == "..") return "not in the mirror: its real path is outside it";
  }
  if (!fs::is_regular_file(on_disk, ec)) return "missing";
  const std::uint64_t size = fs::file_size(on_disk, ec);
  if (ec) return "unreadable: " + ec.message();
  if (size != file.size) {
    return std::to_string(size) + " bytes, the index says " + std::to_string(file.size);
  }
  const auto digest = util::sha256_file(on_disk);
  if (!digest) return "unreadable: " + digest.error().message;
  if (*digest != file.sha256) return "its SHA-256 is " + *digest + ", the index says " + file.sha256;
  if (file.cuda_release.empty()) {
    const OfficialArchive* official = find_official_by_name(file_name_of(file.path));
    if (official && !official->sha256.empty() && official->sha256 != file.sha256) {
      return "the index and the file agree, but the official list says its SHA-256 is " + std::string(official->sha256);
    }
  }
  return {};
}

}  // namespace

void MirrorIndex::sort() {
  std::stable_sort(files.begin(), files.end(),
                   [](const MirrorFile& a, const MirrorFile& b) { return a.path < b.path; });
}

void MirrorIndex::add(MirrorFile file) {
  const auto place = std::lower_bound(files.begin(), files.end(), file.path,
                                      [](const MirrorFile& each, const std::string& path) { return each.path < path; });
  if (place != files.end() && place->path == file.path) {
    *place = std::move(file);
  } else {
    files.insert(place, std::move(file));
  }
}

std::string serialize_mirror_index(const MirrorIndex& index) {
  Json files = Json::array();
  for (const auto& file : index.files) {
    Json entry{{"path", file.path}, {"size", file.size}, {"sha256", file.sha256}, {"what", file.what}};
    if (!file.platform.empty()) entry["platform"] = file.platform;
    if (!file.cuda_release.empty()) entry["cuda_release"] = file.cuda_release;
    files.push_back(std::move(entry));
  }
  const Json document{{"format", k_mirror_format}, {"written_by", "cudnnenv mirror create"}, {"files", files}};
  return document.dump(1) + "\n";
}

Result<MirrorIndex> parse_mirror_index(std::string_view text, const fs::path& file) {
  const std::string name = "'" + util::printable(util::to_utf8(file)) + "'";
  if (text.size() > k_max_mirror_index) {
    return make_error(name + " is larger than any mirror index (" + util::human_size(text.size()) + ")",
                      std::string(k_rewrite_hint));
  }
  if (!json_nesting_within(text, 4)) {
    return make_error(name + " nests deeper than a mirror index does", std::string(k_rewrite_hint));
  }
  const Json document = parse_json(text);
  if (document.is_discarded() || !document.is_object()) {
    return make_error(name + " is not a mirror index (not a JSON object)", std::string(k_rewrite_hint));
  }
  const auto format = document.find("format");
  if (format == document.end() || !format->is_number_integer() || format->get<std::int64_t>() != k_mirror_format) {
    return make_error(name + " is not a mirror index of format " + std::to_string(k_mirror_format) +
                          " (a newer cudnnenv may have written it)",
                      "update cudnnenv, or " + std::string(k_rewrite_hint));
  }
  const auto files = document.find("files");
  if (files == document.end() || !files->is_array()) {
    return make_error(name + " has no list of files", std::string(k_rewrite_hint));
  }
  // Every entry read, then one sort: a path named twice sits beside its twin (linear after the sort; a
  // search of the earlier entries for each, or a sorted insert of each, is quadratic in a crafted index).
  MirrorIndex index;
  index.files.reserve(files->size());
  for (std::size_t i = 0; i < files->size(); ++i) {
    CUDNNENV_TRY_ASSIGN(entry, parse_entry((*files)[i], name + ", file " + std::to_string(i + 1)));
    index.files.push_back(std::move(*entry));
  }
  index.sort();
  const auto twin = std::adjacent_find(index.files.begin(), index.files.end(),
                                       [](const MirrorFile& a, const MirrorFile& b) { return a.path == b.path; });
  if (twin != index.files.end()) {
    return make_error(name + " names '" + util::printable(twin->path) + "' twice", std::string(k_rewrite_hint));
  }
  return index;
}

Result<MirrorIndex> read_mirror_index(const fs::path& folder) {
  const fs::path file = folder / k_mirror_index;
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    return make_error("'" + util::to_utf8(folder) + "' is no mirror made by cudnnenv: it has no " + k_mirror_index,
                      "cudnnenv mirror create " + util::command_word(util::to_utf8(folder)) + " 9.19",
                      ExitCode::not_found);
  }
  CUDNNENV_TRY_ASSIGN(text, util::read_file(file, k_max_mirror_index));
  return parse_mirror_index(*text, file);
}

namespace {

// write_file_atomic's temporaries: "<name>.tmp<pid>-<n>".
bool is_temporary_name(const std::string& name) {
  const auto at = name.rfind(".tmp");
  if (at == std::string::npos) return false;
  const std::string rest = name.substr(at + 4);
  const auto dash = rest.find('-');
  const auto digits = [](std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  return dash != std::string::npos && digits(std::string_view(rest).substr(0, dash)) &&
         digits(std::string_view(rest).substr(dash + 1));
}

}  // namespace

std::vector<std::string> unlisted_mirror_files(const fs::path& folder, const MirrorIndex& index) {
  std::set<std::string> listed;
  for (const auto& file : index.files) listed.insert(file.path);
  std::vector<std::string> unlisted;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    std::string path = util::to_utf8(it->path().lexically_relative(folder));
    std::replace(path.begin(), path.end(), '\\', '/');
    const std::string name = util::to_utf8(it->path().filename());
    if (path == k_mirror_index || util::ends_with(name, ".part") || is_temporary_name(name) ||
        listed.count(path) != 0) {
      continue;
    }
    unlisted.push_back(std::move(path));
  }
  std::sort(unlisted.begin(), unlisted.end());
  return unlisted;
}

std::vector<MirrorCheck> verify_mirror(const fs::path& folder, const MirrorIndex& index,
                                       const std::function<void(const std::string&)>& progress) {
  std::vector<MirrorCheck> checks;
  for (const auto& file : index.files) {
    if (progress) progress(file.path);
    checks.push_back({file, check_file(folder, file)});
  }
  return checks;
}

}  // namespace cudnnenv
