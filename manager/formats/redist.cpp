#include "formats/redist.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "util/json.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace {

constexpr int k_max_manifest_depth = 8;  // a real one has 3 (cuDNN's 4)

bool is_hex_sha256(std::string_view text) {
  if (text.size() != 64) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  }
  return true;
}

std::optional<std::uint64_t> size_of(const Json& node) {
  if (node.is_number_unsigned()) return node.get<std::uint64_t>();
  if (!node.is_string()) return std::nullopt;
  const std::string& text = node.get_ref<const std::string&>();
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::string string_or_empty(const Json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

}  // namespace

std::string redist_platform(const Platform& platform) {
  const bool arm = platform.arch == Arch::arm64;
  return platform.os == Os::windows ? std::string(arm ? "windows-arm64" : "windows-x86_64")
                                    : std::string(arm ? "linux-sbsa" : "linux-x86_64");
}

bool is_safe_relative_path(std::string_view path) {
  if (path.empty() || path.size() > 1024 || path.front() == '/') return false;
  for (const unsigned char c : path) {
    if (c < 0x20 || c == 0x7f || c == '\\' || c == ':') return false;
  }
  for (const auto& part : util::split(path, '/')) {
    if (part.empty() || part == "." || part == "..") return false;
  }
  return true;
}

Result<RedistManifest> parse_redist_manifest(std::string_view text, const std::string& origin,
                                             std::string_view platform) {
  const auto refused = [&](const std::string& why) {
    return make_error("'" + origin + "' is not a usable CUDA redistributable manifest: " + why,
                      "use NVIDIA's redistrib_<release>.json as published (developer.download.nvidia.com/compute/"
                      "cuda/redist/)");
  };
  if (text.size() > k_max_manifest_bytes) {
    return refused("it is " + std::to_string(text.size()) + " bytes, past the limit of " +
                   std::to_string(k_max_manifest_bytes));
  }
  if (!json_nesting_within(text, k_max_manifest_depth)) {
    return refused("it nests deeper than " + std::to_string(k_max_manifest_depth) + " levels");
  }
  const Json json = parse_json(text);
  if (json.is_discarded() || !json.is_object()) return refused("it is not a JSON object");
  RedistManifest manifest;
  manifest.release_date = string_or_empty(json, "release_date");
  manifest.release_label = string_or_empty(json, "release_label");
  for (const auto& [component, entry] : json.items()) {
    if (!entry.is_object() || !entry.contains("version")) continue;  // release_date, release_label, ...
    for (const auto& [key, value] : entry.items()) {
      if (value.is_object() && value.contains("relative_path") &&
          std::find(manifest.platforms.begin(), manifest.platforms.end(), key) == manifest.platforms.end()) {
        manifest.platforms.push_back(key);
      }
    }
    const auto found = entry.find(std::string(platform));
    if (found == entry.end()) continue;
    const std::string where = "'" + util::printable(component) + "' for " + std::string(platform);
    if (!found->is_object()) return refused(where + " is not an object");
    RedistArchive archive;
    archive.component = component;
    archive.name = string_or_empty(entry, "name");
    archive.version = string_or_empty(entry, "version");
    archive.relative_path = string_or_empty(*found, "relative_path");
    archive.sha256 = util::to_lower(string_or_empty(*found, "sha256"));
    if (!is_safe_relative_path(archive.relative_path)) {
      return refused(where + " has the relative_path '" + util::printable(archive.relative_path) +
                     "', which is not a plain relative path");
    }
    if (!is_hex_sha256(archive.sha256)) return refused(where + " has no SHA-256 of 64 hex digits");
    const auto size = found->contains("size") ? size_of((*found)["size"]) : std::nullopt;
    if (!size || *size == 0) return refused(where + " has no size in bytes");
    archive.size = *size;
    if (archive.version.empty() || archive.version.size() > 64 ||
        !std::all_of(archive.version.begin(), archive.version.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-'; })) {
      return refused(where + " has no plain version");
    }
    manifest.archives.push_back(std::move(archive));
  }
  if (manifest.archives.empty()) {
    std::string has;
    for (const auto& name : manifest.platforms) has += (has.empty() ? "" : ", ") + util::printable(name);
    return make_error("'" + origin + "' has no archives for " + std::string(platform),
                      has.empty() ? std::string("it lists no archives at all") : "it has " + has, ExitCode::not_found);
  }
  return manifest;
}

}  // namespace cudnnenv
