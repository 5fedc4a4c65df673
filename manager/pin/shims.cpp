#include "pin/shims.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <system_error>
#include <vector>

#include "formats/platform.hpp"
#include "launch_key.hpp"
#include "store/store.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

ShimPaths shim_paths(const Store& store) {
  const bool windows = host_platform().os == Os::windows;
  ShimPaths paths;
  paths.shims_dir = store.state().shims();
  paths.root = store.root();
  paths.state = store.state().folder;
  paths.program = util::current_executable();
  const std::filesystem::path helpers = util::installed_program().parent_path();
  paths.launcher = helpers / (windows ? "cudnnenv-shim.exe" : "cudnnenv-shim");
  if (!windows) paths.audit_module = audit_module_beside(util::installed_program());
  return paths;
}

namespace fs = std::filesystem;

namespace {

fs::path launcher_file(const ShimPaths& paths, const std::string& name) {
  return paths.shims_dir / util::path_from_utf8(windows_host() ? name + ".exe" : name);
}

fs::path sidecar_file(const ShimPaths& paths, const std::string& name) {
  return paths.shims_dir / util::path_from_utf8(name + ".shim");
}

Result<void> check_shim_name(const std::string& name) {
  // NAME.shim is shim NAME's sidecar: a shim of that name would be written over it.
  const std::string lower = util::to_lower(name);
  if (name.empty() || name.front() == '.' || name.find_first_of("/\\:*?\"<>|\n\r\t ") != std::string::npos ||
      !util::is_valid_utf8(name) || (windows_host() && util::ends_with(lower, ".exe")) ||
      util::ends_with(lower, ".shim") || name.back() == '.') {
    return make_error("'" + util::printable(name) + "' cannot be a shim name",
                      "use the program's name without a folder, .exe or .shim: cudnnenv shim add python",
                      ExitCode::usage);
  }
  return {};
}

// The value of "key = value" in a sidecar's text.
std::string sidecar_value(const std::string& text, const std::string& key) {
  for (const auto& line : util::split(text, '\n')) {
    const auto equals = line.find('=');
    if (equals != std::string::npos && util::trim(line.substr(0, equals)) == key) {
      return std::string(util::trim(line.substr(equals + 1)));
    }
  }
  return {};
}

}  // namespace

std::optional<LauncherPin> launcher_pin(const fs::path& program) {
  // NAME.shim beside NAME (Linux) or NAME.exe (Windows).
  std::string name = util::to_utf8(program.filename());
  if (name.size() > 4 && util::iequals(name.substr(name.size() - 4), ".exe")) name.resize(name.size() - 4);
  auto text = util::read_file(program.parent_path() / util::path_from_utf8(name + ".shim"), 64 * 1024);
  if (!text) return std::nullopt;
  LauncherPin pin{sidecar_value(*text, "cudnn"), sidecar_value(*text, "path"), sidecar_value(*text, "cudnn"), {}};
  for (const ComponentRow& row : components()) {
    if (row.kind == TreeKind::cudnn) continue;
    if (auto name = sidecar_value(*text, std::string(row.json_key)); !name.empty()) pin.beside[row.kind] = name;
  }
  if (pin.spec.empty()) return std::nullopt;
  return pin;
}

std::string sidecar_text(const ShimSpec& spec, const ShimPaths& paths, const std::optional<fs::path>& target) {
  std::string text = "# written by 'cudnnenv shim add " + spec.name + "'; see 'cudnnenv shim --help'\n";
  text += "cudnnenv = " + util::to_utf8(paths.program) + "\n";
  text += "root = " + util::to_utf8(paths.root) + "\n";
  if (!paths.state.empty()) {
    text += "state = " + util::to_utf8(paths.state) + "\n";
  }
  if (!paths.audit_module.empty()) {
    text += "audit = " + util::to_utf8(paths.audit_module) + "\n";
  }
  if (target) {
    text += "path = " + util::to_utf8(*target) + "\n";
  }
  if (!spec.args.empty()) {
    text += "args = " + spec.args + "\n";
  }
  if (!spec.cudnn.empty()) {
    text += "cudnn = " + spec.cudnn + "\n";
    for (const auto& [kind, name] : spec.beside) {
      if (!name.empty()) text += std::string(component(kind).json_key) + " = " + name + "\n";
    }
  }
  return text;
}

void record_launch_decision(const std::string& root, const std::string& state, const TreeRecord& tree,
                            const LaunchPlan& plan) {
  static char key[shim::k_key_max];
  static char path[shim::k_path_max + 64];
  static char text[shim::k_key_max + 3 * shim::k_path_max + 32768];
  const std::string library_dir = util::to_utf8(tree.resolve(tree.layout.library_dir));
  std::vector<std::string> folders;
  for (const auto& folder : plan.folders) folders.push_back(util::to_utf8(folder));
  std::vector<const char*> folder_names;
  for (const auto& folder : folders) folder_names.push_back(folder.c_str());
  const std::string program = windows_host() ? util::to_utf8(plan.program) : std::string();
  char identity[512];
  if (plan.changes.size() > static_cast<std::size_t>(shim::k_changes_max) ||
      folders.size() > static_cast<std::size_t>(shim::k_folders_max) ||
      !shim::launch_key(root.c_str(), state.c_str(), key, sizeof key) ||
      !shim::launch_cache_path(state.c_str(), key, path, sizeof path) ||
      !shim::decision_identity(folder_names.data(), static_cast<int>(folder_names.size()), program.c_str(), identity,
                               sizeof identity)) {
    spdlog::debug("shims: no decision recorded for this situation (more changes than fit, or a folder is gone)");
    return;
  }
  shim::LaunchDecision decision;
  decision.library_dir = library_dir.c_str();
  for (const char* folder : folder_names) decision.folders[decision.folder_count++] = folder;
  decision.program = program.c_str();
  decision.identity = identity;
  for (const auto& change : plan.changes) {
    shim::EnvironmentChange& out = decision.changes[decision.change_count++];
    out.op = change.kind == EnvironmentChange::Kind::prepend ? '+'
             : change.kind == EnvironmentChange::Kind::set   ? '='
                                                             : '-';
    out.name = change.name.c_str();
    out.value = change.value.c_str();
  }
  if (!shim::format_decision(key, decision, text, sizeof text)) {
    spdlog::debug("shims: no decision recorded: a value of the launch environment has a line break, or it is too long");
    return;
  }
  std::error_code ec;
  const fs::path file = util::path_from_utf8(path);
  fs::create_directories(file.parent_path(), ec);
  const bool written = static_cast<bool>(util::write_file_atomic(file, text));
  spdlog::debug("shims: {} '{}' for this situation", written ? "recorded the decision in" : "could not write",
                util::to_utf8(file));
}

namespace {
Result<ShimInfo> write_shim(const ShimSpec& spec, const ShimPaths& paths, const std::optional<fs::path>& target);
}  // namespace

Result<ShimInfo> add_shim(const ShimSpec& spec, const ShimPaths& paths) {
  CUDNNENV_TRY(check_shim_name(spec.name));
  std::error_code ec;
  std::optional<fs::path> target;
  if (spec.target) {
    target = fs::absolute(*spec.target, ec);
    if (!fs::is_regular_file(*target, ec)) {
      return make_error("'" + util::to_utf8(*spec.target) + "' is not a file", "give the program's full path",
                        ExitCode::not_found);
    }
    if (fs::equivalent(*target, paths.launcher, ec) || fs::equivalent(target->parent_path(), paths.shims_dir, ec)) {
      return make_error("'" + util::to_utf8(*spec.target) + "' is a shim: the shim would start itself",
                        "give the real program's path", ExitCode::usage);
    }
  }
  if (!spec.cudnn.empty() && !target) {
    return make_error("a launcher pinned to a tree needs the program's path", "give --python", ExitCode::usage);
  }
  std::vector<std::string> values{util::to_utf8(paths.program),
                                  util::to_utf8(paths.root),
                                  util::to_utf8(paths.state),
                                  target ? util::to_utf8(*target) : std::string(),
                                  spec.args,
                                  spec.cudnn};
  for (const auto& [kind, name] : spec.beside) values.push_back(name);
  for (const std::string& value : values) {
    if (value.find_first_of("\r\n") != std::string::npos) {
      return make_error("a line break in '" + value + "' cannot go into a shim file", "use a path without one",
                        ExitCode::usage);
    }
  }
  if (!fs::is_regular_file(paths.launcher, ec)) {
    return make_error("the launcher '" + util::to_utf8(paths.launcher) + "' is missing", "reinstall cudnnenv");
  }
  // The folders this call makes go again when it fails (a full disk), each if still empty.
  std::vector<fs::path> made;
  for (fs::path folder = paths.shims_dir; !folder.empty() && !fs::exists(folder, ec); folder = folder.parent_path()) {
    made.push_back(folder);
    if (folder == folder.parent_path()) break;
  }
  fs::create_directories(paths.shims_dir, ec);
  if (ec) {
    return make_error("cannot create '" + util::to_utf8(paths.shims_dir) + "': " + ec.message());
  }
  auto added = write_shim(spec, paths, target);
  if (!added) {
    for (const auto& folder : made) fs::remove(folder, ec);  // deepest first; fails on one another run filled
  }
  return added;
}

namespace {

// The sidecar and the launcher of a checked `spec` in its existing folder.
Result<ShimInfo> write_shim(const ShimSpec& spec, const ShimPaths& paths, const std::optional<fs::path>& target) {
  std::error_code ec;
  // The sidecar first: a launcher without one would fail at its first start.
  if (auto written = util::write_file_atomic(sidecar_file(paths, spec.name), sidecar_text(spec, paths, target));
      !written) {
    return std::move(written).error();
  }
  const fs::path file = launcher_file(paths, spec.name);
  util::remove_stale_temporaries(file);
  const fs::path temporary = util::temporary_beside(file);  // parallel runs: each its own, the last rename wins
  if (windows_host()) {
    // A hard link costs no space and follows upgrades of nothing: it is a copy
    // that shares the data. Other volumes get a real copy.
    fs::create_hard_link(paths.launcher, temporary, ec);
    if (ec) {
      ec.clear();
      fs::copy_file(paths.launcher, temporary, fs::copy_options::overwrite_existing, ec);
    }
  } else {
    fs::create_symlink(paths.launcher, temporary, ec);
  }
  if (ec) {
    return make_error("cannot create '" + util::to_utf8(file) + "': " + ec.message());
  }
  if (auto replaced = util::replace_file(temporary, file); !replaced) {
    fs::remove(temporary, ec);
    return std::move(replaced).error();
  }
  // The rename on disk before the shim is said to be there, as write_file_atomic puts the sidecar's.
  CUDNNENV_TRY(util::sync_directory(file.parent_path()));
  ShimInfo info;
  info.name = spec.name;
  info.file = file;
  info.target = target ? util::to_utf8(*target) : std::string();
  info.args = spec.args;
  return info;
}

}  // namespace

Result<void> remove_shim(const std::string& name, const ShimPaths& paths) {
  CUDNNENV_TRY(check_shim_name(name));
  std::error_code ec;
  const bool launcher = fs::remove(launcher_file(paths, name), ec);
  const bool sidecar = fs::remove(sidecar_file(paths, name), ec);
  if (!launcher && !sidecar) {
    return make_error("there is no shim '" + name + "'", "'cudnnenv shim list' shows them", ExitCode::not_found);
  }
  return {};
}

std::vector<ShimInfo> list_shims(const ShimPaths& paths) {
  std::vector<ShimInfo> shims;
  std::error_code ec;
  for (const auto& entry : util::directory_entries(paths.shims_dir)) {
    const std::string file_name = util::to_utf8(entry.path.filename());
    if (!util::ends_with(file_name, ".shim")) {
      continue;
    }
    ShimInfo info;
    info.name = file_name.substr(0, file_name.size() - 5);
    info.file = launcher_file(paths, info.name);
    auto text = util::read_file(entry.path);
    if (!text) {
      info.broken = true;
      info.problem = "its .shim file cannot be read";
    } else {
      info.target = sidecar_value(*text, "path");
      info.args = sidecar_value(*text, "args");
    }
    if (!fs::exists(info.file, ec)) {
      info.broken = true;
      info.problem = "the launcher file is missing";
    } else if (!windows_host() && !fs::exists(fs::status(info.file, ec))) {
      info.broken = true;
      info.problem = "its link points to a launcher that is gone";
    }
    shims.push_back(std::move(info));
  }
  std::sort(shims.begin(), shims.end(), [](const ShimInfo& a, const ShimInfo& b) { return a.name < b.name; });
  return shims;
}

}  // namespace cudnnenv
