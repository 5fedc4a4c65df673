#include "doctor/snapshot.hpp"

#include <cctype>
#include <map>
#include <set>

#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

bool interesting_variable(const std::string& name) {
  static const char* const exact[] = {"PATH",        "LD_LIBRARY_PATH", "LD_PRELOAD",
                                      "LD_AUDIT",    "CONDA_PREFIX",    "CONDA_DEFAULT_ENV",
                                      "VIRTUAL_ENV", "PYTHONPATH",      "PYTHONHOME"};
  // TensorFlow's own TF_ families only: TF_CLI_CONFIG_FILE, TF_VAR_*, TF_LOG are Terraform's.
  static const char* const prefixes[] = {"CUDA",       "CUDNN",     "NVIDIA_",          "PYTORCH_", "XLA_",
                                         "TF_CPP_",    "TF_GPU_",   "TF_CUDA",          "TF_CUDNN", "TF_XLA_",
                                         "TF_ENABLE_", "TF_FORCE_", "TF_DETERMINISTIC", "TF_USE_",  "TF_NUM_"};
  const std::string upper = [&] {
    std::string text = name;
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
  }();
  for (const char* item : exact) {
    if (upper == item) return true;
  }
  for (const char* item : prefixes) {
    if (util::starts_with(upper, item)) return true;
  }
  return false;
}

// "a.b[key].c" -> scalar text, in document order. Array elements that are
// objects are named by their identity (id, library, name, file, root,
// index), so a copy added to a list does not shift every later one. False
// past k_max_depth levels (a snapshot has four): a crafted file cannot
// exhaust the stack.
constexpr int k_max_depth = 16;

// `budget`: the bytes of keys and values still allowed out. A path is
// repeated in every line below it, so a crafted file of many nested list
// elements would otherwise expand to tens of GB (#28, item 7).
bool flatten(const Json& value, const std::string& path, std::vector<std::pair<std::string, std::string>>& out,
             std::size_t& budget, int depth = 0) {
  if (depth > k_max_depth) {
    return false;
  }
  const auto emit = [&](std::string key, std::string text) {
    const std::size_t cost = key.size() + text.size() + 16;
    if (cost > budget) return false;
    budget -= cost;
    out.emplace_back(std::move(key), std::move(text));
    return true;
  };
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      if (!flatten(item, path.empty() ? key : path + "." + key, out, budget, depth + 1)) return false;
    }
  } else if (value.is_array()) {
    std::size_t index = 0;
    for (const auto& item : value) {
      std::string name = std::to_string(index++);
      if (item.is_object()) {
        for (const char* key : {"id", "library", "name", "file", "root", "index"}) {
          if (item.contains(key)) {
            name = item[key].is_string() ? item[key].get<std::string>() : item[key].dump();
            break;
          }
        }
      } else if (item.is_string()) {
        name = item.get<std::string>();
      }
      if (path.size() + name.size() + 2 > budget) return false;
      if (!flatten(item, path + "[" + name + "]", out, budget, depth + 1)) return false;
    }
    if (value.empty()) return emit(path, "[]");
  } else {
    return emit(path, value.is_string() ? value.get<std::string>() : value.dump());
  }
  return true;
}

Result<std::vector<std::pair<std::string, std::string>>> snapshot_lines(std::string_view text,
                                                                        const std::string& name) {
  const auto refused = [&] {
    return make_error("'" + name + "' is not a cudnnenv snapshot",
                      "compare two files that 'cudnnenv snapshot -o FILE' wrote", ExitCode::usage);
  };
  if (!json_nesting_within(text, k_max_depth)) return refused();
  const Json json = parse_json(text);
  std::vector<std::pair<std::string, std::string>> lines;
  if (json.is_discarded() || !json.is_object() || !json.contains("format")) return refused();
  // What a real snapshot expands to is a few times its size.
  std::size_t budget = 8 * text.size() + (1 << 20);
  if (!flatten(json, "", lines, budget)) {
    return make_error("'" + name + "' expands to more than " + util::human_size(8 * text.size() + (1 << 20)) +
                          " of lines to compare: not a snapshot cudnnenv wrote",
                      "compare two files that 'cudnnenv snapshot -o FILE' wrote", ExitCode::usage);
  }
  return lines;
}

}  // namespace

Json doctor_check_json(const DoctorCheck& check) {
  Json json{{"id", check.id}, {"status", to_string(check.status)}, {"summary", check.summary}};
  json["details"] = check.details;
  json["symptom"] = or_null(check.symptom);
  json["cause"] = or_null(check.cause);
  json["fix"] = or_null(check.fix);
  return json;
}

Json snapshot_json(const Facts& facts, const std::vector<DoctorCheck>& checks, const std::string& cudnnenv_version) {
  Json driver{{"version", or_null(facts.driver.version)},
              {"version_from", or_null(facts.driver.version_from)},
              {"cuda", facts.driver.cuda ? Json(facts.driver.cuda->str()) : Json(nullptr)},
              {"error", or_null(facts.driver.error)}};
  Json gpus = Json::array();
  for (const auto& gpu : facts.driver.gpus) {
    gpus.push_back(Json{{"index", gpu.index}, {"name", gpu.name}, {"compute_capability", gpu.compute_capability()}});
  }
  Json toolkits = Json::array();
  for (const auto& toolkit : facts.toolkits) {
    toolkits.push_back(
        Json{{"root", util::to_utf8(toolkit.root)}, {"version", or_null(toolkit.version_text)}, {"via", toolkit.via}});
  }
  Json headers = Json::array();
  for (const auto& header : facts.headers) {
    headers.push_back(Json{{"file", util::to_utf8(header.file)},
                           {"version", header.version ? Json(header.version->str()) : Json(nullptr)},
                           {"via", header.via}});
  }
  Json copies = Json::array();
  for (const auto& copy : facts.copies) {
    std::error_code ec;
    const auto size = fs::file_size(copy.library, ec);
    auto hash = util::sha256_file(copy.library);
    copies.push_back(Json{{"library", util::to_utf8(copy.library)},
                          {"version", copy.version ? Json(copy.version->str()) : Json(nullptr)},
                          {"cuda", copy.cuda ? Json(copy.cuda->str()) : Json(nullptr)},
                          {"size", ec ? Json(nullptr) : Json(size)},
                          {"sha256", hash ? Json(*hash) : Json(nullptr)},
                          {"found_via", copy.found_via},
                          {"loaded_by_name", copy.loaded_by_name}});
  }
  Json trees = Json::array();
  for (const auto& tree : facts.trees) {
    trees.push_back(Json{{"name", tree.name},
                         {"version", tree.version.str()},
                         {"cuda", tree.cuda ? Json(tree.cuda->str()) : Json(nullptr)},
                         {"library", util::to_utf8(tree.library_path())}});
  }
  Json selection = nullptr;
  if (facts.selection) {
    const TreeRecord& tree = facts.selection->tree;
    selection = Json{{"tree", tree.name},
                     {"version", tree.version.str()},
                     {"cuda", tree.cuda ? Json(tree.cuda->str()) : Json(nullptr)},
                     {"library", util::to_utf8(tree.library_path())},
                     {"decided_by", facts.selection->decided_by},
                     {"spec", facts.selection->spec}};
  }
  Json program{{"requested", facts.program.requested},
               {"path", facts.program.path.empty() ? Json(nullptr) : Json(util::to_utf8(facts.program.path))},
               {"target", facts.program.target.empty() ? Json(nullptr) : Json(util::to_utf8(facts.program.target))},
               {"shim", facts.program.is_shim},
               {"version_manager", or_null(facts.program.manager)},
               {"binary", facts.program.binary ? Json(facts.program.binary->describe()) : Json(nullptr)}};
  Json frameworks = Json::array();
  for (const auto& framework : facts.frameworks) {
    Json own = Json::array();
    for (const auto& file : framework.own_copies) own.push_back(util::to_utf8(file));
    frameworks.push_back(Json{{"name", framework.name},
                              {"version", or_null(framework.version)},
                              {"location", util::to_utf8(framework.location)},
                              {"cuda", or_null(framework.cuda)},
                              {"cudnn", or_null(framework.cudnn)},
                              {"own_copies", own}});
  }
  Json environment = Json::object();
  for (const auto& [name, value] : facts.environment.variables()) {
    if (interesting_variable(name)) environment[name] = value;
  }
  Json check_list = Json::array();
  for (const auto& check : checks) {
    check_list.push_back(Json{{"id", check.id}, {"status", to_string(check.status)}, {"summary", check.summary}});
  }
  return Json{{"format", 1},
              {"taken_at", utc_timestamp()},
              {"cudnnenv", cudnnenv_version},
              {"host", Json{{"os", to_string(facts.platform.os)}, {"arch", to_string(facts.platform.arch)}}},
              {"driver", driver},
              {"gpus", gpus},
              {"toolkits", toolkits},
              {"headers", headers},
              {"copies", copies},
              {"store", Json{{"root", util::to_utf8(facts.store_root)}, {"trees", trees}}},
              {"selection", selection},
              {"program", program},
              {"frameworks", frameworks},
              {"environment", environment},
              {"checks", check_list}};
}

std::vector<std::pair<std::string, std::string>> snapshot_text_lines(const Json& snapshot) {
  std::vector<std::pair<std::string, std::string>> lines;
  std::size_t unbounded = std::string().max_size();
  flatten(snapshot, "", lines, unbounded);  // our own: four levels deep
  return lines;
}

Result<std::vector<SnapshotChange>> diff_snapshots(std::string_view before, std::string_view after,
                                                   const std::string& before_name, const std::string& after_name) {
  CUDNNENV_TRY_ASSIGN(a, snapshot_lines(before, before_name));
  CUDNNENV_TRY_ASSIGN(b, snapshot_lines(after, after_name));
  // Keys in document order, once each (a crafted file may repeat one: the last value counts, as in the maps).
  std::map<std::string, std::string> left;
  std::map<std::string, std::string> right;
  for (const auto& [key, value] : *a) left[key] = value;
  for (const auto& [key, value] : *b) right[key] = value;
  std::vector<SnapshotChange> changes;
  std::set<std::string> seen;
  for (const auto& entry : *a) {
    const std::string& key = entry.first;
    if (key == "taken_at" || !seen.insert(key).second) continue;
    auto other = right.find(key);
    if (other == right.end()) {
      changes.push_back({"removed", key, left[key], std::nullopt});
    } else if (other->second != left[key]) {
      changes.push_back({"changed", key, left[key], other->second});
    }
  }
  for (const auto& entry : *b) {
    const std::string& key = entry.first;
    if (key != "taken_at" && !left.count(key) && seen.insert(key).second) {
      changes.push_back({"added", key, std::nullopt, right[key]});
    }
  }
  return changes;
}

bool is_snapshot(std::string_view text) {
  if (!json_nesting_within(text, k_max_depth)) return false;
  const Json json = parse_json(text);
  return !json.is_discarded() && json.is_object() && json.contains("format");
}

std::string snapshot_taken_at(std::string_view text) {
  const Json json = parse_json(text);
  return json.is_object() && json.contains("taken_at") && json["taken_at"].is_string()
             ? json["taken_at"].get<std::string>()
             : std::string("?");
}

}  // namespace cudnnenv
