#include "cli/context.hpp"
#include "cli/output.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace {

struct InstallArguments {
  std::string source;
  std::string name;
  bool require_official = false;
  bool json = false;
  std::uint64_t max_unpacked = ExtractLimits::k_default_max_bytes;
  std::uint64_t max_ratio = ExtractLimits::k_default_max_ratio;
};

std::string summary(const TreeRecord& record) {
  std::string text = "cuDNN " + record.version.str();
  text += record.cuda ? ", CUDA " + record.cuda->str() : ", CUDA unknown";
  text += ", " + describe(record.platform) + ", " + util::human_size(record.total_size());
  return text;
}

Result<int> run_install(const InstallArguments& arguments, const Context& context) {
  InstallOptions options;
  if (!arguments.name.empty()) {
    options.name = arguments.name;
  }
  options.require_official = arguments.require_official ? RequireOfficial::yes : RequireOfficial::no;
  options.probe = context.probe();
  options.warn = context.warner();
  options.limits.max_bytes = arguments.max_unpacked;
  options.limits.max_ratio = arguments.max_ratio;
  CUDNNENV_TRY_ASSIGN(outcome, context.store().install(util::path_from_utf8(arguments.source), options));
  const TreeRecord& record = outcome->record;
  const bool fresh = outcome->status == InstallStatus::installed;
  if (arguments.json) {
    print_json(Json{{"status", fresh ? "installed" : "already_installed"}, {"tree", tree_to_json(record)}});
    return 0;
  }
  print(std::string(fresh ? "installed" : "already installed") + " '" + record.name + "': " + summary(record) + "\n");
  print("  location: " + util::to_utf8(record.root) + "\n");
  print("  library:  " + util::to_utf8(record.library_path()) + "\n");
  print("  source:   " +
        (record.source.official.empty() ? std::string("not a known official archive")
                                        : "official archive " + record.source.official) +
        "\n");
  return 0;
}

}  // namespace

void register_install(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<InstallArguments>();
  CLI::App* command = app.add_subcommand(
      "install", "import an official archive (.zip, .tar.xz), a pip wheel (nvidia_cudnn_cu*.whl) or a folder");
  command->add_option("source", arguments->source, "archive, wheel or folder")->required();
  command->add_option("--name", arguments->name, "the tree's folder name (default: the archive's name)");
  command->add_flag("--require-official", arguments->require_official,
                    "refuse archives whose SHA-256 is not a known official release");
  command->add_flag("--json", arguments->json, "print the result as JSON");
  command
      ->add_option("--max-unpacked", arguments->max_unpacked,
                   "refuse an archive that unpacks to more than this (default 16GiB; 32G, 40000M, bytes)")
      ->transform(CLI::AsSizeValue(false));
  command->add_option("--max-ratio", arguments->max_ratio,
                      "refuse an archive that unpacks to more than N times its size (default 50; 0: no limit)");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_install(*arguments, context); }; });
}

}  // namespace cudnnenv::cli
