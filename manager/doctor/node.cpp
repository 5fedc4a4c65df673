#include "doctor/node.hpp"

#include <algorithm>

#include "doctor/doctor.hpp"
#include "doctor/snapshot.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace {

// A string of the snapshot as printable text (at most `limit` bytes); empty when absent or not a string.
std::string text_at(const Json& object, const char* key, std::size_t limit = 200) {
  if (!object.is_object()) return {};
  const auto found = object.find(key);
  if (found == object.end() || !found->is_string()) return {};
  return util::printable(found->get<std::string>().substr(0, limit));
}

}  // namespace

std::string NodeFacts::describe() const {
  std::string text = "the node of '" + origin + "' (" + cudnnenv::describe(platform);
  if (!driver.found()) {
    text += ", no driver";
  } else {
    text += ", driver " + (driver.version.empty() ? std::string("?") : driver.version);
    if (driver.cuda) text += " running CUDA " + driver.cuda->str();
  }
  for (const auto& gpu : driver.gpus) text += ", " + gpu.name + " " + gpu.compute_capability();
  return text + ")";
}

Result<NodeFacts> read_node_facts(std::string_view snapshot, const std::string& origin) {
  const auto refused = [&](const std::string& why) {
    return make_error("'" + origin + "' is not a snapshot cudnnenv can plan for: " + why,
                      "take one on the node: cudnnenv snapshot -o node.json", ExitCode::usage);
  };
  if (!is_snapshot(snapshot)) return refused("not a snapshot (cudnnenv snapshot -o writes one)");
  const Json json = parse_json(snapshot);
  NodeFacts node;
  node.origin = origin;
  node.taken_at = text_at(json, "taken_at", 40);
  const Json& host = json.contains("host") ? json["host"] : Json();
  const auto os = parse_os(text_at(host, "os"));
  const auto arch = parse_arch(text_at(host, "arch"));
  if (!os || !arch) return refused("its host.os and host.arch are not a platform cudnnenv knows");
  node.platform = Platform{*os, *arch};
  const Json& driver = json.contains("driver") ? json["driver"] : Json();
  node.driver.version = text_at(driver, "version", 40);
  node.driver.version_from = "the snapshot";
  node.driver.cuda = parse_cuda_version(text_at(driver, "cuda", 20));
  node.driver.error = text_at(driver, "error");
  if (json.contains("gpus") && json["gpus"].is_array()) {
    for (const auto& entry : json["gpus"]) {
      GpuInfo gpu;
      gpu.name = text_at(entry, "name", 100);
      const auto cc = util::split(text_at(entry, "compute_capability", 10), '.');
      if (cc.size() != 2 || cc[0].empty() || cc[1].empty() || cc[0].size() > 3 || cc[1].size() > 3 ||
          !std::all_of(cc[0].begin(), cc[0].end(), ::isdigit) || !std::all_of(cc[1].begin(), cc[1].end(), ::isdigit)) {
        return refused("a GPU's compute_capability is not MAJOR.MINOR");
      }
      gpu.cc_major = std::stoi(cc[0]);
      gpu.cc_minor = std::stoi(cc[1]);
      if (entry.contains("index") && entry["index"].is_number_integer()) gpu.index = entry["index"].get<int>();
      node.driver.gpus.push_back(std::move(gpu));
    }
  }
  if (json.contains("toolkits") && json["toolkits"].is_array()) {
    for (const auto& entry : json["toolkits"]) {
      ToolkitInfo toolkit;
      toolkit.root = util::path_from_utf8(text_at(entry, "root", 1000));
      toolkit.version_text = text_at(entry, "version", 40);
      toolkit.version = parse_cuda_version(toolkit.version_text);
      toolkit.via = text_at(entry, "via", 100);
      node.toolkits.push_back(std::move(toolkit));
    }
  }
  return node;
}

Result<NodeFacts> read_node_facts_file(const std::string& file) {
  CUDNNENV_TRY_ASSIGN(text, util::read_file(util::path_from_utf8(file), 64 * 1024 * 1024));
  return read_node_facts(*text, file);
}

void apply_node_facts(Facts& facts, const NodeFacts& node) {
  facts.node = node.describe();
  facts.node_file = node.origin;
  facts.platform = node.platform;
  facts.driver = node.driver;
  facts.toolkits = node.toolkits;
}

std::string fails_on_node(const TreeRecord& tree, const NodeFacts& node, bool check_platform) {
  if (check_platform && tree.platform != node.platform) {
    return "built for " + describe(tree.platform) + ", and the node is " + describe(node.platform);
  }
  const std::optional<CudaVersion> cuda = tree.cuda_variant ? tree.cuda_variant : tree.cuda;
  const DriverInfo& driver = node.driver;
  if (cuda && driver.found()) {
    if (driver_below_major(driver, *cuda, node.platform.os)) {
      const DriverMinimum minimum = minimum_driver(*cuda, node.platform.os);
      return "its driver " + (driver.version.empty() ? std::string("?") : driver.version) +
             (driver.cuda ? " runs CUDA " + driver.cuda->str() : std::string()) + ", and CUDA " +
             std::to_string(cuda->major) + " needs " +
             (minimum.major.empty() ? std::string("a newer driver") : minimum.major + " or newer");
    }
  }
  for (const auto& gpu : driver.gpus) {
    // "Probably not supported" counts: a plan for a node takes what surely runs there.
    if (auto found = gpu_check_for(gpu, tree)) return found->summary;
  }
  return {};
}

Result<NodeChoice> choose_archive_for_node(const Spec& spec, const std::optional<CudaVersion>& cuda,
                                           const NodeFacts& node) {
  const std::string platform_name = official_platform(node.platform);
  if (platform_name.empty()) {
    return make_error("NVIDIA ships no cuDNN archive for " + describe(node.platform) + " (" + node.describe() + ")",
                      "install a wheel or a folder you have: cudnnenv install <path>", ExitCode::not_found);
  }
  const auto archives = available_archives(node.platform, &spec, cuda);
  if (archives.empty()) {
    return make_error("no official cuDNN archive for " + platform_name + " matches '" + spec.text + "'" +
                          (cuda ? " with CUDA " + cuda->str() : std::string()),
                      "'cudnnenv list --available' shows what there is", ExitCode::not_found);
  }
  const std::optional<int> toolkit_major = !node.toolkits.empty() && node.toolkits.front().version
                                               ? std::optional<int>(node.toolkits.front().version->major)
                                               : std::nullopt;
  NodeChoice choice;
  // Each release, newest first: its variants that run there, the toolkit's CUDA major first, then the newest CUDA.
  for (std::size_t i = 0; i < archives.size();) {
    std::size_t end = i;
    while (end < archives.size() && archives[end]->version == archives[i]->version) ++end;
    std::vector<const OfficialArchive*> runs;
    for (std::size_t j = i; j < end; ++j) {
      const std::string why = fails_on_node(as_record(*archives[j]), node, false);
      if (why.empty()) {
        runs.push_back(archives[j]);
      } else {
        choice.passed.push_back(std::string(archives[j]->file_name) + " would fail there: " + why);
      }
    }
    if (!runs.empty()) {
      std::stable_sort(runs.begin(), runs.end(), [&](const OfficialArchive* a, const OfficialArchive* b) {
        const auto ca = as_record(*a).cuda;
        const auto cb = as_record(*b).cuda;
        const bool ta = toolkit_major && ca && ca->major == *toolkit_major;
        const bool tb = toolkit_major && cb && cb->major == *toolkit_major;
        if (ta != tb) return ta;
        return (ca ? ca->major * 100 + ca->minor.value_or(0) : 0) > (cb ? cb->major * 100 + cb->minor.value_or(0) : 0);
      });
      choice.archive = runs.front();
      return choice;
    }
    i = end;
  }
  std::string why = choice.passed.empty() ? std::string() : ": " + choice.passed.front();
  return make_error("no official cuDNN archive matching '" + spec.text + "' runs on " + node.describe() + why,
                    "'cudnnenv list --available' shows what there is; an older release may still run there",
                    ExitCode::not_found);
}

}  // namespace cudnnenv
