#include "select/resolve.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <system_error>

#include "select/lock.hpp"
#include "select/profile.hpp"
#include "select/trust.hpp"
#include "store/component.hpp"
#include "store/layout.hpp"
#include "store/official.hpp"
#include "store/runtime.hpp"
#include "store/spec.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_nothing_selected = "no cuDNN is selected here";

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

std::string runtime_names(const std::vector<TreeRecord>& runtimes) {
  std::string names;
  for (const auto& runtime : runtimes) {
    names += (names.empty() ? "" : ", ") + runtime.name + " (CUDA " + runtime.version.str() + ")";
  }
  return names.empty() ? std::string("none") : names;
}

// Puts `tree` beside the selection's cuDNN tree, in the component table's order.
void add_beside(Selection& selection, const TreeRecord& tree, std::string reason) {
  auto at = std::find_if(selection.beside.begin(), selection.beside.end(), [&](const Selection::Beside& each) {
    return component_order(each.tree.kind) > component_order(tree.kind);
  });
  selection.beside.insert(at, {tree, std::move(reason)});
}

// The CUDA runtime beside a selection whose tree is chosen (Selection::beside's rule). Fails when a runtime
// is named and none installed is that one.
Result<void> choose_runtime_beside(const Store& store, const SelectionRequest& request, Selection& selection) {
  const auto runtimes = store.list(RecordPart::identity).runtimes();
  std::optional<std::string> named;
  std::string reason;
  std::optional<TreeRecord> runtime;
  const auto choose = [&](const TreeRecord& tree, std::string why) {
    spdlog::debug("runtime '{}' ({})", tree.name, why);
    add_beside(selection, tree, std::move(why));
  };
  if (request.runtime && !request.runtime->empty()) {
    named = *request.runtime;
    reason = "--runtime " + *request.runtime;
  } else if (request.cuda && is_cuda_release(*request.cuda)) {
    named = *request.cuda;
    reason = "--cuda " + *request.cuda;
  } else if (selection.origin == Origin::project_file && selection.project && selection.project->runtime &&
             !selection.locked_runtime) {
    named = *selection.project->runtime;
    reason = "runtime = \"" + *named + "\" in " + selection.decided_by;
  }
  if (named) {
    runtime = find_runtime(runtimes, *named);
    if (!runtime) {
      return make_error(
          "no installed CUDA runtime tree is '" + *named + "' (" + reason + "); installed: " + runtime_names(runtimes),
          is_cuda_release(*named) || parse_cuda_version(*named)
              ? "install it: cudnnenv install cuda " + util::command_word(*named)
              : std::string("name one of those, by its name or its release (13.0.2)"),
          ExitCode::not_found);
    }
    choose(*runtime, reason);
    return {};
  }
  if (selection.locked_runtime) {
    const std::string lock = selection.lock ? util::to_utf8(*selection.lock) : std::string("the lock");
    for (const auto& each : runtimes) {
      if (each.source.sha256 == selection.locked_runtime->manifest_sha256) {
        choose(each, "the runtime " + lock + " names");
        return {};
      }
    }
    return make_error("the locked CUDA runtime, CUDA " + util::printable(selection.locked_runtime->release) +
                          " (the manifest of SHA-256 " + selection.locked_runtime->manifest_sha256 +
                          "), is not installed (" + lock + ")",
                      "cudnnenv sync", ExitCode::not_found);
  }
  if (runtimes.empty()) return {};
  std::optional<CudaVersion> exact;
  // An activation in this shell keeps the runtime it put on the loader's list.
  if (selection.origin == Origin::activation && !(request.cuda && !request.cuda->empty())) {
    if (auto name = request.environment.get("CUDNNENV_CUDA_RUNTIME"); name && !name->empty()) {
      for (const auto& each : runtimes) {
        if (each.name != *name) continue;
        choose(each, "the activation in this shell (CUDNNENV_CUDA_RUNTIME)");
        return {};
      }
    }
  }
  if (request.cuda && !request.cuda->empty()) {
    exact = parse_cuda_version(*request.cuda);
    reason = "--cuda " + *request.cuda;
  } else if (selection.origin == Origin::project_file && selection.project && selection.project->cuda) {
    exact = parse_cuda_version(*selection.project->cuda);
    reason = "cuda = \"" + *selection.project->cuda + "\" in " + selection.decided_by;
  }
  if (exact) {
    runtime = choose_runtime(runtimes, exact, std::nullopt);
    if (!runtime) {
      selection.warnings.push_back("no installed CUDA runtime tree is CUDA " + exact->str() + " (" + reason +
                                   "; installed: " + runtime_names(runtimes) +
                                   "): programs find their CUDA libraries as they would without cudnnenv (hint: "
                                   "cudnnenv install cuda " +
                                   exact->str() + ")");
    }
  } else if (selection.profile && !selection.profile->cuda.empty()) {
    // A framework's tested CUDA, else any runtime of its major that has its libraries.
    const auto asked = parse_cuda_version(selection.profile->cuda);
    runtime = choose_runtime(runtimes, asked, std::nullopt);
    if (!runtime && asked) runtime = choose_runtime(runtimes, std::nullopt, asked->major);
    reason = "the profile " + selection.profile->name + " (CUDA " + selection.profile->cuda + ")";
  } else if (selection.tree.cuda) {
    runtime = paired_tree(TreeKind::cuda, selection.tree, runtimes);
    reason = "the CUDA major of '" + selection.tree.name + "'";
  }
  if (runtime) choose(*runtime, reason);
  return {};
}

// The tree of each row beside cuDNN but the runtime (NCCL, ...): the one
// named (its flag, its key in the deciding project file; absent: an error),
// the one the shell's activation put on the loader's list (the row's active
// variable, with CUDNNENV_ACTIVATED), else the row's pairing rule. Fails when
// one is named and none installed is that one.
Result<void> choose_components_beside(const Store& store, const SelectionRequest& request, Selection& selection) {
  const auto listing = store.list(RecordPart::identity);
  for (const ComponentRow* named_row : named_rows()) {
    const ComponentRow& row = *named_row;
    const auto trees = listing.of(row.kind);
    std::optional<std::string> named;
    std::string reason;
    bool by_project = false;
    if (auto flag = request.components.find(row.kind); flag != request.components.end() && !flag->second.empty()) {
      named = flag->second;
      reason = "--" + std::string(row.json_key) + " " + flag->second;
    } else if (selection.origin == Origin::project_file && selection.project) {
      if (auto key = selection.project->components.find(row.kind); key != selection.project->components.end()) {
        named = key->second;
        reason = std::string(row.json_key) + " = \"" + key->second + "\" in " + selection.decided_by;
        by_project = true;
      }
    }
    const auto locked = std::find_if(selection.locked_trees.begin(), selection.locked_trees.end(),
                                     [&](const LockedTree& each) { return each.kind == row.kind; });
    if (by_project && locked != selection.locked_trees.end()) {
      // The project file's name, locked: the tree installed from the locked file.
      const std::string lock = selection.lock ? util::to_utf8(*selection.lock) : std::string("the lock");
      const auto installed = std::find_if(trees.begin(), trees.end(),
                                          [&](const TreeRecord& each) { return each.source.sha256 == locked->sha256; });
      if (installed == trees.end()) {
        return make_error("the locked " + std::string(row.noun) + " " + util::printable(locked->release) + " (" +
                              util::printable(locked->file) + ") is not installed (" + lock + ")",
                          "cudnnenv sync", ExitCode::not_found);
      }
      add_beside(selection, *installed, "the " + std::string(row.noun) + " that " + lock + " names");
      continue;
    }
    if (named) {
      auto tree = find_component(trees, *named);
      if (!tree) {
        std::vector<std::string> installed;
        for (const auto& each : trees) installed.push_back(each.name + " (" + each.version.str() + ")");
        return make_error("no installed " + std::string(row.noun) + " tree is '" + *named + "' (" + reason +
                              "); installed: " + (installed.empty() ? "none" : util::join(installed, ", ")),
                          "name one of those, by its name or its release; 'cudnnenv adopt --kind " +
                              to_string(row.kind) + " FOLDER' takes one in",
                          ExitCode::not_found);
      }
      add_beside(selection, *tree, reason);
      continue;
    }
    if (selection.origin == Origin::activation) {
      if (auto name = request.environment.get(std::string(row.active_variable)); name && !name->empty()) {
        const auto kept =
            std::find_if(trees.begin(), trees.end(), [&](const TreeRecord& each) { return each.name == *name; });
        if (kept != trees.end()) {
          add_beside(selection, *kept, "the activation in this shell (" + std::string(row.active_variable) + ")");
          continue;
        }
      }
    }
    const std::string* asked = nullptr;
    if (selection.profile) {
      if (auto found = selection.profile->components.find(row.kind); found != selection.profile->components.end()) {
        asked = &found->second;
      }
    }
    if (asked) {
      // The release the framework opens, or none: a tree of another major would fence out the one it asks for.
      if (auto tree = find_component(trees, *asked)) {
        add_beside(selection, *tree,
                   "the profile " + selection.profile->name + " (" + std::string(row.noun) + " " + *asked + ")");
      }
      continue;
    }
    if (auto paired = paired_tree(row.kind, selection.tree, trees)) {
      add_beside(selection, *paired, "the CUDA major of '" + selection.tree.name + "'");
    }
  }
  return {};
}

}  // namespace

const TreeRecord* Selection::tree_of(TreeKind kind) const {
  if (kind == tree.kind) return &tree;
  for (const auto& each : beside) {
    if (each.tree.kind == kind) return &each.tree;
  }
  return nullptr;
}

std::string Selection::reason_of(TreeKind kind) const {
  for (const auto& each : beside) {
    if (each.tree.kind == kind) return each.reason;
  }
  return {};
}

std::vector<const TreeRecord*> Selection::trees() const {
  std::vector<const TreeRecord*> trees{&tree};
  for (const auto& each : beside) trees.push_back(&each.tree);
  return trees;
}

std::vector<TreeRecord> Selection::beside_trees() const {
  std::vector<TreeRecord> trees;
  for (const auto& each : beside) trees.push_back(each.tree);
  return trees;
}

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

namespace {

// Any [env] needs trust: no list of "dangerous" names is complete
// (LD_PRELOAD, PATH, PYTHONSTARTUP, BASH_ENV, NODE_OPTIONS, ...). An untrusted
// file's variables are dropped, and the selection says why.
void withhold_untrusted_env(const Store& store, const fs::path& file, ProjectFile& project, Selection& selection) {
  if (project.env.empty()) return;
  const TrustStatus status = TrustStore(store.state().trust()).status(file, project.content);
  if (status == TrustStatus::trusted) return;
  selection.withheld_env =
      make_error("'" + util::to_utf8(file) + "' sets variables ([env]) and " + describe(status) + ": they were not set",
                 status == TrustStatus::symbolic_link
                     ? "variables come only from a project file in its own folder"
                     : "read it, then run 'cudnnenv trust' in '" + util::to_utf8(file.parent_path()) + "'");
  project.env.clear();
}

// The tree a project file chooses: by path (outside the store only when
// trusted), by profile, or by version. The outer error is a refusal said as
// it is; an inner error gets the selection's origin; none: the file names no
// tree (only [env], say) and leaves the choice to the default.
Result<std::optional<Result<TreeRecord>>> project_tree(const Store& store, const SelectionRequest& request,
                                                       const fs::path& file, const ProjectFile& project,
                                                       Selection& selection) {
  if (project.path) {
    std::error_code ec;
    const fs::path folder = fs::weakly_canonical(file.parent_path() / util::path_from_utf8(*project.path), ec);
    selection.spec = *project.path;
    if (!inside(folder, fs::weakly_canonical(store.root(), ec))) {
      const TrustStatus status = TrustStore(store.state().trust()).status(file, project.content);
      if (status != TrustStatus::trusted) {
        return make_error("'" + util::to_utf8(file) + "' points outside the store (path = '" + *project.path +
                              "') and " + describe(status),
                          status == TrustStatus::symbolic_link
                              ? "a project file that changes what loads must be a file of its own folder"
                              : "read it, then run 'cudnnenv trust' in '" + util::to_utf8(file.parent_path()) + "'");
      }
    }
    return std::optional(tree_from_folder(folder));
  }
  if (project.profile) {
    auto profile = find_profile(*project.profile, host_platform().os, config_files(store));
    if (!profile) {
      return make_error(selection.decided_by + ": " + profile.error().message, profile.error().hint,
                        ExitCode::not_found);
    }
    selection.spec = *project.profile;
    selection.profile = *profile;
    auto tree = satisfying_tree(*profile, store.list(RecordPart::identity).trees);
    if (!tree) {
      Error error = no_tree_for(*profile);
      error.message += ", which " + selection.decided_by + " asks for";
      return error;
    }
    if (!tree->tested) selection.warnings.push_back(untested_warning(*profile, *tree));
    return std::optional<Result<TreeRecord>>(std::move(tree->tree));
  }
  if (project.cudnn) {
    selection.spec = *project.cudnn;
    return std::optional(select(store, selection.spec, request.cuda ? request.cuda : project.cuda, selection));
  }
  return std::optional<Result<TreeRecord>>();
}

// Whether `tree`, installed from the archive the lock names (its SHA-256),
// is also the build the lock and the project file name: the lock's version
// and CUDA variant, and what the project asks for. A record whose hash is
// the lock's but says another version (an archive installed under another
// name, a record edited) is not the locked build.
bool is_locked_build(const TreeRecord& tree, const LockedArchive& locked, const ProjectFile& project) {
  const auto version = parse_version(locked.version);
  if (!version || !tree.version.same_release(*version)) return false;
  if (version->build && tree.version.build && *version->build != *tree.version.build) return false;
  const std::string_view variant =
      util::starts_with(locked.cuda, "cuda") ? std::string_view(locked.cuda).substr(4) : std::string_view(locked.cuda);
  const auto cuda = parse_cuda_version(variant);
  const auto built = tree.cuda_variant ? tree.cuda_variant : tree.cuda;
  if (cuda &&
      (!built || built->major != cuda->major || (built->minor && cuda->minor && *built->minor != *cuda->minor))) {
    return false;
  }
  if (project.cudnn) {
    const auto spec = parse_spec(*project.cudnn, project.cuda);
    if (spec && !fits(*spec, tree)) return false;
  }
  return true;
}

// The project's lock, when one is beside its file: the tree installed from
// the locked archive of this platform (by the archive's SHA-256, and of the
// lock's version and CUDA: is_locked_build), in place of the newest that
// fits; another user's lock is not read. A lock made from other words than the file says now
// is not used (a warning says so); a locked build not installed is an error
// whose fix is `cudnnenv sync`. None: `chosen` as it is.
Result<std::optional<Result<TreeRecord>>> apply_lock(const Store& store, const fs::path& file,
                                                     const ProjectFile& project, Selection& selection,
                                                     std::optional<Result<TreeRecord>> chosen) {
  if (!chosen || project.path) return chosen;
  const fs::path lock_file = lock_path_for(file);
  std::error_code ec;
  if (!fs::exists(lock_file, ec)) return chosen;
  // As the project file itself (find_project_file): another user's lock in a shared folder locks nothing here.
  if (const auto owner = util::foreign_owner(lock_file)) {
    selection.warnings.push_back("'" + util::to_utf8(lock_file) + "' belongs to another user (uid " +
                                 std::to_string(*owner) + "): it was not used");
    return chosen;
  }
  CUDNNENV_TRY_ASSIGN(lock, read_lock(lock_file));
  if (const auto differences = lock_differences(lock->input, lock_input_of(project)); !differences.empty()) {
    selection.warnings.push_back("'" + util::to_utf8(lock_file) + "' is out of date (" + util::join(differences, "; ") +
                                 "): it was not used (hint: 'cudnnenv lock' writes it again)");
    return chosen;
  }
  const std::string here = official_platform(host_platform());
  const LockedArchive* locked = lock->for_platform(here);
  if (!locked) {
    return make_error(
        "'" + util::to_utf8(lock_file) + "' locks no build for " + (here.empty() ? "this platform" : here),
        "add \"" + here + "\" to [lock] platforms in '" + util::to_utf8(file) + "', then run 'cudnnenv lock'",
        ExitCode::not_found);
  }
  selection.lock = lock_file;
  if (const LockedRuntime* runtime = lock->runtime_for(here)) selection.locked_runtime = *runtime;
  for (const auto& tree : lock->trees) {
    if (tree.platform == here) selection.locked_trees.push_back(tree);
  }
  for (auto& tree : store.list(RecordPart::identity).trees) {
    if (tree.source.sha256 == locked->sha256 && is_locked_build(tree, *locked, project)) {
      return std::optional<Result<TreeRecord>>(std::move(tree));
    }
  }
  return std::optional<Result<TreeRecord>>(make_error("the locked build, cuDNN " + util::printable(locked->version) +
                                                          " (" + util::printable(locked->cuda) + ", " +
                                                          util::printable(locked->file) + "), is not installed",
                                                      "cudnnenv sync", ExitCode::not_found));
}

}  // namespace

Result<Selection> resolve_selection(const Store& store, const SelectionRequest& asked) {
  // A full release given to --cuda ("13.0.2") names the runtime tree too
  // (choose_runtime_beside); cuDNN trees are matched by its major.minor.
  SelectionRequest request = asked;
  if (request.cuda && is_cuda_release(*request.cuda)) {
    const Version release = *parse_version(*request.cuda);
    request.cuda = std::to_string(release.major) + "." + std::to_string(release.minor);
  }
  Selection selection;
  auto finish = [&](Result<TreeRecord> tree) -> Result<Selection> {
    if (!tree) {
      Error error = std::move(tree).error();
      error.message += " (" + describe_origin(selection) + ")";
      return error;
    }
    selection.tree = std::move(*tree);
    spdlog::debug("selected '{}' ({}; spec '{}')", selection.tree.name, describe_origin(selection), selection.spec);
    CUDNNENV_TRY(choose_runtime_beside(store, asked, selection));
    CUDNNENV_TRY(choose_components_beside(store, asked, selection));
    return selection;
  };

  // Before any file: the command line, the shell's version, the shell's activation.
  const std::pair<Origin, std::optional<std::string>> named[] = {
      {Origin::command_line, request.cudnn},
      {Origin::environment, request.environment.get("CUDNNENV_VERSION")},
      {Origin::activation, request.environment.get(k_activated_variable)}};
  const char* const names[] = {"--cudnn", "CUDNNENV_VERSION", k_activated_variable};
  for (std::size_t i = 0; i < std::size(named); ++i) {
    const auto& [origin, spec] = named[i];
    if (spec && !spec->empty()) {
      selection.origin = origin;
      selection.decided_by = names[i];
      selection.spec = *spec;
      selection.by_use = origin == Origin::environment && request.environment.get("CUDNNENV_SHELL").has_value();
      if (origin == Origin::activation) {
        selection.door =
            util::parse_name(k_doors, request.environment.get(k_door_variable).value_or("")).value_or(Door::activate);
      }
      return finish(select(store, selection.spec, request.cuda, selection));
    }
    spdlog::trace("selection: no {}", names[i]);
  }
  spdlog::trace("selection: next a .cudnnenv.toml in '{}' or above", util::to_utf8(request.working_directory));
  if (auto file = find_project_file(request.working_directory)) {
    CUDNNENV_TRY_ASSIGN(project, read_project_file(*file));
    withhold_untrusted_env(store, *file, *project, selection);
    selection.warnings = project->warnings;
    if (selection.withheld_env) {
      selection.warnings.push_back(selection.withheld_env->message + " (hint: " + selection.withheld_env->hint + ")");
    }
    selection.origin = Origin::project_file;
    selection.decided_by = util::to_utf8(*file);
    selection.project = *project;
    CUDNNENV_TRY_ASSIGN(chosen, project_tree(store, request, *file, *project, selection));
    CUDNNENV_TRY_ASSIGN(tree, apply_lock(store, *file, *project, selection, std::move(*chosen)));
    if (*tree) return finish(std::move(**tree));
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
  return make_error(std::string(k_nothing_selected) + why,
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

bool is_nothing_selected(const Error& error) {
  return error.code == ExitCode::not_found && util::starts_with(error.message, k_nothing_selected);
}

std::string describe_origin(const Selection& selection) {
  switch (selection.origin) {
    case Origin::command_line:
      return "set by --cudnn";
    case Origin::environment:
      return selection.by_use ? "set by 'cudnnenv use' in this shell" : "set by CUDNNENV_VERSION";
    case Origin::activation:
      switch (selection.door) {
        case Door::activate:
          return "set by 'cudnnenv activate' in this shell";
        case Door::module:
          return "set by the cudnn module ('module load') in this shell";
        case Door::conda:
          return "set by the conda env's hook ('conda activate') in this shell";
        case Door::direnv:
          return "set by direnv (.envrc) in this shell";
        case Door::profile:
          return "set by the profile's activate script in this shell";
        case Door::terminal:
          return "set by the terminal profile's script in this shell";
        case Door::slurm:
          return "set by Slurm (srun --cudnn, or the task prolog) for this job's task";
      }
      return "";
    case Origin::project_file:
      return "set by " + selection.decided_by +
             (selection.lock ? ", the build " + util::to_utf8(*selection.lock) + " names" : std::string());
    case Origin::global_default:
      return "set by " + selection.decided_by + ", the global default";
  }
  return "";
}

std::vector<std::string> selecting_tree(const Store& store, const TreeRecord& tree,
                                        const SelectionRequest& here_request) {
  std::vector<std::string> found;
  const auto chooses = [&](const Selection& selection) {
    const TreeRecord* chosen = selection.tree_of(tree.kind);
    return chosen && chosen->name == tree.name;
  };
  const auto as_what = [&](const Selection& selection, const std::string& who) {
    return selection.tree.name == tree.name
               ? who
               : "with '" + selection.tree.name + "' (" + who + "; chosen by " + selection.reason_of(tree.kind) + ")";
  };
  const auto selection_of = [&](const std::string& spec) {
    return resolve_selection(store,
                             SelectionRequest{spec, std::nullopt, {}, here_request.working_directory, std::nullopt});
  };
  auto here = resolve_selection(store, here_request);
  if (here && chooses(*here)) found.push_back(as_what(*here, describe_origin(*here)));
  if (!(here && here->origin == Origin::global_default)) {
    if (auto config = effective_config(store); config && config->default_spec) {
      if (auto selection = selection_of(*config->default_spec); selection && chooses(*selection)) {
        found.push_back(as_what(*selection, "the global default in " + util::to_utf8(config->default_file)));
      }
    }
  }
  if (tree.kind == TreeKind::cudnn) return found;
  std::string profiles;
  int count = 0;
  if (auto all = all_profiles(host_platform().os, config_files(store))) {
    for (const auto& profile : *all) {
      if (auto selection = selection_of(profile.name); selection && chooses(*selection)) {
        profiles += (profiles.empty() ? "" : ", ") + profile.name + " ('" + selection->tree.name + "')";
        ++count;
      }
    }
  }
  if (count > 0) found.push_back(std::string(count == 1 ? "with the profile " : "with the profiles ") + profiles);
  return found;
}

}  // namespace cudnnenv
