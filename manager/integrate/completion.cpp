#include "integrate/completion.hpp"

#include <map>
#include <set>

#include "pin/launch.hpp"
#include "pin/shims.hpp"
#include "select/profile.hpp"
#include "select/resolve.hpp"
#include "store/component.hpp"
#include "store/official.hpp"
#include "store/runtime.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace {

std::string cuda_text(const TreeRecord& tree) {
  return tree.cuda ? ", CUDA " + tree.cuda->str() : "";
}

std::string major_minor(const Version& version) {
  return std::to_string(version.major) + "." + std::to_string(version.minor);
}

// The installed cuDNN trees (newest first), then their versions ("9.1", then "9.1.0"), oldest first.
Candidates tree_candidates(const std::vector<TreeRecord>& trees) {
  Candidates names;
  std::map<Version, std::vector<std::string>> by_version;
  for (const auto& tree : trees) {
    names.push_back({tree.name, "cuDNN " + tree.version.str() + cuda_text(tree)});
    by_version[tree.version].push_back(tree.name);
  }
  std::set<std::string> shown;
  for (const auto& [version, named] : by_version) {
    const std::string trees_text = "installed: " + util::join(named, ", ");
    if (shown.insert(major_minor(version)).second) names.push_back({major_minor(version), trees_text});
    names.push_back({version.str(), trees_text});
  }
  return names;
}

// This platform's profiles: first those an installed tree runs (and which), then the rest.
Candidates profile_candidates(const Store& store, const std::vector<TreeRecord>& trees) {
  Candidates runs;
  Candidates rest;
  if (auto profiles = all_profiles(host_platform().os, config_files(store))) {
    for (const auto& profile : *profiles) {
      const std::string needs = profile.framework + ", cuDNN " + profile.cudnn + ", CUDA " + profile.cuda;
      if (const auto fit = satisfying_tree(profile, trees)) {
        runs.push_back({profile.name, needs + ": runs on '" + fit->tree.name + "'"});
      } else {
        rest.push_back({profile.name, needs + ": no installed tree"});
      }
    }
  }
  runs.insert(runs.end(), rest.begin(), rest.end());
  return runs;
}

}  // namespace

// What a spec can be here: installed trees' names and versions, this platform's profiles.
Candidates spec_candidates(const Store& store) {
  const auto trees = store.list(RecordPart::identity).trees;
  auto names = tree_candidates(trees);
  const auto profiles = profile_candidates(store, trees);
  names.insert(names.end(), profiles.begin(), profiles.end());
  return names;
}

// The trees of a row beside cuDNN (--nccl, --tensorrt): their names, then their releases.
Candidates component_candidates(TreeKind kind, const Store& store) {
  Candidates names;
  Candidates releases;
  std::set<std::string> shown;
  for (const auto& tree : store.list(RecordPart::identity).of(kind)) {
    names.push_back({tree.name, std::string(component(kind).noun) + " " + tree.version.str()});
    for (const auto& release : {major_minor(tree.version), tree.version.str()}) {
      if (shown.insert(release).second) releases.push_back({release, "installed: " + tree.name});
    }
  }
  names.insert(names.end(), releases.begin(), releases.end());
  return names;
}

// What `remove` takes: cuDNN trees and their versions, then every other row's trees.
Candidates removable_candidates(const Store& store) {
  const auto listing = store.list(RecordPart::identity);
  auto names = tree_candidates(listing.trees);
  for (const ComponentRow& row : components()) {
    if (row.kind == TreeKind::cudnn) continue;
    for (const auto& tree : listing.of(row.kind)) {
      names.push_back({tree.name, std::string(row.noun) + " " + tree.version.str()});
    }
  }
  return names;
}

// The versions of the official list for this platform, oldest first: "9.1"
// (the newest 9.1.x is what `install 9.1` fetches), then each release.
Candidates official_version_candidates() {
  std::map<Version, std::set<std::string>> variants;
  for (const OfficialArchive* archive : available_archives(host_platform(), nullptr, std::nullopt)) {
    if (auto version = parse_version(archive->version)) {
      variants[*version].insert(std::string(archive->cuda_variant));
    }
  }
  Candidates names;
  std::map<std::string, Version> newest;
  for (const auto& [version, cudas] : variants) newest[major_minor(version)] = version;
  std::set<std::string> shown;
  for (const auto& [version, cudas] : variants) {
    const std::string series = major_minor(version);
    if (shown.insert(series).second) names.push_back({series, "the newest " + series + ": " + newest[series].str()});
    names.push_back({version.str(), "for " + util::join(std::vector<std::string>(cudas.begin(), cudas.end()), ", ")});
  }
  return names;
}

// The CUDA versions archives are built for (official list, installed trees), oldest first.
Candidates cuda_candidates(const Store& store) {
  std::map<std::pair<int, int>, std::pair<std::string, std::set<std::string>>> found;  // (major, minor or -1)
  const auto add = [&](const CudaVersion& cuda, const std::string& tree) {
    auto& [text, trees] = found[{cuda.major, cuda.minor.value_or(-1)}];
    text = cuda.str();
    if (!tree.empty()) trees.insert(tree);
  };
  for (const OfficialArchive* archive : available_archives(host_platform(), nullptr, std::nullopt)) {
    if (util::starts_with(archive->cuda_variant, "cuda")) {
      if (auto cuda = parse_cuda_version(archive->cuda_variant.substr(4))) add(*cuda, "");
    }
  }
  for (const auto& tree : store.list(RecordPart::identity).trees) {
    if (tree.cuda_variant) add(*tree.cuda_variant, tree.name);
    if (tree.cuda) add(*tree.cuda, tree.name);
  }
  Candidates names;
  for (const auto& [key, value] : found) {
    const auto& [text, trees] = value;
    names.push_back(
        {text, trees.empty() ? "official archives"
                             : "installed: " + util::join(std::vector<std::string>(trees.begin(), trees.end()), ", ")});
  }
  return names;
}

// The CUDA releases `install cuda` and `mirror create --runtime` fetch (pinned manifests).
Candidates cuda_release_candidates() {
  Candidates names;
  for (const auto& manifest : pinned_manifests()) {
    names.push_back({manifest.release, "CUDA runtime, " + manifest_file_name(manifest.release)});
  }
  return names;
}

Candidates profile_name_candidates(const Store& store) {
  return profile_candidates(store, store.list(RecordPart::identity).trees);
}

Candidates program_candidates(const std::string& prefix, const util::Environment& environment) {
  Candidates names;
  for (const auto& program : programs_on_path(prefix, environment, {})) {
    names.push_back({program.name, util::to_utf8(program.path)});
  }
  return names;
}

Candidates shim_candidates(const Store& store) {
  Candidates names;
  for (const auto& shim : list_shims(shim_paths(store))) {
    names.push_back(
        {shim.name, shim.target.empty() ? "starts the first '" + shim.name + "' on PATH" : "starts " + shim.target});
  }
  return names;
}

}  // namespace cudnnenv
