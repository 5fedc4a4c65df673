#include "select/activation.hpp"

#include "shell/quote.hpp"

#include <cctype>
#include <system_error>

#include "store/component.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

shell::Activation activation_for(const TreeRecord& tree, const std::optional<CudaVersion>& cuda,
                                 const std::vector<std::pair<std::string, std::string>>& extra,
                                 const util::Environment& environment, const std::vector<TreeRecord>& beside) {
  const bool windows = host_platform().os == Os::windows;
  shell::Activation activation;
  if (auto toolkit = cuda ? find_toolkit(*cuda, environment) : std::nullopt) {
    if (windows) {
      activation.prepend.emplace_back("PATH", util::to_utf8(*toolkit / "libnvvp"));
    }
    activation.prepend.emplace_back("PATH", util::to_utf8(*toolkit / "bin"));
    activation.set.emplace_back("CUDA_PATH", util::to_utf8(*toolkit));
  }
  // Each entry goes in front of the ones before it: the trees' folders end
  // up in the components' order.
  const std::vector<const TreeRecord*> trees = pinned_trees(tree, beside);
  for (auto each = trees.rbegin(); each != trees.rend(); ++each) {
    activation.prepend.emplace_back(windows ? "PATH" : "LD_LIBRARY_PATH",
                                    util::to_utf8((*each)->resolve((*each)->layout.library_dir)));
  }
  // cuDNN's own variables, which build systems read (CMake's FindCUDNN, ...).
  activation.set.emplace_back("CUDNN_PATH", util::to_utf8(tree.root));
  if (!tree.layout.include_dir.empty()) {
    activation.set.emplace_back("CUDNN_INCLUDE_DIR", util::to_utf8(tree.resolve(tree.layout.include_dir)));
  }
  activation.set.emplace_back(
      "CUDNN_LIB_DIR", util::to_utf8(tree.resolve(!tree.layout.import_lib_dir.empty() ? tree.layout.import_lib_dir
                                                                                      : tree.layout.library_dir)));
  for (const TreeRecord* each : trees) activation.set.emplace_back(component(each->kind).active_variable, each->name);
  for (const auto& [name, value] : extra) {
    activation.set.emplace_back(name, value);
  }
  return activation;
}

std::vector<std::pair<std::string, std::string>> selection_variables(const Selection& selection) {
  std::vector<std::pair<std::string, std::string>> variables;
  if (selection.profile) variables = selection.profile->env;
  if (selection.project) {
    variables.insert(variables.end(), selection.project->env.begin(), selection.project->env.end());
  }
  return variables;
}

namespace {

std::optional<CudaVersion> selection_cuda(const Selection& selection) {
  std::optional<CudaVersion> cuda = selection.tree.cuda;
  if (selection.profile) {
    if (auto profile_cuda = parse_cuda_version(selection.profile->cuda)) cuda = profile_cuda;
  }
  return cuda;
}

}  // namespace

std::optional<std::filesystem::path> selection_toolkit(const Selection& selection,
                                                       const util::Environment& environment) {
  const auto cuda = selection_cuda(selection);
  return cuda ? find_toolkit(*cuda, environment) : std::nullopt;
}

shell::Activation activation_of(const Selection& selection, const util::Environment& environment) {
  const std::optional<CudaVersion> cuda = selection_cuda(selection);
  return activation_for(selection.tree, cuda, selection_variables(selection), environment, selection.beside_trees());
}

void mark_activated(shell::Activation& activation, const Selection& selection, Door door) {
  activation.set.emplace_back(k_activated_variable, selection.profile && selection.spec == selection.profile->name
                                                        ? selection.profile->name
                                                        : selection.tree.name);
  activation.set.emplace_back(k_door_variable, std::string(util::name_of(k_doors, door)));
}

Result<std::string> modulefile_for(const TreeRecord& tree, shell::ModuleFormat format,
                                   const util::Environment& environment, const std::vector<TreeRecord>& beside) {
  shell::Activation activation = activation_for(tree, std::nullopt, {}, environment, beside);
  // The one record of what is active, as `cudnnenv activate --by module` sets
  // it: current, which, exec and the shims pin the module's tree.
  activation.set.emplace_back(k_activated_variable, tree.name);
  activation.set.emplace_back(k_door_variable, "module");
  if (auto problem = shell::modulefile_problem(format, activation)) {
    return make_error("cannot write a modulefile for '" + tree.name + "': " + *problem,
                      "install the tree into a store whose path has no such byte");
  }
  const std::string cuda = tree.cuda ? "CUDA " + tree.cuda->str() : std::string("an unknown CUDA");
  shell::ModuleDescription description;
  description.family = "cudnn";
  description.version = tree.version.str();
  description.whatis =
      "NVIDIA cuDNN " + tree.version.str() + " for " + cuda + " (the cudnnenv tree '" + tree.name + "')";
  std::string beside_help;
  for (const auto& each : beside) {
    const std::string noun(component(each.kind).noun);
    description.whatis += " with the " + noun + " '" + each.name + "'";
    beside_help += noun + " '" + each.name +
                   "', its folder right after: " + util::to_utf8(each.resolve(each.layout.library_dir)) + "\n";
  }
  const std::string loader_path = host_platform().os == Os::windows ? "PATH" : "LD_LIBRARY_PATH";
  description.help = "NVIDIA cuDNN " + tree.version.str() + " for " + cuda + ", from the cudnnenv store.\n" +
                     "Library folder: " + util::to_utf8(tree.resolve(tree.layout.library_dir)) + "\n" + beside_help +
                     "Sets CUDNN_PATH, CUDNN_INCLUDE_DIR, CUDNN_LIB_DIR, CUDNNENV_ACTIVE and CUDNNENV_ACTIVATED (which "
                     "cudnnenv current, exec and the shims follow), and puts the library "
                     "folder first on " +
                     loader_path +
                     ". One cudnn module at a time.\n"
                     "To run a program with exactly this cuDNN whatever else is on the path:\n"
                     "  cudnnenv exec --cudnn " +
                     // Quoted for the shell it is pasted into (modules are a Linux cluster's: sh).
                     shell::quote(shell::Shell::bash, tree.name) + " -- python train.py";
  return shell::render_modulefile(format, description, activation);
}

std::string module_version(const TreeRecord& tree, const std::vector<TreeRecord>& trees) {
  const auto with_cuda = [](const TreeRecord& each) {
    return each.version.str() + "-cuda" + (each.cuda ? each.cuda->str() : std::string("unknown"));
  };
  bool same_version = false;
  bool same_cuda = false;
  for (const auto& other : trees) {
    if (other.name == tree.name) continue;
    same_version = same_version || other.version.str() == tree.version.str();
    same_cuda = same_cuda || with_cuda(other) == with_cuda(tree);
  }
  if (!same_version) return tree.version.str();
  if (!same_cuda) return with_cuda(tree);
  // Two trees of one version and CUDA (a download and a wheel of it): the
  // tree's name tells them apart, in letters a module name can hold.
  std::string name;
  for (const char c : tree.name) {
    name += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ? c : '_';
  }
  return with_cuda(tree) + "-" + name;
}

}  // namespace cudnnenv
