#include "integrate/cdi.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "integrate/modulefile.hpp"
#include "pin/launch.hpp"
#include "select/activation.hpp"
#include "select/profile.hpp"
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

// One device of the spec: its trees' mounts (by their real paths: doctor
// sees when one moves), the audit module's, and its variables.
Result<Json> device_json(const CdiDevice& device, const fs::path& audit_module) {
  CUDNNENV_TRY(check_name(device.name, "the device"));
  Json mounts = Json::array();
  for (const TreeRecord* tree : pinned_trees(device.tree, device.beside)) {
    CUDNNENV_TRY(check_name(tree->name, "the tree"));
    if (tree->platform.os != Os::linux) {
      return make_error(
          "the tree '" + tree->name + "' is for " + describe(tree->platform) + ": a Linux container cannot load it",
          "export a Linux tree", ExitCode::usage);
    }
    mounts.push_back(mount(util::final_path(tree->root), k_inside / tree->name));
  }
  mounts.push_back(mount(audit_module, module_inside()));
  CUDNNENV_TRY_ASSIGN(environment, device_environment(device, audit_module));
  return Json{{"name", device.name}, {"containerEdits", Json{{"env", std::move(*environment)}, {"mounts", mounts}}}};
}

std::string spec_text(const Json& spec) {
  return spec.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

// Whether the device entry `device` of a spec bind-mounts `host`.
bool mounts_path(const Json& device, const std::string& host) {
  if (!device.is_object()) return false;
  const Json edits = device.value("containerEdits", Json::object());
  if (!edits.is_object()) return false;
  for (const auto& each : edits.value("mounts", Json::array())) {
    if (each.is_object() && each.value("hostPath", Json()) == host) return true;
  }
  return false;
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
    if (!names.insert(device.name).second) {
      return make_error("two devices named '" + device.name + "'", "export each name once", ExitCode::usage);
    }
  }
  Json list = Json::array();
  for (const auto& device : devices) {
    CUDNNENV_TRY_ASSIGN(entry, device_json(device, audit_module));
    list.push_back(std::move(*entry));
  }
  return spec_text(
      Json{{"cdiVersion", std::string(k_cdi_version)}, {"kind", std::string(k_cdi_kind)}, {"devices", list}});
}

Result<FileChanges> write_cdi_spec(const fs::path& folder, const std::string& text) {
  const std::string hint =
      "as root (sudo cudnnenv export cdi ...), or give -o a folder you can write that the engine reads "
      "(podman: cdi_spec_dirs in containers.conf)";
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) return make_error("cannot create '" + util::to_utf8(folder) + "': " + ec.message(), hint);
  const fs::path file = folder / std::string(k_cdi_file);
  if (auto written = util::write_file_atomic(file, text); !written) return make_error(written.error().message, hint);
  return FileChanges{{FileChange::Kind::wrote, file, "(CDI kind " + std::string(k_cdi_kind) + ")"}};
}

std::vector<fs::path> cdi_folders() {
  return {"/etc/cdi", "/var/run/cdi"};
}

std::vector<std::pair<fs::path, std::string>> find_cdi_specs(const std::vector<fs::path>& folders) {
  std::vector<std::pair<fs::path, std::string>> specs;
  for (const fs::path& folder : folders) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".json" && it->is_regular_file(ec)) files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      if (auto text = util::read_file(file, 1 << 20)) specs.emplace_back(file, std::move(*text));
    }
  }
  return specs;
}

Result<CdiDevice> cdi_device(const std::string& spec, const SelectSpec& select) {
  CUDNNENV_TRY_ASSIGN(selection, select(spec));
  const bool profile = selection->profile && selection->profile->name == spec;
  return CdiDevice{profile ? spec : selection->tree.name, selection->tree, selection->beside_trees(),
                   profile ? selection_variables(*selection) : std::vector<std::pair<std::string, std::string>>{}};
}

Result<std::vector<CdiDevice>> cdi_devices(const Store& store, const std::vector<std::string>& specs, bool all,
                                           const SelectSpec& select, const WarningSink& warn) {
  std::vector<CdiDevice> devices;
  if (all) {
    const auto listing = store.list();
    for (auto& module : store_modules(listing)) {
      if (!is_cdi_name(module.tree.name)) {
        if (warn) {
          warn("the tree '" + util::printable(module.tree.name) +
               "' has a name CDI cannot take as a device's: not exported");
        }
        continue;
      }
      devices.push_back({module.tree.name, module.tree, module.beside, {}});
    }
    CUDNNENV_TRY_ASSIGN(profiles, all_profiles(host_platform().os, config_files(store)));
    for (const auto& profile : *profiles) {
      if (!satisfying_tree(profile, listing.trees)) continue;
      if (auto device = cdi_device(profile.name, select); device && is_cdi_name(device->tree.name)) {
        devices.push_back(std::move(*device));
      }
    }
    if (devices.empty()) {
      return make_error("the store '" + util::to_utf8(store.root()) + "' has no tree to export",
                        "install one first: cudnnenv install 9.19", ExitCode::not_found);
    }
  }
  for (const auto& spec : specs) {
    CUDNNENV_TRY_ASSIGN(device, cdi_device(spec, select));
    devices.push_back(std::move(*device));
  }
  // Asked of the whole record (an identity record has no file list).
  for (const auto& device : devices) {
    for (const TreeRecord* tree : pinned_trees(device.tree, device.beside)) {
      const auto full = store.full_record(*tree);
      const auto why = full ? changeable_by_others(*full) : util::changeable_by_others(tree->root);
      if (!why) continue;
      return make_error("the tree '" + tree->name + "' can be changed by another user (" + util::printable(*why) +
                            "): a container would mount whatever they put there",
                        "install it (a copy in the store only you can change) and export that: cudnnenv install " +
                            util::command_word(util::to_utf8(tree->root)),
                        ExitCode::usage);
    }
  }
  return devices;
}

std::vector<CdiRefresh> refresh_cdi_specs(const fs::path& tree_root, const std::string& name, const SelectSpec& select,
                                          const fs::path& audit_module, const std::vector<fs::path>& folders) {
  std::vector<CdiRefresh> refreshed;
  const std::string root = util::to_utf8(tree_root);
  for (const auto& [file, text] : find_cdi_specs(folders)) {
    if (!json_nesting_within(text, 16)) continue;
    Json spec = parse_json(text);
    if (!spec.is_object() || spec.value("kind", Json()) != std::string(k_cdi_kind)) continue;
    const Json old_devices = spec.value("devices", Json::array());
    if (!old_devices.is_array() ||
        std::none_of(old_devices.begin(), old_devices.end(), [&](const Json& d) { return mounts_path(d, root); })) {
      continue;
    }
    // Only the devices that mount the tree are named again; the others (another store's, another
    // user's) stay as written.
    CdiRefresh refresh;
    refresh.file = file;
    Json devices = Json::array();
    std::vector<std::string> names;
    for (const auto& old : old_devices) {
      if (!mounts_path(old, root)) {
        devices.push_back(old);
        if (old.is_object() && old.contains("name") && old["name"].is_string()) {
          names.push_back(util::command_word(old["name"].get<std::string>()));
        }
        continue;
      }
      const std::string device_name =
          old.contains("name") && old["name"].is_string() ? old["name"].get<std::string>() : "";
      auto device = cdi_device(device_name, select);
      auto entry = device ? device_json(*device, audit_module) : Result<Json>(device.error());
      if (entry) {
        devices.push_back(std::move(*entry));
        names.push_back(util::command_word(device_name));
      } else {
        refresh.dropped.push_back(device_name);
      }
    }
    refresh.command = devices.empty() ? "rm " + util::command_word(util::to_utf8(file))
                                      : "cudnnenv export cdi " + util::join(names, " ") + " -o " +
                                            util::command_word(util::to_utf8(file.parent_path()));
    std::error_code ec;
    if (devices.empty()) {
      if (fs::remove(file, ec)) {
        refresh.changes.push_back({FileChange::Kind::removed, file, "(no device of it is left)"});
      } else {
        refresh.refused = "cannot remove '" + util::to_utf8(file) + "': " + ec.message();
      }
    } else {
      spec["devices"] = std::move(devices);
      if (auto written = util::write_file_atomic(file, spec_text(spec)); !written) {
        refresh.refused = written.error().message;
      } else {
        refresh.changes.push_back({FileChange::Kind::wrote, file, "(CDI kind " + std::string(k_cdi_kind) + ")"});
      }
    }
    if (refresh.refused) {
      const bool gone = !fs::exists(tree_root, ec);
      refresh.warning = "the CDI spec '" + util::to_utf8(file) + "' still mounts '" + name +
                        "' as exported before: until it is written again, 'podman run --device " +
                        std::string(k_cdi_kind) + "=" +
                        (refresh.dropped.empty() ? names.front() : util::printable(refresh.dropped.front())) +
                        (gone ? "' fails to mount it" : "' mounts it with the variables of the tree exported before") +
                        "; " + *refresh.refused + "; as root: " + refresh.command;
    } else if (!refresh.dropped.empty()) {
      // A device's name is the spec file's text: shown as printable, never as the terminal's escapes.
      refresh.note = "note: the CDI device" + std::string(refresh.dropped.size() == 1 ? " " : "s ") +
                     util::printable(util::join(refresh.dropped, ", ")) + " mounted '" + name +
                     "', which is gone: dropped from " + util::to_utf8(file);
    }
    refreshed.push_back(std::move(refresh));
  }
  return refreshed;
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
