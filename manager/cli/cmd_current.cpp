#include <algorithm>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "select/framework.hpp"
#include "select/resolve.hpp"
#include "store/component.hpp"
#include "store/layout.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace {

struct SelectionArguments {
  std::string cudnn;
  std::string cuda;
  std::string runtime;
  std::map<TreeKind, std::string> components;  // --nccl, ...
  bool json = false;
  bool all = false;
  bool dev_links = false;  // which --all: also libcudnn.so and the like, which only the linker reads
};

// A development link: the unversioned name (libcudnn.so) the linker reads
// for -lcudnn; no program loads it.
bool is_dev_link(const std::string& path) {
  return util::ends_with(path, ".so");
}

// `files` sorted, development links left out unless asked for.
std::vector<std::string> listed(std::vector<std::string> files, bool dev_links) {
  if (!dev_links) std::erase_if(files, is_dev_link);
  std::sort(files.begin(), files.end());
  return files;
}

Result<Selection> resolve_here(const SelectionArguments& arguments, const Context& context) {
  return context.selection(context.request(arguments.cudnn, arguments.cuda, arguments.runtime, arguments.components));
}

std::string origin_name(Origin origin) {
  switch (origin) {
    case Origin::command_line:
      return "command_line";
    case Origin::environment:
      return "environment";
    case Origin::activation:
      return "activation";
    case Origin::project_file:
      return "project_file";
    case Origin::global_default:
      return "global_default";
  }
  return "";
}

void add_selection_options(CLI::App* command, SelectionArguments& arguments) {
  command->add_option("--cudnn", arguments.cudnn, "decide here instead of the environment and files");
  command->add_option("--cuda", arguments.cuda,
                      "CUDA version the tree must be built for; a full release (13.0.2) also names the runtime tree");
  command->add_option("--runtime", arguments.runtime, "the CUDA runtime tree: its name or release (13.0.2, 13.0)");
  add_component_options(*command, arguments.components, "beside it");
  command->add_flag("--json", arguments.json, "print the result as JSON");
}

// A tree selected beside the cuDNN tree, for --json.
Json beside_json(const Selection::Beside& beside) {
  const TreeRecord& tree = beside.tree;
  return Json{{"name", tree.name},
              {"release", tree.version.str()},
              {"decided_by", beside.reason},
              {"location", util::to_utf8(tree.root)},
              {"library_dir", util::to_utf8(tree.resolve(tree.layout.library_dir))}};
}

// Every library file of `tree` (its component's names), from its full record.
std::vector<std::string> library_files(const TreeRecord& tree, const Context& context) {
  std::vector<std::string> libraries;
  auto full = context.store().full_record(tree);
  if (!full) return libraries;
  for (const auto& file : full->files) {
    if (component(tree.kind).library_name(file.path.substr(file.path.rfind('/') + 1), full->platform.os)) {
      libraries.push_back(util::to_utf8(full->resolve(file.path)));
    }
  }
  return libraries;
}

Result<int> run_current(const SelectionArguments& arguments, const Context& context) {
  CUDNNENV_TRY_ASSIGN(selection, resolve_here(arguments, context));
  const TreeRecord& tree = selection->tree;
  // What the selection's framework opens that nothing here provides, as a
  // program started from this shell would search (exec and doctor say it too).
  const auto unprovided = unprovided_framework_libraries(*selection, context.environment, host_platform().os);
  if (arguments.json) {
    Json json{
        {"name", tree.name},
        {"version", tree.version.str()},
        {"cuda", tree.cuda ? Json(tree.cuda->str()) : Json(nullptr)},
        {"origin", origin_name(selection->origin)},
        {"door", selection->origin == Origin::activation ? Json(std::string(util::name_of(k_doors, selection->door)))
                                                         : Json(nullptr)},
        {"decided_by", or_null(selection->decided_by)},
        {"spec", or_null(selection->spec)},
        {"location", util::to_utf8(tree.root)},
        {"library", util::to_utf8(tree.library_path())}};
    // Each other component's key: its tree, or null.
    for (const ComponentRow& row : components()) {
      if (row.kind != TreeKind::cudnn) json[std::string(row.json_key)] = nullptr;
    }
    for (const auto& beside : selection->beside) {
      json[std::string(component(beside.tree.kind).json_key)] = beside_json(beside);
    }
    json["unprovided"] = unprovided ? Json{{"framework", unprovided->framework},
                                           {"profile", unprovided->profile},
                                           {"libraries", unprovided->names},
                                           {"fix", unprovided->fix}}
                                    : Json(nullptr);
    print_json(json);
    return 0;
  }
  print(tree.version.str() + "  " + tree.name + "  (" + describe_origin(*selection) + ")\n");
  for (const auto& beside : selection->beside) {
    print(std::string(component(beside.tree.kind).short_noun) + " " + beside.tree.version.str() + "  " +
          beside.tree.name + "  (chosen by " + beside.reason + ")\n");
  }
  if (unprovided) print("no CUDA runtime: " + unprovided->describe() + "\n  fix: " + unprovided->fix + "\n");
  return 0;
}

Result<int> run_which(const SelectionArguments& arguments, const Context& context) {
  CUDNNENV_TRY_ASSIGN(selection, resolve_here(arguments, context));
  TreeRecord tree = selection->tree;
  if (!arguments.all) {
    const std::string library = util::to_utf8(tree.library_path());
    std::error_code ec;
    if (!std::filesystem::is_regular_file(tree.library_path(), ec)) {
      return make_error(
          "'" + library + "', the library of '" + tree.name + "', is missing",
          "the tree is damaged: 'cudnnenv verify " + util::command_word(tree.name) + "' says what else is gone",
          ExitCode::verify_failed);
    }
    if (arguments.json) {
      print_json(Json{{"library", library}});
    } else {
      print(library + "\n");
    }
    return 0;
  }
  // Every library file of the tree, from its full record.
  std::vector<std::string> libraries;
  if (auto full = context.store().full_record(tree); full && selection->origin != Origin::project_file) {
    for (const auto& file : full->files) {
      if (is_cudnn_library_name(file.path.substr(file.path.rfind('/') + 1), tree.platform.os)) {
        libraries.push_back(util::to_utf8(full->resolve(file.path)));
      }
    }
  } else {
    // A tree given by path in a trusted project file has no record: list its library folder.
    for (const auto& entry : util::directory_entries(tree.resolve(tree.layout.library_dir))) {
      if (is_cudnn_library_name(util::to_utf8(entry.path.filename()), tree.platform.os)) {
        libraries.push_back(util::to_utf8(entry.path));
      }
    }
  }
  libraries = listed(std::move(libraries), arguments.dev_links);
  Json json{{"libraries", libraries}};
  // Each other component's: its tree's name (or null) and its library files.
  for (const ComponentRow& row : components()) {
    if (row.kind == TreeKind::cudnn) continue;
    const TreeRecord* beside = selection->tree_of(row.kind);
    const auto files =
        listed(beside ? library_files(*beside, context) : std::vector<std::string>(), arguments.dev_links);
    json[std::string(row.json_key)] = beside ? Json(beside->name) : Json(nullptr);
    json[std::string(row.json_key) + "_libraries"] = files;
    libraries.insert(libraries.end(), files.begin(), files.end());
  }
  if (arguments.json) {
    print_json(json);
    return 0;
  }
  for (const auto& library : libraries) {
    print(library + "\n");
  }
  return 0;
}

}  // namespace

void register_current(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<SelectionArguments>();
  CLI::App* command = app.add_subcommand("current", "the selected cuDNN here, and what decided it");
  add_selection_options(command, *arguments);
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_current(*arguments, context); }; });
}

void register_which(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<SelectionArguments>();
  CLI::App* command = app.add_subcommand("which", "the library file a pinned program would load (--all: every one)");
  add_selection_options(command, *arguments);
  command->add_flag("--all", arguments->all,
                    "every cuDNN library file of the selected tree, then those of the CUDA runtime selected with it");
  command->add_flag("--dev-links", arguments->dev_links,
                    "with --all: also the unversioned links (libcudnn.so) that only a linker reads");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_which(*arguments, context); }; });
}

}  // namespace cudnnenv::cli
