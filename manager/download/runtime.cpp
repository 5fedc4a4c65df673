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

// The pinned SHA-256 of `release`'s manifest; empty when it is not pinned.
std::string pinned_sha256(const Version& release) {
  for (const auto& pinned : pinned_manifests()) {
    if (pinned.release == release.str()) return pinned.sha256;
  }
  return {};
}

// `file` read (no more than a manifest can be), hashed and parsed for
// `platform` into `found`: the bytes parsed are the bytes hashed.
Result<void> read_manifest(CudaRelease& found, const fs::path& file, const Platform& platform) {
  auto text = util::read_file(file, k_max_manifest_bytes);
  if (!text) {
    std::error_code ec;
    if (fs::file_size(file, ec) > k_max_manifest_bytes && !ec) {
      return make_error("'" + util::to_utf8(file) + "' is larger than a manifest can be",
                        "use NVIDIA's redistrib_<release>.json as published");
    }
    return text.error();
  }
  util::Sha256 hash;
  hash.update(text->data(), text->size());
  found.manifest_sha256 = hash.hex_digest();
  CUDNNENV_TRY_ASSIGN(manifest, parse_redist_manifest(*text, util::to_utf8(file), redist_platform(platform)));
  found.manifest = std::move(*manifest);
  return {};
}

// A pinned release whose runtime archives for `platform` are all in the
// embedded table, as a release read from its manifest would be (only those
// archives), nothing fetched; empty when the table lacks one.
std::optional<CudaRelease> tabled_release(const Version& release, const Platform& platform) {
  const std::string sha256 = pinned_sha256(release);
  if (sha256.empty()) return std::nullopt;
  CudaRelease found;
  found.release = release;
  found.pinned = true;
  found.manifest_sha256 = sha256;
  found.manifest_source = std::string(k_cuda_redist_url) + manifest_file_name(release.str());
  found.manifest.archives = pinned_runtime_archives(release.str(), redist_platform(platform));
  for (const auto& component : runtime_components(release.major)) {
    if (std::none_of(found.manifest.archives.begin(), found.manifest.archives.end(),
                     [&](const RedistArchive& archive) { return archive.component == component; })) {
      return std::nullopt;
    }
  }
  return found;
}

// The offline way in when the manifest of `release` cannot be fetched: every
// URL with its size when the table lists its archives, else the manifest's
// URL and the commands that list the rest.
std::string manifest_offline_hint(const Version& release, const Platform& platform, bool pinned) {
  const std::string folder = "cuda-" + release.str();
  const std::string unverified = pinned ? "" : " --allow-unverified";
  const std::string url = std::string(k_cuda_redist_url) + manifest_file_name(release.str());
  const auto tabled = tabled_release(release, platform);
  if (!tabled) {
    return "; or offline: download " + url + " into a folder " + folder + ", run 'cudnnenv install cuda ./" + folder +
           " --print-urls urls.txt" + unverified +
           "' and download each URL it writes into the same folder, then: cudnnenv install cuda ./" + folder +
           unverified;
  }
  std::string list = url;
  std::uint64_t total = 0;
  const std::vector<std::string> components = runtime_components(release.major);
  for (const auto& component : components) {
    for (const auto& archive : tabled->manifest.archives) {
      if (archive.component != component) continue;
      list +=
          ", " + std::string(k_cuda_redist_url) + archive.relative_path + " (" + util::human_size(archive.size) + ")";
      total += archive.size;
    }
  }
  return "; or offline: download these " + std::to_string(components.size() + 1) + " files (" +
         util::human_size(total) + ") into a folder " + folder + ", then: cudnnenv install cuda ./" + folder +
         " ('cudnnenv install cuda " + release.str() + " --print-urls urls.txt' writes them for wget -i): " + list;
}

}  // namespace

std::optional<fs::path> cuda_index(const util::Environment& environment) {
  if (auto folder = environment.get("CUDNNENV_CUDA_INDEX"); folder && !folder->empty()) {
    return util::path_from_utf8(*folder);
  }
  return std::nullopt;
}

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
                                      const std::optional<fs::path>& index, const DownloadOptions& options,
                                      bool urls_only) {
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
  if (urls_only && !index) {
    if (auto tabled = tabled_release(*chosen, platform)) return std::move(*tabled);
  }
  found.release = *chosen;
  const std::string file_name = manifest_file_name(chosen->str());
  fs::path manifest_file;
  if (index) {
    manifest_file = *index / util::path_from_utf8(file_name);
    found.manifest_source = util::to_utf8(manifest_file);
  } else {
    const std::string sha256 = pinned_sha256(*chosen);
    found.pinned = !sha256.empty();
    const std::string url = std::string(k_cuda_redist_url) + file_name;
    const std::string version = chosen->str();  // outlives `archive`, whose fields are views
    const OfficialArchive archive{version, "", "", file_name, sha256, 0, url, "the pinned manifest list"};
    DownloadOptions manifest_options = options;
    manifest_options.max_unknown_size = k_max_manifest_bytes;  // a manifest, not an archive of unknown size
    manifest_options.offline_hint = manifest_offline_hint(*chosen, platform, found.pinned);
    CUDNNENV_TRY_ASSIGN(downloaded, fetch_archive(archive, manifest_options));
    manifest_file = downloaded->file;
    found.manifest_source = url;
  }
  CUDNNENV_TRY(read_manifest(found, manifest_file, platform));
  // A pinned manifest's bytes, parsed as hashed, must still be the pinned ones.
  const std::string pinned = pinned_sha256(found.release);
  if (found.pinned && pinned != found.manifest_sha256) {
    return make_error("'" + util::to_utf8(manifest_file) + "' changed after it was checked: its SHA-256 is now " +
                          found.manifest_sha256 + ", the pinned manifest list says " + pinned,
                      "something replaced it in the downloads folder: check who can write there, then run this again");
  }
  return found;
}

Result<CudaRelease> read_local_cuda_release(const fs::path& given, const Platform& platform, bool allow_unverified) {
  std::error_code ec;
  fs::path manifest_file = given;
  if (fs::is_directory(given, ec)) {
    std::vector<std::string> found;
    for (const auto& entry : util::directory_entries(given)) {
      const std::string name = util::to_utf8(entry.path.filename());
      if (release_of_file(name) && !entry.is_directory) found.push_back(name);
    }
    std::sort(found.begin(), found.end());
    if (found.size() != 1) {
      const std::string folder = util::printable(util::to_utf8(given));
      return make_error(
          found.empty() ? "'" + folder + "' holds no CUDA manifest (redistrib_<release>.json)"
                        : "'" + folder + "' holds " + std::to_string(found.size()) + " CUDA manifests: " + names(found),
          found.empty() ? "put the release's manifest beside its archives: NVIDIA publishes it as " +
                              std::string(k_cuda_redist_url) + "redistrib_<release>.json"
                        : "name one: 'cudnnenv install cuda " +
                              util::command_word(util::to_utf8(given / util::path_from_utf8(found.back()))) + "'",
          ExitCode::not_found);
    }
    manifest_file = given / util::path_from_utf8(found.front());
  }
  const std::string file_name = util::to_utf8(manifest_file.filename());
  const auto release = release_of_file(file_name);
  if (!release) {
    return make_error("'" + util::printable(util::to_utf8(manifest_file)) + "' is not named as a CUDA manifest is",
                      "NVIDIA's manifests are redistrib_<release>.json (redistrib_11.8.0.json): give one as "
                      "published, or its folder",
                      ExitCode::usage);
  }
  if (!fs::is_regular_file(manifest_file, ec)) {
    return make_error("'" + util::printable(util::to_utf8(manifest_file)) + "' does not exist",
                      "download " + std::string(k_cuda_redist_url) + file_name + " there, or give its folder",
                      ExitCode::not_found);
  }
  CudaRelease found;
  found.release = *release;
  found.manifest_source = util::to_utf8(fs::absolute(manifest_file, ec).lexically_normal());
  found.archives_folder = fs::absolute(manifest_file, ec).lexically_normal().parent_path();
  CUDNNENV_TRY(read_manifest(found, manifest_file, platform));
  const std::string url = std::string(k_cuda_redist_url) + file_name;
  const std::string pinned = pinned_sha256(*release);
  found.pinned = !pinned.empty() && pinned == found.manifest_sha256;
  if (!found.pinned && !allow_unverified) {
    if (!pinned.empty()) {
      return make_error("'" + util::printable(found.manifest_source) + "' is not NVIDIA's manifest of CUDA " +
                            release->str() + ": its SHA-256 is " + found.manifest_sha256 +
                            ", the pinned manifest list says " + pinned,
                        "download " + url +
                            " again; or, to install from this one, add --allow-unverified (its "
                            "SHA-256 is recorded in the tree)");
    }
    return make_error("the manifest of CUDA " + release->str() + " is not pinned: nothing says what '" +
                          util::printable(found.manifest_source) + "' should hold",
                      "to install from it, add --allow-unverified (its SHA-256 is recorded in the tree); its archives "
                      "are still checked against it");
  }
  return found;
}

namespace {

// The entries of `components` in `release`'s manifest, in that order.
Result<std::vector<const RedistArchive*>> component_entries(const CudaRelease& release,
                                                            const std::vector<std::string>& components) {
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
  return entries;
}

std::string file_name_of(const RedistArchive& entry) {
  return entry.relative_path.substr(entry.relative_path.rfind('/') + 1);
}

// Where the user's folder holds an archive: by its file name, else at its
// relative_path (a copy of NVIDIA's folder); empty when neither.
std::optional<fs::path> local_archive(const fs::path& folder, const RedistArchive& entry) {
  std::error_code ec;
  for (const fs::path& candidate :
       {folder / util::path_from_utf8(file_name_of(entry)), folder / util::path_from_utf8(entry.relative_path)}) {
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

}  // namespace

Result<std::vector<DownloadUrl>> runtime_download_urls(const CudaRelease& release,
                                                       const std::vector<std::string>& components) {
  CUDNNENV_TRY_ASSIGN(entries, component_entries(release, components));
  const std::string manifest = manifest_file_name(release.release.str());
  std::vector<DownloadUrl> urls{{std::string(k_cuda_redist_url) + manifest, manifest, 0}};
  for (const RedistArchive* entry : *entries) {
    urls.push_back({std::string(k_cuda_redist_url) + entry->relative_path, file_name_of(*entry), entry->size});
  }
  return urls;
}

Result<std::vector<ComponentArchive>> fetch_runtime_archives(
    const CudaRelease& release, const std::vector<std::string>& components, const DownloadOptions& options,
    const std::function<void(const std::string& file_name)>& starting) {
  CUDNNENV_TRY_ASSIGN(entries, component_entries(release, components));
  const std::string listed_by = "the manifest of CUDA " + release.release.str();
  if (release.archives_folder) {
    const fs::path& folder = *release.archives_folder;
    std::vector<std::string> missing;
    for (const RedistArchive* entry : *entries) {
      if (!local_archive(folder, *entry)) {
        missing.push_back(std::string(k_cuda_redist_url) + entry->relative_path + " (" + util::human_size(entry->size) +
                          ")");
      }
    }
    if (!missing.empty()) {
      return make_error("'" + util::printable(util::to_utf8(folder)) + "' lacks " + std::to_string(missing.size()) +
                            " of the " + std::to_string(entries->size()) + " archives of CUDA " +
                            release.release.str() + "'s runtime: " + names(missing),
                        "download them into that folder and run this again ('cudnnenv install cuda " +
                            util::command_word(release.manifest_source) + " --print-urls urls.txt" +
                            (release.pinned ? "" : " --allow-unverified") + "' writes every URL to a file)",
                        ExitCode::not_found);
    }
  }
  DownloadOptions fetch_options = options;
  const std::string folder = "cuda-" + release.release.str();
  const std::string unverified = release.pinned ? "" : " --allow-unverified";
  fetch_options.offline_hint = "; or offline: 'cudnnenv install cuda " + release.release.str() +
                               " --print-urls urls.txt" + unverified +
                               "' writes the URL of every file to download into a folder " + folder +
                               "; with it here: cudnnenv install cuda ./" + folder + unverified;
  std::vector<ComponentArchive> archives;
  for (const RedistArchive* entry : *entries) {
    const std::string& component = entry->component;
    const std::string file_name = file_name_of(*entry);
    const std::string url = std::string(k_cuda_redist_url) + entry->relative_path;
    const OfficialArchive archive{entry->version, "", "", file_name, entry->sha256, entry->size, url, listed_by};
    if (starting) starting(file_name);
    const auto taken = release.archives_folder
                           ? take_local_archive(archive, *local_archive(*release.archives_folder, *entry), options)
                           : fetch_archive(archive, fetch_options);
    if (!taken) return taken.error();
    archives.push_back({taken->file, component, entry->version, entry->sha256});
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
