#include <charconv>
#include <filesystem>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "select/resolve.hpp"
#include "store/spec.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"
#include "verify/verify.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

// What the GPU check reported, typed: the timings, errors and raw versions as
// numbers, names and messages as strings; null below the conv level.
Json gpu_json(const std::vector<std::pair<std::string, std::string>>& reported) {
  Json gpu = Json::object();
  for (const auto& [key, value] : reported) {
    if (key == "conv") {
      continue;
    }
    const bool numeric = key.ends_with("_ms") || key == "max_relative_error" || key == "error_bound" ||
                         key == "cudnn_version" || key == "cudart_version";
    double number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (numeric && error == std::errc() && end == value.data() + value.size()) {
      if (key.ends_with("_version")) {
        gpu[key] = static_cast<std::int64_t>(number);
      } else {
        gpu[key] = number;
      }
    } else {
      gpu[key] = value;
    }
  }
  return gpu.empty() ? Json(nullptr) : gpu;
}

// No GPU or driver for an explicitly requested conv level: distinct from a
// failed verification (4).

struct VerifyArguments {
  std::string target;
  std::string level;
  int device = 0;
  bool all = false;
  bool json = false;
};

Result<std::vector<TreeRecord>> trees_to_verify(const VerifyArguments& arguments, const Context& context) {
  const Store& store = context.store();
  if (arguments.all) {
    auto trees = store.list().trees;
    if (trees.empty()) {
      return make_error("the store is empty", "'cudnnenv install <version>' fetches one", ExitCode::not_found);
    }
    return trees;
  }
  if (arguments.target.empty()) {
    CUDNNENV_TRY_ASSIGN(selection, context.selection(context.request()));
    auto full = store.full_record(selection->tree);
    return std::vector<TreeRecord>{full ? *full : selection->tree};
  }
  // A path is a folder to verify (it must exist); a bare word is a spec, a tree's or a
  // profile's name first, and a folder of that name only when nothing in the store is one.
  const std::string& target = arguments.target;
  const bool looks_like_path = target.find('/') != std::string::npos || target.find('\\') != std::string::npos ||
                               target == "." || target == "..";
  std::error_code ec;
  if (looks_like_path && !fs::exists(util::path_from_utf8(target), ec)) {
    return make_error("the folder '" + target + "' does not exist", "give a tree's folder, or a spec such as 9.1",
                      ExitCode::not_found);
  }
  if (!looks_like_path) {
    if (auto choice = choose_tree(store, target, std::nullopt, RecordPart::everything)) {
      return std::vector<TreeRecord>{choice->tree};
    }
  }
  if (fs::is_directory(util::path_from_utf8(arguments.target), ec)) {
    CUDNNENV_TRY_ASSIGN(tree, tree_from_folder(fs::canonical(util::path_from_utf8(arguments.target), ec)));
    return std::vector<TreeRecord>{*tree};
  }
  CUDNNENV_TRY_ASSIGN(choice, choose_tree(store, arguments.target, std::nullopt, RecordPart::everything));
  for (const auto& warning : choice->warnings) log_warning(warning);
  return std::vector<TreeRecord>{choice->tree};
}

Result<int> run_verify(const VerifyArguments& arguments, const Context& context) {
  CUDNNENV_TRY_ASSIGN(trees, trees_to_verify(arguments, context));
  VerifyOptions options;
  options.level = arguments.level == "files"  ? VerifyLevel::files
                  : arguments.level == "load" ? VerifyLevel::load
                                              : VerifyLevel::conv;
  options.device = arguments.device;
  options.probe_program = probe_program_beside(util::current_executable());
  const bool conv_asked = arguments.level == "conv";

  int exit_code = 0;
  Json results = Json::array();
  for (const auto& tree : *trees) {
    const VerifyReport report = verify_tree(tree, options);
    if (!report.passed()) {
      exit_code = static_cast<int>(ExitCode::verify_failed);
    } else if (report.gpu_unavailable && conv_asked && exit_code == 0) {
      exit_code = static_cast<int>(ExitCode::no_gpu);
    }
    if (arguments.json) {
      Json checks = Json::array();
      for (const auto& check : report.checks) {
        checks.push_back(Json{{"name", check.name}, {"status", to_string(check.status)}, {"detail", check.detail}});
      }
      results.push_back(Json{{"name", tree.name},
                             {"version", tree.version.str()},
                             {"library", util::to_utf8(tree.library_path())},
                             {"level", to_string(options.level)},
                             {"passed", report.passed()},
                             {"gpu_unavailable", report.gpu_unavailable},
                             {"checks", std::move(checks)},
                             {"gpu", gpu_json(report.gpu)}});
      continue;
    }
    print("verify " + tree.name + " (cuDNN " + tree.version.str() + "): " + util::to_utf8(tree.library_path()) + "\n");
    for (const auto& check : report.checks) {
      const char* mark = check.status == CheckStatus::ok       ? "  ok    "
                         : check.status == CheckStatus::failed ? "  FAIL  "
                                                               : "  skip  ";
      print_marked(check.status == CheckStatus::ok       ? Paint::ok
                   : check.status == CheckStatus::failed ? Paint::fail
                                                         : Paint::warn,
                   mark, check.name + ": " + check.detail + "\n");
    }
    for (const auto& [key, value] : report.gpu) {
      if (key == "gpu" || key == "compute_capability" || key == "driver_cuda" || key == "conv_ms" ||
          key == "max_relative_error") {
        print("        " + key + ": " + value + "\n");
      }
    }
    if (report.gpu_unavailable && !conv_asked) {
      print("  the GPU step was skipped: verified up to 'load'\n");
    }
    // Asked for a convolution and got none: not "passed" (#11).
    print_marked(!report.passed()                       ? Paint::fail
                 : report.gpu_unavailable && conv_asked ? Paint::warn
                                                        : Paint::ok,
                 !report.passed()                       ? "FAILED"
                 : report.gpu_unavailable && conv_asked ? "verified up to load; no GPU"
                                                        : "passed",
                 "\n");
  }
  if (arguments.json) {
    print_json(results);
  }
  return exit_code;
}

}  // namespace

void register_verify(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<VerifyArguments>();
  CLI::App* command = app.add_subcommand(
      "verify", "prove a tree works: its files, loading it, and a convolution on the GPU against a CPU reference");
  command->add_option("target", arguments->target, "a spec, a tree name or a folder (default: the current selection)");
  command
      ->add_option("--level", arguments->level, "files, load, or conv (default: conv when a GPU is there, else load)")
      ->check(CLI::IsMember({"files", "load", "conv"}));
  command->add_option("--device", arguments->device, "which GPU (default 0)");
  command->add_flag("--all", arguments->all, "every tree in the store");
  command->add_flag("--json", arguments->json, "print the results as a JSON array");
  command->footer(
      "Examples:\n"
      "  cudnnenv verify                  the selected tree: files, then loading every library\n"
      "  cudnnenv verify 8.9 --level conv a convolution on the GPU against a CPU reference\n"
      "  cudnnenv verify --all --json     every tree, for a script\n"
      "  cudnnenv verify /usr/local/cuda-12.2   a folder that is not in the store");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_verify(*arguments, context); }; });
}

}  // namespace cudnnenv::cli
