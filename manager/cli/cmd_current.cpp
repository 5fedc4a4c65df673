#include <algorithm>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "select/resolve.hpp"
#include "store/layout.hpp"
#include "store/runtime.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace {

struct SelectionArguments {
  std::string cudnn;
  std::string cuda;
  std::string runtime;
  bool json = false;
  bool all = false;
};

Result<Selection> resolve_here(const SelectionArguments& arguments, const Context& context) {
  return context.selection(context.request(arguments.cudnn, arguments.cuda, arguments.runtime));
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
  command->add_flag("--json", arguments.json, "print the result as JSON");
}

// The runtime tree selected with the cuDNN tree, null without one.
Json runtime_json(const Selection& selection) {
  if (!selection.runtime()) return nullptr;
  const TreeRecord& runtime = *selection.runtime();
  return Json{{"name", runtime.name},
              {"release", runtime.version.str()},
              {"decided_by", selection.runtime_reason()},
              {"location", util::to_utf8(runtime.root)},
              {"library_dir", util::to_utf8(runtime.resolve(runtime.layout.library_dir))}};
}

// Every runtime library file of the selected runtime tree, from its record.
std::vector<std::string> runtime_libraries(const Selection& selection, const Context& context) {
  std::vector<std::string> libraries;
  if (!selection.runtime()) return libraries;
  auto full = context.store().full_record(*selection.runtime());
  if (!full) return libraries;
  for (const auto& file : full->files) {
    if (is_runtime_library_name(file.path.substr(file.path.rfind('/') + 1), full->platform.os)) {
      libraries.push_back(util::to_utf8(full->resolve(file.path)));
    }
  }
  return libraries;
}

Result<int> run_current(const SelectionArguments& arguments, const Context& context) {
  CUDNNENV_TRY_ASSIGN(selection, resolve_here(arguments, context));
  const TreeRecord& tree = selection->tree;
  if (arguments.json) {
    print_json(Json{
        {"name", tree.name},
        {"version", tree.version.str()},
        {"cuda", tree.cuda ? Json(tree.cuda->str()) : Json(nullptr)},
        {"origin", origin_name(selection->origin)},
        {"door", selection->origin == Origin::activation ? Json(std::string(util::name_of(k_doors, selection->door)))
                                                         : Json(nullptr)},
        {"decided_by", or_null(selection->decided_by)},
        {"spec", or_null(selection->spec)},
        {"location", util::to_utf8(tree.root)},
        {"library", util::to_utf8(tree.library_path())},
        {"runtime", runtime_json(*selection)}});
    return 0;
  }
  print(tree.version.str() + "  " + tree.name + "  (" + describe_origin(*selection) + ")\n");
  if (selection->runtime()) {
    print("CUDA " + selection->runtime()->version.str() + "  " + selection->runtime()->name + "  (chosen by " +
          selection->runtime_reason() + ")\n");
  }
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
    std::sort(libraries.begin(), libraries.end());
  }
  const std::vector<std::string> runtime = runtime_libraries(*selection, context);
  if (arguments.json) {
    print_json(Json{{"libraries", libraries},
                    {"runtime", selection->runtime() ? Json(selection->runtime()->name) : Json(nullptr)},
                    {"runtime_libraries", runtime}});
    return 0;
  }
  for (const auto& library : libraries) {
    print(library + "\n");
  }
  for (const auto& library : runtime) {
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
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_which(*arguments, context); }; });
}

}  // namespace cudnnenv::cli
