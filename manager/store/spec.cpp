#include "store/spec.hpp"

#include <algorithm>
#include <regex>
#include <set>
#include <utility>

#include "formats/platform.hpp"
#include "store/official.hpp"
#include "store/store.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace {

std::string describe_tree(const TreeRecord& tree) {
  return tree.version.str() + (tree.cuda ? " (CUDA " + tree.cuda->str() + ")" : std::string());
}

// For a request with a CUDA part: each tree with what it serves.
std::string describe_tree_serving(const TreeRecord& tree) {
  return "'" + tree.name + "' (" + tree.version.str() + ", " + describe_served_cuda(tree) + ")";
}

struct OfficialCommand {
  std::string command;    // "cudnnenv install 9.19 --cuda 13"
  std::string file_name;  // of the archive it fetches
};

// The official archive for this platform that fits, and the install command that fetches it.
std::optional<OfficialCommand> official_command(const Spec& spec) {
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
                       (*version == *best_version && probe.cuda && best_cuda &&
                        std::pair(probe.cuda->major, probe.cuda->minor.value_or(0)) >
                            std::pair(best_cuda->major, best_cuda->minor.value_or(0)));
    if (fits(spec, probe) && newer) {
      best = &archive;
      best_version = version;
      best_cuda = probe.cuda;
    }
  }
  if (!best) return std::nullopt;
  // With its CUDA named, the command fetches this very archive: without it,
  // install asks which CUDA when the release comes for several, or lets the
  // toolkit found here pick another.
  std::string command = "cudnnenv install " + spec.text;
  if (best_cuda && spec.text.find("+cuda") == std::string::npos) command += " --cuda " + best_cuda->str();
  return OfficialCommand{command, std::string(best->file_name)};
}

// An official archive for this platform that fits, to name in the hint.
std::string official_suggestion(const Spec& spec) {
  const auto official = official_command(spec);
  if (!official) return install_suggestion() + " ('cudnnenv list --available' lists the others)";
  return "'" + official->command + "' fetches " + official->file_name + " from NVIDIA";
}

}  // namespace

std::string install_suggestion(const std::optional<int>& cuda_major) {
  const Platform host = host_platform();
  const std::string platform = to_string(host.os) + "-" + to_string(host.arch);
  std::optional<Version> newest;
  for (const auto& archive : official_archives()) {
    const auto version = parse_version(archive.version);
    if (archive.platform != platform || !version || (newest && *version <= *newest)) continue;
    const auto cuda = parse_cuda_version(
        util::starts_with(archive.cuda_variant, "cuda") ? archive.cuda_variant.substr(4) : archive.cuda_variant);
    if (cuda_major && (!cuda || cuda->major != *cuda_major)) continue;
    newest = version;
  }
  if (!newest) return "'cudnnenv list --available' lists the releases there are";
  auto spec = parse_spec(std::to_string(newest->major) + "." + std::to_string(newest->minor),
                         cuda_major ? std::optional<std::string_view>(std::to_string(*cuda_major)) : std::nullopt);
  return spec ? official_suggestion(*spec) : "'cudnnenv list --available' lists the releases there are";
}

std::string release_suggestion(const Version& release) {
  auto spec = parse_spec(Version{release.major, release.minor, release.patch, {}}.str());
  return spec ? official_suggestion(*spec) : install_suggestion();
}

std::optional<std::string> release_install_command(const Version& release, std::optional<int> cuda_major) {
  const std::string cuda = cuda_major ? std::to_string(*cuda_major) : std::string();
  auto spec = parse_spec(Version{release.major, release.minor, release.patch, {}}.str(),
                         cuda_major ? std::optional<std::string_view>(cuda) : std::nullopt);
  if (!spec) return std::nullopt;
  const auto official = official_command(*spec);
  if (!official) return std::nullopt;
  return official->command;
}

std::optional<std::string> version_without_prefix(std::string_view text) {
  static const std::regex prefixed(R"(^(?:v|cudnn[-_ ]?)([0-9]+(?:\.[0-9]+){0,3}(?:\+cuda[0-9.]+)?)$)",
                                   std::regex::icase);
  std::match_results<std::string_view::const_iterator> match;
  if (!std::regex_match(text.begin(), text.end(), match, prefixed)) return std::nullopt;
  return match[1].str();
}

Result<Spec> parse_spec(std::string_view text, std::optional<std::string_view> cuda) {
  Spec spec;
  spec.text = std::string(text);
  if (text.empty()) {
    return make_error("an empty version spec", "give a version such as 8.1 or 9.1.0, or a tree name", ExitCode::usage);
  }
  std::string_view version_part = text;
  if (const auto plus = text.find("+cuda"); plus != std::string_view::npos) {
    version_part = text.substr(0, plus);
    // A full release (13.0.2) as `--cuda` takes one: the major and minor it names.
    std::string_view qualifier = text.substr(plus + 5);
    if (std::count(qualifier.begin(), qualifier.end(), '.') == 2) {
      const auto last = qualifier.rfind('.');
      const std::string_view patch = qualifier.substr(last + 1);
      if (!patch.empty() && patch.find_first_not_of("0123456789") == std::string_view::npos) {
        qualifier = qualifier.substr(0, last);
      }
    }
    spec.cuda = parse_cuda_version(qualifier);
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
    const auto bare = version_without_prefix(text);
    return make_error("'" + std::string(text) + "' is not a version",
                      bare ? "write the version alone: " + *bare : std::string("write it as 8.9.7+cuda11.8"),
                      ExitCode::usage);
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
  // What the tree serves, not the minor it was built with: a cuda13 tree
  // built with 13.1 fits --cuda 13.0, and "+cuda11" any 11.x tree.
  return !spec.cuda || serves_cuda(tree, *spec.cuda);
}

Result<TreeRecord> select_tree(const std::vector<TreeRecord>& trees, const Spec& spec, Match match) {
  for (const auto& tree : trees) {
    if (tree.name == spec.text) {
      return tree;
    }
  }
  // A name from before the short names (the archive's stem), when no tree has it as its own.
  for (const auto& tree : trees) {
    for (const auto& former : former_names(tree)) {
      if (former == spec.text) return tree;
    }
  }
  std::vector<const TreeRecord*> fitting;
  for (const auto& tree : trees) {
    if (fits(spec, tree)) {
      fitting.push_back(&tree);
    }
  }
  if (fitting.empty()) {
    if (const auto bare = version_without_prefix(spec.text)) {
      return make_error("no installed cuDNN matches '" + spec.text + "'", "write the version alone: " + *bare,
                        ExitCode::not_found);
    }
    std::string hint;
    std::size_t best = spec.text.size() / 3 + 1;
    for (const auto& tree : trees) {
      std::vector<std::string> names = former_names(tree);
      names.push_back(tree.name);
      for (const auto& name : names) {
        if (const auto distance = util::edit_distance(spec.text, name); distance <= best) {
          best = distance;
          hint = "did you mean '" + tree.name + "'?";
        }
      }
    }
    if (hint.empty() || spec.cuda) {
      std::string installed;
      for (const auto& tree : trees) {
        installed += (installed.empty() ? "" : ", ") + (spec.cuda ? describe_tree_serving(tree) : describe_tree(tree));
      }
      hint = (installed.empty() ? std::string("the store is empty") : "installed: " + installed) + "; " +
             official_suggestion(spec);
    }
    const bool cuda_written = spec.text.find("+cuda") != std::string::npos;
    return make_error("no installed cuDNN matches '" + spec.text + "'" +
                          (spec.cuda && !cuda_written ? " for CUDA " + spec.cuda->str() : std::string()),
                      hint, ExitCode::not_found);
  }
  // The newest version that fits; among equals, the first by name. A CUDA
  // major is part of the ABI: fitting trees built for two of them is an error.
  // Of one version built for several minors of the asked major (8.0.5 for
  // CUDA 11.0 and 11.1), the newest variant that serves the request.
  const auto variant_minor = [](const TreeRecord* tree) {
    return tree->cuda_variant ? tree->cuda_variant->minor.value_or(-1) : -1;
  };
  std::stable_sort(fitting.begin(), fitting.end(), [&](const TreeRecord* a, const TreeRecord* b) {
    if (a->version != b->version) return a->version > b->version;
    return spec.cuda && variant_minor(a) > variant_minor(b);
  });
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
