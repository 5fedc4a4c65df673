#include "select/resolve.hpp"

#include <spdlog/spdlog.h>

#include <system_error>

#include "select/trust.hpp"
#include "store/layout.hpp"
#include "store/runtime.hpp"
#include "store/spec.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

Result<TreeRecord> select(const Store& store, const std::string& text, std::optional<std::string> cuda,
                          Selection& selection) {
  CUDNNENV_TRY_ASSIGN(choice, choose_tree(store, text, cuda));
  selection.profile = std::move(choice->profile);
  selection.warnings.insert(selection.warnings.end(), choice->warnings.begin(), choice->warnings.end());
  return std::move(choice->tree);
}

bool inside(const fs::path& path, const fs::path& folder) {
  const std::string relative = util::generic_utf8(path.lexically_relative(folder));
  return !relative.empty() && !util::starts_with(relative, "..");
}

// Selection::runtime, for a selection whose tree is chosen.
void choose_selection_runtime(const Store& store, const SelectionRequest& request, Selection& selection) {
  const auto runtimes = store.list(RecordPart::identity).runtimes;
  if (runtimes.empty()) return;
  std::optional<CudaVersion> exact;
  std::string reason;
  if (request.cuda && !request.cuda->empty()) {
    exact = parse_cuda_version(*request.cuda);
    reason = "--cuda " + *request.cuda;
  } else if (selection.origin == Origin::project_file && selection.project && selection.project->cuda) {
    exact = parse_cuda_version(*selection.project->cuda);
    reason = "cuda = \"" + *selection.project->cuda + "\" in " + selection.decided_by;
  }
  if (exact) {
    selection.runtime = choose_runtime(runtimes, exact, std::nullopt);
  } else if (selection.profile && !selection.profile->cuda.empty()) {
    // A framework's tested CUDA, else any runtime of its major that has its libraries.
    const auto asked = parse_cuda_version(selection.profile->cuda);
    selection.runtime = choose_runtime(runtimes, asked, std::nullopt);
    if (!selection.runtime && asked) selection.runtime = choose_runtime(runtimes, std::nullopt, asked->major);
    reason = "the profile " + selection.profile->name + " (CUDA " + selection.profile->cuda + ")";
  } else if (selection.tree.cuda) {
    selection.runtime = choose_runtime(runtimes, std::nullopt, selection.tree.cuda->major);
    reason = "the CUDA major of '" + selection.tree.name + "'";
  }
  if (selection.runtime) {
    selection.runtime_reason = reason;
    spdlog::debug("runtime '{}' ({})", selection.runtime->name, reason);
  }
}

}  // namespace

Error no_tree_for(const Profile& profile) {
  const std::string major = profile.cudnn.substr(0, profile.cudnn.find('.'));
  return make_error("no installed cuDNN runs " + profile.framework + " (cuDNN " + profile.cudnn + " or a newer " +
                        major + ".x, CUDA " + profile.cuda + ")",
                    "install one: cudnnenv install " + profile.cudnn + " --cuda " + profile.cuda, ExitCode::not_found);
}

Result<Choice> choose_tree(const Store& store, const std::string& text, const std::optional<std::string>& cuda,
                           RecordPart part) {
  CUDNNENV_TRY_ASSIGN(spec, parse_spec(text, cuda ? std::optional<std::string_view>(*cuda) : std::nullopt));
  const auto trees = store.list(part).trees;
  auto tree = select_tree(trees, *spec);
  if (tree) {
    return Choice{std::move(*tree), std::nullopt, {}};
  }
  // Not a version and no tree of that name: a profile's name, if there is one.
  if (tree.error().code == ExitCode::not_found && !parse_version(text) && text.find("+cuda") == std::string::npos) {
    if (auto profile = find_profile(text, host_platform().os, config_files(store))) {
      auto fit = satisfying_tree(*profile, trees);
      if (!fit) {
        return no_tree_for(*profile);
      }
      std::vector<std::string> warnings;
      if (!fit->tested) warnings.push_back(untested_warning(*profile, *fit));
      return Choice{std::move(fit->tree), std::move(*profile), std::move(warnings)};
    }
  }
  return std::move(tree).error();
}

Result<TreeRecord> tree_from_folder(const fs::path& folder) {
  CUDNNENV_TRY_ASSIGN(layout, locate_layout(folder, host_platform().os));
  TreeRecord tree;
  tree.name = util::to_utf8(folder.filename());
  tree.root = folder;
  tree.location = util::to_utf8(folder);
  tree.platform = host_platform();
  tree.layout = *layout;
  fs::path header = layout->version_header.empty() ? fs::path() : folder / util::path_from_utf8(layout->version_header);
  if (header.empty()) {
    header = find_version_header_near(tree.resolve(tree.layout.library_dir), layout->major);
    tree.layout.include_dir = header.empty() ? std::string() : util::to_utf8(header.parent_path());
  }
  std::optional<Version> version;
  if (auto text = header.empty() ? Result<std::string>(make_error("")) : util::read_file(header)) {
    version = parse_version_header(*text);
  }
  if (!version) {
    return make_error("no cuDNN version header for '" + util::to_utf8(folder) + "'",
                      "a tree given by path needs its headers (include/cudnn_version.h) beside its libraries");
  }
  tree.version = *version;
  tree.version_from = "header";
  return tree;
}

Result<Selection> resolve_selection(const Store& store, const SelectionRequest& request) {
  Selection selection;
  auto finish = [&](Result<TreeRecord> tree) -> Result<Selection> {
    if (!tree) {
      Error error = std::move(tree).error();
      error.message += " (" + describe_origin(selection) + ")";
      return error;
    }
    selection.tree = std::move(*tree);
    spdlog::debug("selected '{}' ({}; spec '{}')", selection.tree.name, describe_origin(selection), selection.spec);
    choose_selection_runtime(store, request, selection);
    return selection;
  };

  if (request.cudnn && !request.cudnn->empty()) {
    selection.origin = Origin::command_line;
    selection.decided_by = "--cudnn";
    selection.spec = *request.cudnn;
    return finish(select(store, selection.spec, request.cuda, selection));
  }
  spdlog::trace("selection: no --cudnn; next CUDNNENV_VERSION");
  if (auto shell = request.environment.get("CUDNNENV_VERSION"); shell && !shell->empty()) {
    selection.origin = Origin::environment;
    selection.decided_by = "CUDNNENV_VERSION";
    selection.spec = *shell;
    return finish(select(store, selection.spec, request.cuda, selection));
  }
  spdlog::trace("selection: CUDNNENV_VERSION unset; next {}", k_activated_variable);
  if (auto activated = request.environment.get(k_activated_variable); activated && !activated->empty()) {
    selection.origin = Origin::activation;
    selection.decided_by = k_activated_variable;
    selection.spec = *activated;
    return finish(select(store, selection.spec, request.cuda, selection));
  }
  spdlog::trace("selection: no activation in this shell; next a .cudnnenv.toml in '{}' or above",
                util::to_utf8(request.working_directory));
  if (auto file = find_project_file(request.working_directory)) {
    CUDNNENV_TRY_ASSIGN(project, read_project_file(*file));
    if (!project->env.empty()) {
      // Any [env] needs trust: no list of "dangerous" names is complete
      // (LD_PRELOAD, PATH, PYTHONSTARTUP, BASH_ENV, NODE_OPTIONS, ...).
      const TrustStatus status = TrustStore(store.state().trust()).status(*file, project->content);
      if (status != TrustStatus::trusted) {
        selection.withheld_env = make_error(
            "'" + util::to_utf8(*file) + "' sets variables ([env]) and " + describe(status) + ": they were not set",
            status == TrustStatus::symbolic_link
                ? "variables come only from a project file in its own folder"
                : "read it, then run 'cudnnenv trust' in '" + util::to_utf8(file->parent_path()) + "'");
        project->env.clear();
      }
    }
    selection.warnings = project->warnings;
    if (selection.withheld_env) {
      selection.warnings.push_back(selection.withheld_env->message + " (hint: " + selection.withheld_env->hint + ")");
    }
    selection.origin = Origin::project_file;
    selection.decided_by = util::to_utf8(*file);
    selection.project = *project;
    const std::optional<std::string> cuda = request.cuda ? request.cuda : project->cuda;
    if (project->path) {
      std::error_code ec;
      const fs::path folder = fs::weakly_canonical(file->parent_path() / util::path_from_utf8(*project->path), ec);
      selection.spec = *project->path;
      if (!inside(folder, fs::weakly_canonical(store.root(), ec))) {
        const TrustStatus status = TrustStore(store.state().trust()).status(*file, project->content);
        if (status != TrustStatus::trusted) {
          const std::string quoted = "'" + util::to_utf8(*file) + "'";
          return make_error(
              quoted + " points outside the store (path = '" + *project->path + "') and " + describe(status),
              status == TrustStatus::symbolic_link
                  ? "a project file that changes what loads must be a file of its own folder"
                  : "read it, then run 'cudnnenv trust' in '" + util::to_utf8(file->parent_path()) + "'");
        }
      }
      return finish(tree_from_folder(folder));
    }
    if (project->profile) {
      auto profile = find_profile(*project->profile, host_platform().os, config_files(store));
      if (!profile) {
        return make_error(selection.decided_by + ": " + profile.error().message, profile.error().hint,
                          ExitCode::not_found);
      }
      selection.spec = *project->profile;
      selection.profile = *profile;
      auto tree = satisfying_tree(*profile, store.list(RecordPart::identity).trees);
      if (!tree) {
        Error error = no_tree_for(*profile);
        error.message += ", which " + selection.decided_by + " asks for";
        return error;
      }
      if (!tree->tested) selection.warnings.push_back(untested_warning(*profile, *tree));
      return finish(std::move(tree->tree));
    }
    if (project->cudnn) {
      selection.spec = *project->cudnn;
      return finish(select(store, selection.spec, cuda, selection));
    }
    // A project file that names no tree (only [env], say) leaves the choice to the default.
  }
  // This user's default, else (a shared store this user cannot write) the store's own.
  CUDNNENV_TRY_ASSIGN(config, effective_config(store));
  if (config->default_spec) {
    selection.origin = Origin::global_default;
    selection.decided_by = util::to_utf8(config->default_file);
    selection.spec = *config->default_spec;
    return finish(select(store, selection.spec, request.cuda, selection));
  }
  // A project file that named nothing, and said why (`cudnnn = "9"`): its words in the error.
  std::string why;
  for (const auto& warning : selection.warnings) why += "; " + warning;
  return make_error("no cuDNN is selected here" + why,
                    "choose one: 'cudnnenv use <version> --global', 'cudnnenv use <version> --local' (writes "
                    ".cudnnenv.toml), or --cudnn <version>",
                    ExitCode::not_found);
}

Result<EffectiveConfig> effective_config(const Store& store) {
  return read_effective_config(config_files(store));
}

std::vector<fs::path> config_files(const Store& store) {
  std::vector<fs::path> files;
  if (!store.state_is_own()) files.push_back(store.own().config());
  files.push_back(store.state().config());
  return files;
}

std::string describe_origin(const Selection& selection) {
  switch (selection.origin) {
    case Origin::command_line:
      return "set by --cudnn";
    case Origin::environment:
      return "set by CUDNNENV_VERSION";
    case Origin::activation:
      return "set by 'cudnnenv activate' in this shell";
    case Origin::project_file:
      return "set by " + selection.decided_by;
    case Origin::global_default:
      return "set by " + selection.decided_by + ", the global default";
  }
  return "";
}

}  // namespace cudnnenv
