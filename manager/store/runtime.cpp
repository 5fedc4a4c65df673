#include "store/runtime.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <set>

#include "formats/binfmt.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

#include "components.inc"
#include "cuda_manifests.inc"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

// The stems of the libraries a framework opens, as NVIDIA names the files:
// Linux lib<stem>.so.<major>, Windows <stem>64_<major>.dll (cudart64_110,
// nvrtc64_120_0, cupti64_2025.1.0), nvJitLink_<major>0_0.dll; the runtime's
// rows of components.inc, with the N of lib<stem>.so.N that CUDA 11, 12 and
// 13 ship (0: none).
struct LibraryStem {
  TreeKind kind;
  std::string_view stem;
  std::array<int, 3> in_release;  // CUDA 11, 12, 13
};
constexpr int k_first_release_column = 11;
#define CUDNNENV_STEM(kind, stem, pinned, family, in11, in12, in13) \
  LibraryStem{TreeKind::kind, stem, {in11, in12, in13}},
constexpr std::array k_library_stems = {CUDNNENV_LIBRARIES(CUDNNENV_STEM)};
#undef CUDNNENV_STEM

// The fields of each row of an embedded table, its header line and empty lines skipped.
std::vector<std::vector<std::string>> table_rows(std::string_view text) {
  std::vector<std::vector<std::string>> rows;
  const auto lines = util::split(text, '\n');
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (!lines[i].empty()) rows.push_back(util::split(lines[i], '\t'));
  }
  return rows;
}

}  // namespace

const std::vector<PinnedManifest>& pinned_manifests() {
  static const std::vector<PinnedManifest> manifests = [] {
    std::vector<PinnedManifest> list;
    for (const auto& fields : table_rows(k_cuda_manifests_tsv)) {
      if (fields.size() >= 2) list.push_back({fields[0], fields[1]});
    }
    return list;
  }();
  return manifests;
}

std::vector<RedistArchive> pinned_runtime_archives(const std::string& release, std::string_view platform) {
  std::vector<RedistArchive> archives;
  // release, platform, component, version, relative_path, size_bytes, sha256, source
  for (const auto& fields : table_rows(k_cuda_archives_tsv)) {
    if (fields.size() < 7 || fields[0] != release || fields[1] != platform) continue;
    RedistArchive archive;
    archive.component = fields[2];
    archive.version = fields[3];
    archive.relative_path = fields[4];
    std::from_chars(fields[5].data(), fields[5].data() + fields[5].size(), archive.size);
    archive.sha256 = fields[6];
    archives.push_back(std::move(archive));
  }
  return archives;
}

std::string manifest_file_name(const std::string& release) {
  return "redistrib_" + release + ".json";
}

std::vector<std::string> runtime_components(int major) {
  std::vector<std::string> components = {"cuda_cudart", "libcublas",   "libcufft",  "libcurand",
                                         "libcusolver", "libcusparse", "cuda_nvrtc"};
  if (major >= 12) components.push_back("libnvjitlink");
  return components;
}

bool is_runtime_library_name(std::string_view file_name, Os os) {
  for (const auto& [kind, stem, in_release] : k_library_stems) {
    if (kind != TreeKind::cuda) continue;
    if (os == Os::windows) {
      const std::string lower = util::to_lower(file_name);
      if (!util::ends_with(lower, ".dll")) continue;
      const std::string prefix = util::to_lower(stem);
      // <stem>64_<digits...>.dll, or nvJitLink_<digits>.dll
      for (const std::string& head : {prefix + "64_", prefix + "_"}) {
        if (util::starts_with(lower, head) && lower.size() > head.size() + 4 &&
            std::isdigit(static_cast<unsigned char>(lower[head.size()]))) {
          return true;
        }
      }
    } else {
      const std::string head = "lib" + std::string(stem) + ".so.";
      if (util::starts_with(file_name, head) && file_name.size() > head.size() &&
          std::isdigit(static_cast<unsigned char>(file_name[head.size()]))) {
        return true;
      }
    }
  }
  return false;
}

namespace {

// The number in a runtime library's name: libcublas.so.12 -> 12,
// cudart64_110.dll -> 110, nvrtc64_120_0.dll -> 120, nvJitLink_120_0.dll -> 120.
std::optional<std::pair<std::string, int>> stem_and_number(std::string_view file_name) {
  const std::string name = util::to_utf8(util::path_from_utf8(file_name).filename());
  for (const auto& [kind, stem, in_release] : k_library_stems) {
    if (kind != TreeKind::cuda) continue;
    std::string rest;
    if (util::starts_with(name, "lib" + std::string(stem) + ".so.")) {
      rest = name.substr(3 + stem.size() + 4);
    } else {
      const std::string lower = util::to_lower(name);
      for (const std::string& head : {util::to_lower(stem) + "64_", util::to_lower(stem) + "_"}) {
        if (util::starts_with(lower, head)) rest = lower.substr(head.size());
      }
    }
    if (rest.empty() || !std::isdigit(static_cast<unsigned char>(rest[0]))) continue;
    return std::pair{std::string(stem), std::atoi(rest.c_str())};
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> cuda_major_of_library(std::string_view file_name, std::optional<int> prefer) {
  const auto found = stem_and_number(file_name);
  if (!found) return std::nullopt;
  const auto& [stem, number] = *found;
  // Windows writes cudart, NVRTC and nvJitLink with the minor: 110, 120_0.
  const int major = number >= 100 ? number / 10 : number;
  // The releases that ship that name (cuFFT is one behind, cuRAND is 10 in all); else the number itself.
  std::vector<int> majors;
  for (const auto& row : k_library_stems) {
    if (row.kind != TreeKind::cuda || row.stem != stem) continue;
    for (std::size_t column = 0; column < row.in_release.size(); ++column) {
      if (row.in_release[column] == major) majors.push_back(k_first_release_column + static_cast<int>(column));
    }
  }
  if (majors.empty()) majors = {major};
  if (prefer && std::find(majors.begin(), majors.end(), *prefer) != majors.end()) return prefer;
  return majors.back();
}

std::optional<std::string> runtime_entry_path(std::string_view inside, const std::string& component, Os os) {
  if (inside == "LICENSE") return "licenses/" + component + ".txt";
  const auto parts = util::split(inside, '/');
  if (os == Os::windows) {
    if (parts.size() >= 2 && parts.front() == "bin" && util::ends_with(util::to_lower(parts.back()), ".dll")) {
      return "bin/" + parts.back();
    }
    return std::nullopt;
  }
  if (parts.size() == 2 && parts[0] == "lib" && parts[1].find(".so") != std::string::npos) {
    return "lib/" + parts[1];
  }
  return std::nullopt;
}

namespace {

bool is_cudart(const std::string& name, Os os) {
  return is_runtime_library_name(name, os) &&
         util::starts_with(util::to_lower(name), os == Os::windows ? "cudart64_" : "libcudart.so.");
}

}  // namespace

std::unique_ptr<ArchiveSource> runtime_entries(std::unique_ptr<ArchiveSource> inner, std::string component, Os os) {
  // After the archive's one top folder (<component>-<platform>-<version>-archive/).
  return renamed_entries(std::move(inner),
                         [component = std::move(component), os](std::string_view name) -> std::optional<std::string> {
                           const auto slash = name.find('/');
                           if (slash == std::string_view::npos) return std::nullopt;
                           return runtime_entry_path(name.substr(slash + 1), component, os);
                         });
}

std::vector<std::string> runtime_library_files(const fs::path& library_dir, Os os) {
  return component_library_files(library_dir, os, &is_cuda_library);
}

std::vector<fs::path> runtime_library_folders(const fs::path& root, Os os) {
  return component_library_folders(root, os, &is_cuda_library);
}

Result<TreeLayout> locate_runtime_layout(const fs::path& root, Os os) {
  std::vector<std::pair<fs::path, std::string>> found;  // folder, cudart file
  std::vector<std::pair<fs::path, int>> folders{{root, 0}};
  while (!folders.empty()) {
    auto [folder, depth] = folders.back();
    folders.pop_back();
    std::string cudart;
    for (const auto& entry : util::directory_entries(folder)) {
      const std::string name = util::to_utf8(entry.path.filename());
      if (entry.is_directory) {
        if (depth < 3 && name != "stubs" && name.front() != '.') folders.push_back({entry.path, depth + 1});
      } else if (is_cudart(name, os) && (cudart.empty() || name.size() < cudart.size())) {
        cudart = name;  // libcudart.so.13 before libcudart.so.13.0.96
      }
    }
    if (!cudart.empty()) found.push_back({folder, cudart});
  }
  if (found.empty()) {
    return make_error("'" + util::to_utf8(root) + "' holds no CUDA runtime (no " +
                          (os == Os::windows ? std::string("cudart64_*.dll") : std::string("libcudart.so.*")) + ")",
                      "name a CUDA toolkit's " + std::string(os == Os::windows ? "bin" : "lib64") +
                          " folder, or the nvidia/cu13/lib (or nvidia/cuda_runtime/lib) folder of a Python environment",
                      ExitCode::not_found);
  }
  if (found.size() > 1) {
    return make_error("'" + util::to_utf8(root) + "' holds more than one CUDA runtime ('" +
                          util::to_utf8(found[0].first) + "', '" + util::to_utf8(found[1].first) + "')",
                      "name the one folder to use");
  }
  TreeLayout layout;
  const fs::path relative = found[0].first.lexically_relative(root);
  layout.library_dir = relative == "." ? std::string() : util::generic_utf8(relative);
  layout.main_library = (layout.library_dir.empty() ? "" : layout.library_dir + "/") + found[0].second;
  // cudart64_110.dll: 11; libcudart.so.13: 13.
  const std::string& name = found[0].second;
  const std::size_t digits = os == Os::windows ? name.find('_') + 1 : name.find(".so.") + 4;
  layout.major = std::atoi(name.substr(digits, os == Os::windows ? 2 : std::string::npos).c_str());
  return layout;
}

std::vector<UnmetNeed> unmet_runtime_needs(const fs::path& library_dir, Os os) {
  std::map<std::string, fs::path> files;
  for (const auto& name : runtime_library_files(library_dir, os))
    files[name] = library_dir / util::path_from_utf8(name);
  return unmet_runtime_needs(files, os);
}

std::vector<UnmetNeed> unmet_runtime_needs(const std::map<std::string, fs::path>& files, Os os) {
  auto key = [os](std::string_view name) { return os == Os::windows ? util::to_lower(name) : std::string(name); };
  std::set<std::string> held;
  for (const auto& [name, path] : files) held.insert(key(name));
  std::map<std::string, std::set<std::string>> unmet;
  for (const auto& [name, path] : files) {
    const auto info = read_link_info(path);
    if (!info) continue;
    for (const auto& needed : info->needed) {
      if (is_runtime_library_name(needed, os) && !held.contains(key(needed))) unmet[needed].insert(name);
    }
  }
  std::vector<UnmetNeed> list;
  for (auto& [name, by] : unmet) list.push_back({name, std::vector<std::string>(by.begin(), by.end())});
  return list;
}

std::string describe_unmet(const std::vector<UnmetNeed>& unmet) {
  std::vector<std::string> parts;
  for (const auto& need : unmet) {
    parts.push_back(util::printable(need.name) + " (needed by " + util::printable(util::join(need.needed_by, ", ")) +
                    ")");
  }
  return util::join(parts, ", ");
}

std::string unmet_loads_unchecked(const std::vector<UnmetNeed>& unmet, Os os) {
  const bool one = unmet.size() == 1;
  if (os == Os::windows) {
    return std::string("the loader then takes ") + (one ? "it" : "them") +
           " from wherever it finds a copy, a mixed runtime, or fails";
  }
  return std::string("the fence then fails ") + (one ? "its load" : "their loads");
}

namespace {

// The release `install cuda` and the heal match: "13.0" where the minor is known, else "13" (known by name).
std::string heal_release(const TreeRecord& tree) {
  return tree.version_from != "name" ? std::to_string(tree.version.major) + "." + std::to_string(tree.version.minor)
                                     : std::to_string(tree.version.major);
}

}  // namespace

bool has_heal_donor(const TreeRecord& tree, const std::vector<UnmetNeed>& unmet,
                    const std::vector<TreeRecord>& runtimes) {
  for (const auto& candidate : runtimes) {
    if (candidate.name == tree.name || candidate.platform.os != tree.platform.os ||
        candidate.version.major != tree.version.major ||
        (tree.version_from != "name" && candidate.version.minor != tree.version.minor)) {
      continue;
    }
    const fs::path folder = candidate.resolve(candidate.layout.library_dir);
    if (std::ranges::all_of(unmet, [&](const UnmetNeed& need) {
          std::error_code ec;
          return fs::is_regular_file(folder / util::path_from_utf8(need.name), ec);
        })) {
      return true;
    }
  }
  return false;
}

std::string runtime_heal_command(const TreeRecord& tree, bool donor) {
  const std::string name = util::command_word(tree.name);
  if (tree.source.kind == "adopted") {
    return (donor ? std::string() : "cudnnenv install cuda " + heal_release(tree) + " && ") + "cudnnenv remove " +
           name + " --yes && cudnnenv adopt --heal " + util::command_word(tree.source.path) + " --name " + name;
  }
  return "cudnnenv remove " + name + " --yes && cudnnenv install cuda " + tree.version.str();
}

std::string runtime_heal_hint(const TreeRecord& tree, bool donor) {
  if (tree.source.kind == "adopted") {
    return std::string(donor ? "make it whole from the complete CUDA " : "install a complete CUDA ") +
           heal_release(tree) + " runtime" + (donor ? " in the store" : " and make it whole from that") + ": " +
           runtime_heal_command(tree, donor);
  }
  return "install it again: " + runtime_heal_command(tree, donor);
}

std::string default_runtime_name(const Version& release, bool major_only) {
  return "cuda-" + (major_only ? std::to_string(release.major) : release.str());
}

bool runtime_matches(const TreeRecord& tree, const CudaVersion& asked) {
  if (tree.kind != TreeKind::cuda || tree.version.major != asked.major) return false;
  if (!asked.minor || !tree.cuda || !tree.cuda->minor) return true;
  return tree.version.minor == *asked.minor;
}

bool is_cuda_release(std::string_view text) {
  const auto version = parse_version(text);
  return version && !version->build && std::count(text.begin(), text.end(), '.') == 2;
}

std::optional<TreeRecord> find_runtime(const std::vector<TreeRecord>& runtimes, std::string_view text) {
  for (const auto& tree : runtimes) {
    if (tree.name == text) return tree;
  }
  if (is_cuda_release(text)) {
    const Version release = *parse_version(text);
    for (const auto& tree : runtimes) {
      if (tree.version.same_release(release)) return tree;
    }
    return std::nullopt;
  }
  const auto asked = parse_cuda_version(text);
  return asked ? choose_runtime(runtimes, asked, std::nullopt) : std::nullopt;
}

std::optional<TreeRecord> choose_runtime(const std::vector<TreeRecord>& runtimes,
                                         const std::optional<CudaVersion>& asked, std::optional<int> major) {
  const TreeRecord* best = nullptr;
  for (const auto& tree : runtimes) {
    const bool fits = asked ? runtime_matches(tree, *asked) : (major && tree.version.major == *major);
    if (fits && (!best || tree.version > best->version)) best = &tree;
  }
  return best ? std::optional(*best) : std::nullopt;
}

namespace {

std::optional<Version> release_in_cudart_name(std::string_view file_name, int major) {
  if (!util::starts_with(file_name, "libcudart.so.")) return std::nullopt;
  const auto full = parse_version(file_name.substr(13));
  if (!full || full->major != major) return std::nullopt;
  return Version{full->major, full->minor, 0, std::nullopt};
}

TreeRecord runtime_record(std::string name, const TreeLayout& layout, const Version& release, bool minor_known,
                          const Platform& platform) {
  TreeRecord record;
  record.kind = TreeKind::cuda;
  record.name = std::move(name);
  record.version = release;
  record.cuda = CudaVersion{release.major, minor_known ? std::optional(release.minor) : std::nullopt};
  record.platform = platform;
  record.layout = layout;
  record.installed_at = utc_timestamp();
  return record;
}

Result<void> check_installed_runtime(const fs::path& content, const TreeLayout& layout,
                                     const ComponentInstallOptions& options) {
  if (layout.major != options.release.major) {
    return make_error("the runtime of CUDA " + options.release.str() + " holds '" + layout.main_library + "', a CUDA " +
                          std::to_string(layout.major) + " library",
                      "the manifest is not one release's: use NVIDIA's redistrib_<release>.json");
  }
  std::vector<std::string> absent;
  const auto shipped = runtime_library_files(content / util::path_from_utf8(layout.library_dir), options.platform.os);
  for (const auto& needed : options.required_libraries) {
    const bool found = std::any_of(shipped.begin(), shipped.end(), [&](const std::string& file) {
      return options.platform.os == Os::windows ? util::to_lower(file) == util::to_lower(needed) : file == needed;
    });
    if (!found) absent.push_back(needed);
  }
  if (!absent.empty()) {
    return make_error(
        "the CUDA " + options.release.str() + " runtime has no " + util::quote_some(absent, 8) + ", which " +
            (options.required_by.empty() ? std::string("the profile") : options.required_by) +
            " opens; nothing was installed",
        options.required_hint.empty() ? "install the CUDA release it was built with" : options.required_hint,
        ExitCode::not_found);
  }
  return {};
}

// The runtime's pairing rule: the newest runtime of the tree's CUDA major (none while that is unknown).
std::optional<TreeRecord> runtime_paired_with(const TreeRecord& cudnn, const std::vector<TreeRecord>& runtimes) {
  return cudnn.cuda ? choose_runtime(runtimes, std::nullopt, cudnn.cuda->major) : std::nullopt;
}

}  // namespace

// The CUDA runtime's row of the component table (store/component.hpp): its
// library names, and what the store needs to make its trees: the functions
// above, the release libcudart's full name says (libcudart.so.13.0.96: 13.0),
// the record, the check of an installed release (its libcudart of the
// release's major; the libraries a profile needs all there), and its pairing
// rule.
bool is_cuda_library(std::string_view file_name, Os os) {
  return is_runtime_library_name(file_name, os);
}

const ComponentTrees* trees_of_cuda() {
  static const ComponentTrees trees{&default_runtime_name,
                                    &runtime_entries,
                                    &locate_runtime_layout,
                                    &runtime_library_files,
                                    &runtime_library_folders,
                                    &release_in_cudart_name,
                                    &runtime_record,
                                    &check_installed_runtime,
                                    &runtime_paired_with,
                                    nullptr,
                                    nullptr};
  return &trees;
}

}  // namespace cudnnenv
