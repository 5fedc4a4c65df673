#include "cli/context.hpp"
#include "cli/output.hpp"
#include "store/component.hpp"
#include "store/layout.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace {

struct AdoptArguments {
  std::string directory;
  std::string name;
  bool json = false;
  bool runtime = false;
  bool heal = false;
  bool allow_foreign = false;
  std::string kind;  // a component's word (components.inc): cudnn, cuda
};

// What `arguments` adopt: --kind, --runtime (cuda); else cuDNN when the
// folder holds it, else the first other component whose libraries it holds
// (a toolkit's lib64, a pip nvidia/cu13/lib: a CUDA runtime).
Result<TreeKind> kind_to_adopt(const AdoptArguments& arguments, const std::filesystem::path& directory) {
  if (!arguments.kind.empty()) {
    if (const auto kind = parse_tree_kind(arguments.kind)) return *kind;
    std::string words;
    for (const ComponentRow& row : components()) words += (words.empty() ? "" : ", ") + to_string(row.kind);
    return make_error("'" + util::printable(arguments.kind) + "' is no kind of tree", "give one of " + words,
                      ExitCode::usage);
  }
  if (arguments.runtime) return TreeKind::cuda;
  const Os os = host_platform().os;
  if (locate_layout(directory, os)) return TreeKind::cudnn;
  for (const ComponentRow& row : components()) {
    if (row.trees && row.trees->locate_layout(directory, os)) return row.kind;
  }
  return TreeKind::cudnn;  // adopt says what is missing
}

// A tree adopted from a folder another user can change would load what they
// put there into every program that selects it, root's doors (slurm health,
// the task prolog, export cdi) included: refused unless --allow-foreign, and
// then said. Checked before the adoption (the folder) and after it (the
// files it recorded: a refusal then forgets the tree again).
Result<void> check_foreign(const AdoptArguments& arguments, const std::filesystem::path& directory,
                           const Context& context, const TreeRecord* tree = nullptr) {
  if (tree && util::changeable_by_others(directory)) return {};  // the folder's answer was given before
  const auto why = tree ? changeable_by_others(*tree) : util::changeable_by_others(directory);
  if (!why) return {};
  const std::string words = "'" + util::printable(arguments.directory) + "' can be changed by another user (" +
                            util::printable(*why) + "): whatever they put there would load in every program that " +
                            "selects the tree";
  if (arguments.allow_foreign) {
    context.warner()(words + "; adopted as --allow-foreign asks");
    return {};
  }
  if (tree) (void)context.store().remove(*tree);
  return make_error(words,
                    "copy it into the store instead: cudnnenv install " + util::command_word(arguments.directory) +
                        "; or, if you trust whoever can change it: " + "cudnnenv adopt " +
                        util::command_word(arguments.directory) + " --allow-foreign",
                    ExitCode::usage);
}

Result<int> run_adopt(const AdoptArguments& arguments, const Context& context) {
  AdoptOptions options;
  if (!arguments.name.empty()) {
    options.name = arguments.name;
  }
  options.probe = context.probe();
  options.warn = context.warner();
  options.heal = arguments.heal;
  const auto directory = util::path_from_utf8(arguments.directory);
  CUDNNENV_TRY_ASSIGN(kind, kind_to_adopt(arguments, directory));
  CUDNNENV_TRY(check_foreign(arguments, directory, context));
  if (*kind != TreeKind::cudnn) {
    CUDNNENV_TRY_ASSIGN(runtime, context.store().adopt_component(*kind, directory, options));
    CUDNNENV_TRY(check_foreign(arguments, directory, context, &*runtime));
    if (arguments.json) {
      print_json(tree_to_json(*runtime));
      return 0;
    }
    const std::string what = *kind == TreeKind::cuda
                                 ? "CUDA " + (runtime->cuda ? runtime->cuda->str() : std::string("?")) + " runtime"
                                 : std::string(component(*kind).noun) + " " + runtime->version.str();
    print("adopted '" + runtime->name + "': " + what + ", " + std::to_string(runtime->files.size()) +
          (runtime->files.size() == 1 ? " library file stays in " : " library files stay in ") +
          (runtime->location ? util::to_utf8(runtime->resolve(runtime->layout.library_dir))
                             : runtime->source.path + " (linked from one folder, " +
                                   util::to_utf8(runtime->resolve(runtime->layout.library_dir)) + ")") +
          "\n");
    return 0;
  }
  CUDNNENV_TRY_ASSIGN(record, context.store().adopt(directory, options));
  CUDNNENV_TRY(check_foreign(arguments, directory, context, &*record));
  if (arguments.json) {
    print_json(tree_to_json(*record));
    return 0;
  }
  if (!record->source.healed_from.empty()) {
    print("adopted '" + record->name + "': cuDNN " + record->version.str() +
          (record->cuda ? ", CUDA " + record->cuda->str() : std::string()) + ", healed: the files of " +
          record->source.path + " and what it lacked from '" + record->source.healed_from + "', linked from " +
          util::to_utf8(record->resolve(record->layout.library_dir)) + "\n");
    print("  library: " + util::to_utf8(record->library_path()) + "\n");
    return 0;
  }
  print("adopted '" + record->name + "': cuDNN " + record->version.str() +
        (record->cuda ? ", CUDA " + record->cuda->str() : std::string()) + ", files stay in " +
        util::to_utf8(record->root) + "\n");
  print("  library: " + util::to_utf8(record->library_path()) + "\n");
  return 0;
}

}  // namespace

void register_adopt(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<AdoptArguments>();
  CLI::App* command = app.add_subcommand(
      "adopt", "register a cuDNN tree that stays where it is (CUDA toolkit folder, site-packages, system folder)");
  command->add_option("directory", arguments->directory, "the folder holding the cuDNN libraries")->required();
  command->add_option("--name", arguments->name,
                      "the name to list it under (default: version and CUDA, as install names trees)");
  command->add_flag("--json", arguments->json, "print the result as JSON");
  command->add_flag("--runtime", arguments->runtime,
                    "adopt the folder's CUDA runtime libraries (cudart, cuBLAS, ...) as a runtime tree (the default "
                    "for a folder with them and no cuDNN; --kind cuda)");
  std::string kinds;
  for (const ComponentRow& row : components()) {
    kinds += (kinds.empty() ? "" : ", ") + to_string(row.kind) + " (" + std::string(row.noun) + ")";
  }
  command->add_option("--kind", arguments->kind, "what the folder's tree is: " + kinds);
  command->add_flag("--allow-foreign", arguments->allow_foreign,
                    "adopt a folder another user can change (its owner, or its group or everyone can write it): "
                    "what they put there then loads wherever the tree is selected");
  command->add_flag("--heal", arguments->heal,
                    "a folder lacking libraries of its release (a wheel without cudnn_engines_tensor_ir; a CUDA "
                    "runtime without the libcublasLt.so.13 its libcublas.so.13 needs): a store folder of links to "
                    "its files plus the missing ones from a tree of the same release (and CUDA) in the store");
  command->footer(
      "Examples:\n"
      "  cudnnenv adopt /usr/local/cuda-12.2                  the cuDNN copied into a toolkit\n"
      "  cudnnenv adopt .venv/lib/python3.12/site-packages/nvidia/cu13/lib   PyTorch's CUDA 13 runtime\n"
      "  cudnnenv adopt /usr/local/cuda-12.2/lib64 --runtime  a toolkit's runtime libraries\n"
      "  cudnnenv adopt --heal .venv/lib/python3.12/site-packages/nvidia/cudnn   a wheel missing a sub-library\n"
      "  cudnnenv adopt --heal .venv/lib/python3.12/site-packages/nvidia/cu13    a runtime missing a library");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_adopt(*arguments, context); }; });
}

}  // namespace cudnnenv::cli
