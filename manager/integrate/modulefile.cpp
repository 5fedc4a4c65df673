#include "integrate/modulefile.hpp"

#include <set>

#include "select/activation.hpp"
#include "store/component.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

std::vector<ModuleTree> store_modules(const Listing& listing) {
  std::vector<ModuleTree> modules;
  for (const auto& tree : listing.trees) {
    // Each row's pairing rule picks the tree beside it (the runtime's, NCCL's).
    ModuleTree module{tree, {}};
    for (const ComponentRow& row : components()) {
      if (!row.trees) continue;
      if (auto paired = paired_tree(row.kind, tree, listing.of(row.kind))) module.beside.push_back(std::move(*paired));
    }
    modules.push_back(std::move(module));
  }
  return modules;
}

Result<FileChanges> write_modulefiles(const fs::path& output, shell::ModuleFormat format,
                                      const std::vector<ModuleTree>& modules, const std::vector<TreeRecord>& all_trees,
                                      const util::Environment& environment, bool whole_store) {
  const bool lua = format == shell::ModuleFormat::lua;
  std::vector<std::pair<std::string, std::string>> files;  // version, text
  std::set<std::string> versions;
  for (const auto& module : modules) {
    CUDNNENV_TRY_ASSIGN(text, modulefile_for(module.tree, format, environment, module.beside));
    const std::string version = module_version(module.tree, all_trees);
    if (!versions.insert(version).second) {
      return make_error("two trees would both be module cudnn/" + version + ", and one file would replace the other",
                        "rename one (remove it and install it again with --name)");
    }
    files.emplace_back(version, std::move(*text));
  }
  const fs::path folder = output / "cudnn";
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) {
    return make_error("cannot create '" + util::to_utf8(folder) + "': " + ec.message(),
                      "give a writable folder with -o (a folder on the cluster's MODULEPATH)");
  }
  FileChanges changes;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& [version, text] = files[i];
    const fs::path file = folder / util::path_from_utf8(version + (lua ? ".lua" : ""));
    CUDNNENV_TRY(util::write_file_atomic(file, text));
    std::string about = "(module load cudnn/" + version + ": '" + modules[i].tree.name + "'";
    for (const auto& each : modules[i].beside) about += " with '" + each.name + "'";
    changes.push_back({FileChange::Kind::wrote, file, about + ")"});
  }
  if (!whole_store) return changes;
  // A second tree of a version renames both modules; a removed tree leaves its file.
  const std::string marker = std::string(lua ? "--" : "#") + " written by 'cudnnenv export modulefile'";
  for (const auto& entry : util::directory_entries(folder)) {
    const std::string name = util::to_utf8(entry.path.filename());
    const bool lua_name = util::ends_with(name, ".lua");
    if (!entry.is_regular_file || lua_name != lua) continue;
    const std::string version = lua_name ? name.substr(0, name.size() - 4) : name;
    if (versions.count(version)) continue;
    auto text = util::read_file(entry.path, k_max_settings_file);
    if (!text || text->find(marker) == std::string::npos) continue;
    std::error_code removed;
    if (fs::remove(entry.path, removed)) {
      changes.push_back({FileChange::Kind::removed, entry.path, "(no tree is module cudnn/" + version + " now)"});
    }
  }
  return changes;
}

}  // namespace cudnnenv
