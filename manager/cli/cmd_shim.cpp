#include <filesystem>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "formats/platform.hpp"
#include "pin/launch.hpp"
#include "pin/shims.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

struct ShimArguments {
  std::string name;
  std::string target;
  std::string args;
  bool json = false;
};

// args as the launcher splits them (on spaces and tabs, no quoting).
Json shim_json(const ShimInfo& info) {
  Json args = Json::array();
  for (const auto& word : util::split(info.args, ' ')) {
    for (const auto& part : util::split(word, '\t')) {
      if (!part.empty()) args.push_back(part);
    }
  }
  return Json{{"name", info.name},
              {"file", util::to_utf8(info.file)},
              {"target", or_null(info.target)},
              {"args", std::move(args)},
              {"broken", info.broken},
              {"problem", info.broken ? Json(info.problem) : Json(nullptr)}};
}

Result<int> run_add(const ShimArguments& arguments, const Context& context) {
  ShimSpec spec;
  spec.name = arguments.name;
  if (!arguments.target.empty()) {
    spec.target = util::path_from_utf8(arguments.target);
  }
  spec.args = arguments.args;
  const ShimPaths paths = shim_paths(context.store());
  CUDNNENV_TRY_ASSIGN(added, add_shim(spec, paths));
  if (arguments.json) {
    print_json(shim_json(*added));
    return 0;
  }
  print("added shim '" + added->name + "': " + util::to_utf8(added->file) + " starts " +
        (added->target.empty() ? "the first '" + added->name + "' on PATH after the shims folder" : added->target) +
        ", pinned to the tree selected where it runs\n");
  if (const auto note = context.state_elsewhere_note("the shim")) print_note(*note);
  if (added->target.empty() && !find_program(added->name, context.environment, {paths.shims_dir})) {
    log_warning("no '" + added->name +
                "' is on PATH yet (after the shims folder): the shim fails with exit "
                "code 127 until one is, or until it is given the program with --target");
  }
  const std::string path = context.environment.get("PATH").value_or("");
  if (path.find(util::to_utf8(paths.shims_dir)) == std::string::npos) {
    print("put '" + util::to_utf8(paths.shims_dir) + "' first on PATH ('cudnnenv init' does it)\n");
  }
  return 0;
}

Result<int> run_remove(const ShimArguments& arguments, const Context& context) {
  CUDNNENV_TRY(remove_shim(arguments.name, shim_paths(context.store())));
  print("removed shim '" + arguments.name + "'\n");
  return 0;
}

Result<int> run_list(const ShimArguments& arguments, const Context& context) {
  const auto shims = list_shims(shim_paths(context.store()));
  if (arguments.json) {
    Json array = Json::array();
    for (const auto& info : shims) array.push_back(shim_json(info));
    print_json(array);
    return 0;
  }
  for (const auto& info : shims) {
    print(info.name + "  " + (info.target.empty() ? "(first on PATH)" : info.target) +
          (info.args.empty() ? "" : "  args: " + info.args) + (info.broken ? "  BROKEN: " + info.problem : "") + "\n");
  }
  return 0;
}

}  // namespace

void register_shim(CLI::App& app, Context& context) {
  CLI::App* shim = app.add_subcommand(
      "shim", "launchers in <root>/.cudnnenv/shims that start a program pinned to the tree selected where it runs");
  shim->require_subcommand(1);

  auto add_arguments = std::make_shared<ShimArguments>();
  CLI::App* add = shim->add_subcommand("add", "create or replace the shim NAME (python, jupyter, ...)");
  add->add_option("name", add_arguments->name, "the program's name, as typed")->required();
  add->add_option("--target", add_arguments->target,
                  "the program to start (default: the first NAME on PATH after the shims folder, found at each start)");
  add->add_option("--args", add_arguments->args, "arguments put before the user's (split on spaces)");
  add->add_flag("--json", add_arguments->json, "print the shim as JSON");
  add->callback([add_arguments, &context] {
    context.action = [add_arguments, &context] { return run_add(*add_arguments, context); };
  });

  auto remove_arguments = std::make_shared<ShimArguments>();
  CLI::App* remove = shim->add_subcommand("remove", "delete the shim NAME and its .shim file");
  remove->add_option("name", remove_arguments->name, "the shim's name")->required();
  remove->callback([remove_arguments, &context] {
    context.action = [remove_arguments, &context] { return run_remove(*remove_arguments, context); };
  });

  auto list_arguments = std::make_shared<ShimArguments>();
  CLI::App* list = shim->add_subcommand("list", "the shims and what each starts");
  list->add_flag("--json", list_arguments->json, "print them as a JSON array");
  list->callback([list_arguments, &context] {
    context.action = [list_arguments, &context] { return run_list(*list_arguments, context); };
  });
}

}  // namespace cudnnenv::cli
