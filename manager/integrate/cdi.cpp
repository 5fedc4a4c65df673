#include "integrate/cdi.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "pin/launch.hpp"
#include "select/activation.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

// Where a device's trees and the audit module are inside the container.
const fs::path k_inside = "/opt/cudnnenv";

fs::path module_inside() {
  return k_inside / "lib" / "libcudnnenv-audit.so";
}

TreeRecord inside(TreeRecord tree) {
  tree.root = k_inside / tree.name;
  tree.location.reset();
  return tree;
}

Result<void> check_name(const std::string& name, const std::string& what) {
  if (is_cdi_name(name)) return {};
  return make_error(what + " '" + util::printable(name) +
                        "' cannot be a CDI device name or a container path: letters, digits, '_', '-', '.', ':' only, "
                        "a letter or digit first",
                    "install it again under such a name (--name), or export the others one by one", ExitCode::usage);
}

// The device's variables: the launch environment of its trees, with the
// container's paths, as exec would start a program with it, less what a CDI
// variable must not replace (the loader's and PATH's lists: the container's
// own) and unsets (a new container has none of cudnnenv's variables).
Result<Json> device_environment(const CdiDevice& device, const fs::path& audit_module) {
  LaunchRequest request;
  request.tree = inside(device.tree);
  for (const auto& each : device.beside) request.beside.push_back(inside(each));
  request.selection_environment =
      activation_for(request.tree, std::nullopt, device.variables, util::Environment(), request.beside);
  request.audit_module = audit_module;  // the host's: plan_environment checks that it is there
  CUDNNENV_TRY_ASSIGN(plan, plan_environment(request));
  Json environment = Json::array();
  std::set<std::string> seen;
  for (const auto& change : plan->changes) {
    if (!seen.insert(change.name).second) continue;
    if (change.kind == EnvironmentChange::Kind::set) {
      environment.push_back(change.name + "=" + *plan->environment.get(change.name));
    } else if (change.kind == EnvironmentChange::Kind::prepend && change.name == "LD_AUDIT") {
      environment.push_back("LD_AUDIT=" + module_inside().string());
    }
  }
  std::vector<std::string> trees;
  for (const TreeRecord* tree : pinned_trees(device.tree, device.beside)) {
    trees.push_back(tree->name + "@" + tree->installed_at);
  }
  environment.push_back(std::string(k_cdi_trees_variable) + "=" + util::join(trees, ","));
  return environment;
}

Json mount(const fs::path& host, const fs::path& container) {
  return Json{{"hostPath", util::to_utf8(host)},
              {"containerPath", container.string()},
              {"options", Json::array({"ro", "bind"})}};
}

}  // namespace

bool is_cdi_name(std::string_view name) {
  if (name.empty() || !std::isalnum(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.' || c == ':';
  });
}

Result<std::string> cdi_spec(const std::vector<CdiDevice>& devices, const fs::path& audit_module) {
  std::set<std::string> names;
  for (const auto& device : devices) {
    CUDNNENV_TRY(check_name(device.name, "the device"));
    if (!names.insert(device.name).second) {
      return make_error("two devices named '" + device.name + "'", "export each name once", ExitCode::usage);
    }
  }
  Json list = Json::array();
  for (const auto& device : devices) {
    Json mounts = Json::array();
    for (const TreeRecord* tree : pinned_trees(device.tree, device.beside)) {
      CUDNNENV_TRY(check_name(tree->name, "the tree"));
      if (tree->platform.os != Os::linux) {
        return make_error(
            "the tree '" + tree->name + "' is for " + describe(tree->platform) + ": a Linux container cannot load it",
            "export a Linux tree", ExitCode::usage);
      }
      // The real path: doctor sees when it moves (a folder replaced by a link to elsewhere).
      mounts.push_back(mount(util::final_path(tree->root), k_inside / tree->name));
    }
    mounts.push_back(mount(audit_module, module_inside()));
    CUDNNENV_TRY_ASSIGN(environment, device_environment(device, audit_module));
    list.push_back(
        Json{{"name", device.name}, {"containerEdits", Json{{"env", std::move(*environment)}, {"mounts", mounts}}}});
  }
  return Json{{"cdiVersion", std::string(k_cdi_version)}, {"kind", std::string(k_cdi_kind)}, {"devices", list}}.dump(
             2, ' ', false, Json::error_handler_t::replace) +
         "\n";
}

Result<FileChanges> write_cdi_spec(const fs::path& folder, const std::string& text) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) {
    return make_error("cannot create '" + util::to_utf8(folder) + "': " + ec.message(),
                      "give a folder you can write with -o (podman also reads /var/run/cdi)");
  }
  const fs::path file = folder / std::string(k_cdi_file);
  CUDNNENV_TRY(util::write_file_atomic(file, text));
  return FileChanges{{FileChange::Kind::wrote, file, "(CDI kind " + std::string(k_cdi_kind) + ")"}};
}

Result<std::vector<CdiDeviceRecord>> read_cdi_spec(std::string_view text) {
  const Json spec = json_nesting_within(text, 16) ? parse_json(text) : Json(Json::value_t::discarded);
  if (spec.is_discarded() || !spec.is_object()) return make_error("not a CDI spec: not a JSON object");
  const auto kind = spec.find("kind");
  if (kind == spec.end() || !kind->is_string() || *kind != std::string(k_cdi_kind)) {
    return std::vector<CdiDeviceRecord>{};
  }
  const auto devices = spec.find("devices");
  if (devices == spec.end() || !devices->is_array()) return make_error("a CDI spec without a list of devices");
  std::vector<CdiDeviceRecord> records;
  for (const auto& device : *devices) {
    if (!device.is_object() || !device.contains("name") || !device["name"].is_string()) {
      return make_error("a device without a name");
    }
    CdiDeviceRecord record;
    record.name = device["name"].get<std::string>();
    const Json edits = device.value("containerEdits", Json::object());
    if (!edits.is_object()) return make_error("device '" + util::printable(record.name) + "': containerEdits");
    for (const auto& each : edits.value("mounts", Json::array())) {
      if (each.is_object() && each.contains("hostPath") && each["hostPath"].is_string()) {
        record.host_paths.push_back(each["hostPath"].get<std::string>());
      }
    }
    const std::string prefix = std::string(k_cdi_trees_variable) + "=";
    for (const auto& each : edits.value("env", Json::array())) {
      if (!each.is_string() || !util::starts_with(each.get<std::string>(), prefix)) continue;
      for (const auto& entry : util::split(each.get<std::string>().substr(prefix.size()), ',')) {
        const auto at = entry.find('@');
        if (at == std::string::npos) continue;
        record.trees.emplace_back(entry.substr(0, at), entry.substr(at + 1));
      }
    }
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace cudnnenv
