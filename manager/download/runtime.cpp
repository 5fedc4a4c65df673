#include "download/runtime.hpp"

#include <algorithm>

#include "store/runtime.hpp"
#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

std::optional<Version> release_of_file(const std::string& name) {
  if (!util::starts_with(name, "redistrib_") || !util::ends_with(name, ".json")) return std::nullopt;
  return parse_version(name.substr(10, name.size() - 15));
}

// Whole components: 11.8 matches 11.8.0, never 11.80; 13 any 13.x.
bool release_matches(const Version& release, const std::string& asked) {
  const auto parts = util::split(asked, '.');
  const auto wanted = parse_version(asked.find('.') == std::string::npos ? asked + ".0" : asked);
  if (!wanted || parts.empty() || parts.size() > 3) return false;
  if (release.major != wanted->major) return false;
  if (parts.size() >= 2 && release.minor != wanted->minor) return false;
  if (parts.size() >= 3 && release.patch != wanted->patch) return false;
  return true;
}

std::string names(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

}  // namespace

std::vector<Version> known_cuda_releases(const std::optional<fs::path>& index) {
  std::vector<Version> releases;
  if (index) {
    for (const auto& entry : util::directory_entries(*index)) {
      if (auto release = release_of_file(util::to_utf8(entry.path.filename()))) releases.push_back(*release);
    }
  } else {
    for (const auto& pinned : pinned_manifests()) {
      if (auto release = parse_version(pinned.release)) releases.push_back(*release);
    }
  }
  std::sort(releases.begin(), releases.end(), std::greater<>());
  return releases;
}

Result<CudaRelease> find_cuda_release(const std::string& asked, const Platform& platform,
                                      const std::optional<fs::path>& index, const DownloadOptions& options) {
  const std::vector<Version> releases = known_cuda_releases(index);
  std::optional<Version> chosen;
  for (const auto& release : releases) {
    if (release_matches(release, asked)) {
      chosen = release;
      break;  // newest first
    }
  }
  CudaRelease found;
  if (!chosen) {
    std::string known;
    for (std::size_t i = 0; i < releases.size() && i < 8; ++i) known += (i ? ", " : "") + releases[i].str();
    const auto exact = parse_version(asked);
    if (!index && exact && util::split(asked, '.').size() == 3 && options.allow_unverified) {
      chosen = *exact;  // not pinned: fetched unchecked, as asked
    } else {
      return make_error(
          "no CUDA release '" + asked + "' is known" + (index ? " in '" + util::to_utf8(*index) + "'" : std::string()),
          (known.empty() ? std::string("there are none") : "known: " + known) +
              (index ? std::string()
                     : "; a release whose manifest is not pinned: give its full number with --allow-unverified "
                       "(e.g. 'cudnnenv install cuda 11.2.2 --allow-unverified'), or a folder of manifests in "
                       "CUDNNENV_CUDA_INDEX"),
          ExitCode::not_found);
    }
  }
  found.release = *chosen;
  const std::string file_name = manifest_file_name(chosen->str());
  fs::path manifest_file;
  if (index) {
    manifest_file = *index / util::path_from_utf8(file_name);
    found.manifest_source = util::to_utf8(manifest_file);
  } else {
    std::string sha256;
    for (const auto& pinned : pinned_manifests()) {
      if (pinned.release == chosen->str()) sha256 = pinned.sha256;
    }
    found.pinned = !sha256.empty();
    const std::string url = std::string(k_cuda_redist_url) + file_name;
    const std::string version = chosen->str();  // outlives `archive`, whose fields are views
    const OfficialArchive archive{version, "", "", file_name, sha256, 0, url, "the pinned manifest list"};
    DownloadOptions manifest_options = options;
    manifest_options.max_unknown_size = k_max_manifest_bytes;  // a manifest, not an archive of unknown size
    CUDNNENV_TRY_ASSIGN(downloaded, fetch_archive(archive, manifest_options));
    manifest_file = downloaded->file;
    found.manifest_source = url;
  }
  CUDNNENV_TRY_ASSIGN(text, util::read_file(manifest_file));
  if (text->size() > k_max_manifest_bytes) {
    return make_error("'" + util::to_utf8(manifest_file) + "' is larger than a manifest can be",
                      "use NVIDIA's redistrib_<release>.json as published");
  }
  // The bytes parsed are the bytes hashed, and a pinned manifest's must still be the pinned ones.
  util::Sha256 hash;
  hash.update(text->data(), text->size());
  found.manifest_sha256 = hash.hex_digest();
  if (found.pinned) {
    for (const auto& pinned : pinned_manifests()) {
      if (pinned.release == chosen->str() && pinned.sha256 != found.manifest_sha256) {
        return make_error("'" + util::to_utf8(manifest_file) + "' changed after it was checked: its SHA-256 is now " +
                              found.manifest_sha256 + ", the pinned manifest list says " + std::string(pinned.sha256),
                          "something replaced it in the downloads folder: check who can write there, then run this "
                          "again");
      }
    }
  }
  CUDNNENV_TRY_ASSIGN(manifest, parse_redist_manifest(*text, util::to_utf8(manifest_file), redist_platform(platform)));
  found.manifest = std::move(*manifest);
  return found;
}

Result<std::vector<ComponentArchive>> fetch_runtime_archives(
    const CudaRelease& release, const std::vector<std::string>& components, const DownloadOptions& options,
    const std::function<void(const std::string& file_name)>& starting) {
  std::vector<const RedistArchive*> entries;
  for (const auto& component : components) {
    const auto entry = std::find_if(release.manifest.archives.begin(), release.manifest.archives.end(),
                                    [&](const RedistArchive& archive) { return archive.component == component; });
    if (entry == release.manifest.archives.end()) {
      return make_error(
          "the manifest of CUDA " + release.release.str() + " has no '" + component + "' for this platform",
          "a CUDA " + std::to_string(release.release.major) + " runtime is made of " + names(components),
          ExitCode::not_found);
    }
    entries.push_back(&*entry);
  }
  const std::string listed_by = "the manifest of CUDA " + release.release.str();
  std::vector<ComponentArchive> archives;
  for (const RedistArchive* entry : entries) {
    const std::string& component = entry->component;
    const std::string file_name = entry->relative_path.substr(entry->relative_path.rfind('/') + 1);
    const std::string url = std::string(k_cuda_redist_url) + entry->relative_path;
    const OfficialArchive archive{entry->version, "", "", file_name, entry->sha256, entry->size, url, listed_by};
    if (starting) starting(file_name);
    CUDNNENV_TRY_ASSIGN(downloaded, fetch_archive(archive, options));
    archives.push_back({downloaded->file, component, entry->version, entry->sha256});
  }
  return archives;
}

Result<RuntimeReleaseChoice> runtime_release_for(const CudaVersion& asked, const std::vector<Version>& known,
                                                 const std::string& framework) {
  std::string fallback;
  for (const auto& release : known) {  // newest first
    if (release.major != asked.major) continue;
    if (asked.minor && release.minor == *asked.minor) return RuntimeReleaseChoice{release.str(), false};
    if (fallback.empty()) fallback = release.str();
  }
  if (fallback.empty()) {
    return make_error(
        "no CUDA " + std::to_string(asked.major) + " release is known to install " + framework + "'s runtime from",
        "'cudnnenv list --available cuda' lists them; a release whose manifest is not pinned: "
        "'cudnnenv install cuda " +
            asked.str() + ".N --allow-unverified'",
        ExitCode::not_found);
  }
  return RuntimeReleaseChoice{fallback, true};
}

}  // namespace cudnnenv
