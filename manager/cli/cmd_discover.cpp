#include "cli/context.hpp"
#include "cli/output.hpp"
#include "discover/discover.hpp"
#include "doctor/facts.hpp"
#include "store/spec.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace {

struct DiscoverArguments {
  bool json = false;
  bool no_load = false;
};

Result<int> run_discover(const DiscoverArguments& arguments, const Context& context) {
  DiscoverContext discover_context;
  discover_context.environment = context.environment;
  // The Python that runs, as doctor finds it (through cudnnenv's and a version
  // manager's shims; ./.venv): its wheels' cuDNN with or without VIRTUAL_ENV.
  const Os os = host_platform().os;
  const ProgramInfo python =
      find_program_that_runs("python", context.environment, context.store().state().shims(), os, !arguments.no_load);
  discover_context.site_packages = site_packages_of(python.target, context.environment, os);
  if (!arguments.no_load) {
    discover_context.probe = context.probe();
  }
  auto copies = discover(discover_context);
  // A copy that is a tree of the store (installed, or adopted where it is):
  // the version as list shows it, the build number its archive or wheel named.
  std::vector<std::string> tree_of(copies.size());
  const auto trees = context.store().list(RecordPart::identity).trees;
  for (std::size_t i = 0; i < copies.size(); ++i) {
    for (const auto& tree : trees) {
      if (!util::same_file(tree.library_path(), copies[i].library)) continue;
      tree_of[i] = tree.name;
      if (copies[i].version && tree.version.same_release(*copies[i].version) && tree.version.build) {
        copies[i].version = tree.version;
      }
      break;
    }
  }
  if (arguments.json) {
    Json array = Json::array();
    for (const auto& copy : copies) {
      array.push_back(Json{{"library", util::to_utf8(copy.library)},
                           {"major", copy.major},
                           {"version", copy.version ? Json(copy.version->str()) : Json(nullptr)},
                           {"version_from", or_null(copy.version_from)},
                           {"cuda", copy.cuda ? Json(copy.cuda->str()) : Json(nullptr)},
                           {"found_via", copy.found_via},
                           {"loaded_by_name", copy.loaded_by_name},
                           {"note", or_null(copy.note)},
                           {"tree", or_null(tree_of[static_cast<std::size_t>(&copy - copies.data())])}});
    }
    print_json(array);
    return 0;
  }
  if (copies.empty()) {
    print_diagnostic("no cuDNN library found on this machine\n  hint: " + install_suggestion() + "\n");
    return static_cast<int>(ExitCode::not_found);
  }
  for (const auto& copy : copies) {
    std::string line = (copy.loaded_by_name ? "* " : "  ") +
                       (copy.version ? copy.version->str() : std::string("?.?.?")) + "  " + util::to_utf8(copy.library);
    line += "  (";
    line += copy.version_from.empty() ? "version unknown" : "version from " + copy.version_from;
    if (copy.cuda) {
      line += ", CUDA " + copy.cuda->str();
    }
    line += "; found via " + util::join(copy.found_via, ", ");
    const std::string& tree = tree_of[static_cast<std::size_t>(&copy - copies.data())];
    line += (tree.empty() ? std::string() : "; the store's tree '" + tree + "'") + ")";
    print(line + "\n");
    if (!copy.note.empty()) {
      print("      note: " + copy.note + "\n");
    }
  }
  print("* = the copy a program without its own search path loads by name\n");
  return 0;
}

}  // namespace

void register_discover(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<DiscoverArguments>();
  CLI::App* command = app.add_subcommand(
      "discover", "find every cuDNN copy on this machine, its real version, and which one loads by default");
  command->add_flag("--json", arguments->json, "print the copies as a JSON array");
  command->add_flag("--no-load", arguments->no_load,
                    "read versions from headers and file names only; never load a library (a copy others could "
                    "have replaced is never loaded)");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_discover(*arguments, context); }; });
}

}  // namespace cudnnenv::cli
