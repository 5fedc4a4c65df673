#include "store/spec.hpp"

#include <algorithm>
#include <set>

#include "formats/platform.hpp"
#include "store/official.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace {

std::string describe_tree(const TreeRecord& tree) {
  return tree.version.str() + (tree.cuda ? " (CUDA " + tree.cuda->str() + ")" : std::string());
}

// An official archive for this platform that fits, to name in the hint.
std::string official_suggestion(const Spec& spec) {
  const Platform host = host_platform();
  const std::string platform = to_string(host.os) + "-" + to_string(host.arch);
  const OfficialArchive* best = nullptr;
  std::optional<Version> best_version;
  std::optional<CudaVersion> best_cuda;
  for (const auto& archive : official_archives()) {
    if (archive.platform != platform) {
      continue;
    }
    const auto version = parse_version(archive.version);
    if (!version) {
      continue;
    }
    TreeRecord probe;
    probe.version = *version;
    if (auto cuda = parse_cuda_version(util::starts_with(archive.cuda_variant, "cuda") ? archive.cuda_variant.substr(4)
                                                                                       : archive.cuda_variant)) {
      probe.cuda = cuda;
    }
    // The newest release that fits, and of its builds the one for the newest CUDA.
    const bool newer = !best_version || *version > *best_version ||
                       (*version == *best_version && probe.cuda && best_cuda && probe.cuda->major > best_cuda->major);
    if (fits(spec, probe) && newer) {
      best = &archive;
      best_version = version;
      best_cuda = probe.cuda;
    }
  }
  return best ? "'cudnnenv install " + spec.text + "' fetches " + std::string(best->file_name) + " from NVIDIA"
              : "'cudnnenv install <version>' fetches one from NVIDIA ('cudnnenv list --available')";
}

}  // namespace

Result<Spec> parse_spec(std::string_view text, std::optional<std::string_view> cuda) {
  Spec spec;
  spec.text = std::string(text);
  if (text.empty()) {
    return make_error("an empty version spec", "give a version such as 8.1 or 9.1.0, or a tree name", ExitCode::usage);
  }
  std::string_view version_part = text;
  if (const auto plus = text.find("+cuda"); plus != std::string_view::npos) {
    version_part = text.substr(0, plus);
    spec.cuda = parse_cuda_version(text.substr(plus + 5));
    if (!spec.cuda) {
      return make_error("'" + std::string(text) + "' has a CUDA qualifier that is not a version",
                        "write it as 8.9.7+cuda11.8 or 9.1+cuda12", ExitCode::usage);
    }
  }
  const auto parts = util::split(version_part, '.');
  bool numeric = !parts.empty() && parts.size() <= 4;
  for (const auto& part : parts) {
    numeric = numeric && !part.empty() && part.find_first_not_of("0123456789") == std::string::npos && part.size() < 9;
  }
  if (numeric) {
    for (const auto& part : parts) {
      spec.components.push_back(std::stoi(part));
    }
  } else if (spec.cuda) {
    return make_error("'" + std::string(text) + "' is not a version", "write it as 8.9.7+cuda11.8", ExitCode::usage);
  }
  if (cuda && !cuda->empty()) {
    const auto flag = parse_cuda_version(*cuda);
    if (!flag) {
      return make_error("'" + std::string(*cuda) + "' is not a CUDA version", "write it as 11.8 or 12",
                        ExitCode::usage);
    }
    if (spec.cuda && !(*spec.cuda == *flag)) {
      return make_error("'" + std::string(text) + "' asks for CUDA " + spec.cuda->str() + " but CUDA " + flag->str() +
                            " was given too",
                        "give the CUDA version once", ExitCode::usage);
    }
    spec.cuda = flag;
  }
  return spec;
}

bool fits(const Spec& spec, const TreeRecord& tree) {
  if (spec.components.empty()) {
    return false;
  }
  const int version[4] = {tree.version.major, tree.version.minor, tree.version.patch, tree.version.build.value_or(-1)};
  for (std::size_t i = 0; i < spec.components.size(); ++i) {
    if (spec.components[i] != version[i]) {
      return false;
    }
  }
  if (spec.cuda) {
    if (!tree.cuda || tree.cuda->major != spec.cuda->major) {
      return false;
    }
    // "cuda11" in an archive name fits any 11.x request, and "+cuda11" any 11.x tree.
    if (spec.cuda->minor && tree.cuda->minor && *spec.cuda->minor != *tree.cuda->minor) {
      return false;
    }
  }
  return true;
}

Result<TreeRecord> select_tree(const std::vector<TreeRecord>& trees, const Spec& spec, Match match) {
  for (const auto& tree : trees) {
    if (tree.name == spec.text) {
      return tree;
    }
  }
  std::vector<const TreeRecord*> fitting;
  for (const auto& tree : trees) {
    if (fits(spec, tree)) {
      fitting.push_back(&tree);
    }
  }
  if (fitting.empty()) {
    std::string hint;
    std::size_t best = spec.text.size() / 3 + 1;
    for (const auto& tree : trees) {
      if (const auto distance = util::edit_distance(spec.text, tree.name); distance <= best) {
        best = distance;
        hint = "did you mean '" + tree.name + "'?";
      }
    }
    if (hint.empty()) {
      std::string installed;
      for (const auto& tree : trees) {
        installed += (installed.empty() ? "" : ", ") + describe_tree(tree);
      }
      hint = (installed.empty() ? std::string("the store is empty") : "installed: " + installed) + "; " +
             official_suggestion(spec);
    }
    return make_error("no installed cuDNN matches '" + spec.text + "'", hint, ExitCode::not_found);
  }
  // The newest version that fits; among equals, the first by name. A CUDA
  // major is part of the ABI: fitting trees built for two of them is an error.
  std::stable_sort(fitting.begin(), fitting.end(),
                   [](const TreeRecord* a, const TreeRecord* b) { return a->version > b->version; });
  std::set<int> cuda_majors;
  std::vector<std::string> names;
  for (const auto* tree : fitting) {
    if (tree->cuda && cuda_majors.insert(tree->cuda->major).second) {
      names.push_back("'" + tree->name + "' (CUDA " + tree->cuda->str() + ")");
    }
  }
  if (cuda_majors.size() > 1) {
    std::string listed;
    for (const auto& name : names) {
      listed += (listed.empty() ? "" : " and ") + name;
    }
    return make_error(
        "'" + spec.text + "' fits trees for " + std::to_string(cuda_majors.size()) + " CUDA versions: " + listed,
        "say which: '" + spec.text + "+cuda" + std::to_string(*cuda_majors.rbegin()) + "' (or --cuda " +
            std::to_string(*cuda_majors.rbegin()) + ")",
        ExitCode::usage);
  }
  if (match == Match::strict && fitting.size() > 1) {
    std::string listed;
    for (const auto* tree : fitting) {
      listed += (listed.empty() ? "'" : ", '") + tree->name + "'";
    }
    return make_error("'" + spec.text + "' matches " + std::to_string(fitting.size()) + " trees: " + listed,
                      "name the tree exactly", ExitCode::usage);
  }
  return *fitting.front();
}

}  // namespace cudnnenv
