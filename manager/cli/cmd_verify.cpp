#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "select/resolve.hpp"
#include "select/targets.hpp"
#include "store/component.hpp"
#include "store/runtime.hpp"
#include "store/spec.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"
#include "verify/report.hpp"
#include "verify/verify.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

// No GPU or driver for an explicitly requested conv level: distinct from a
// failed verification (4).

struct VerifyArguments {
  std::string target;
  std::string level;
  std::string device = "0";
  bool all = false;
  bool json = false;
};

// The selection here, for `verify` with no target: its warnings said.
Result<std::vector<VerifyTarget>> trees_to_verify(const VerifyArguments& arguments, const Context& context) {
  std::vector<std::string> warnings;
  auto targets = verify_targets(
      context.store(), arguments.target, arguments.all, [&] { return context.selection(context.request()); }, warnings);
  for (const auto& warning : warnings) log_warning(warning);
  return targets;
}

Result<int> run_verify(const VerifyArguments& arguments, const Context& context) {
  CUDNNENV_TRY_ASSIGN(trees, trees_to_verify(arguments, context));
  VerifyOptions options;
  options.level = util::parse_name(k_verify_levels, arguments.level).value_or(VerifyLevel::conv);
  options.devices = arguments.device;
  options.probe_program = probe_program_beside(util::installed_program());
  options.store_runtimes = context.store().list().of(TreeKind::cuda);
  const bool conv_asked = arguments.level == "conv";

  int exit_code = 0;
  Json results = Json::array();
  std::vector<std::string> failed;  // for --all's last line
  bool no_gpu = false;
  for (const auto& [tree, runtime] : *trees) {
    options.runtime_dir = runtime ? runtime->resolve(runtime->layout.library_dir) : fs::path();
    const VerifyReport report = verify_tree(tree, options);
    if (!report.passed()) failed.push_back("'" + tree.name + "'");
    no_gpu = no_gpu || (report.gpu_unavailable && conv_asked);
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
                             {"runtime", runtime ? Json(runtime->name) : Json(nullptr)},
                             {"passed", report.passed()},
                             {"gpu_unavailable", report.gpu_unavailable},
                             {"checks", std::move(checks)},
                             {"gpu", gpu_json(report.gpu)},
                             {"devices", devices_json(report.devices)},
                             {"fix", report.fix.empty() ? Json(nullptr) : Json(report.fix)}});
      continue;
    }
    print("verify " + tree.name + " (" + std::string(component(tree.kind).noun) + " " + tree.version.str() +
          "): " + util::to_utf8(tree.library_path()) + "\n");
    if (runtime) {
      print("  with the CUDA runtime '" + runtime->name + "' (" + util::to_utf8(options.runtime_dir) +
            " searched after the tree's folder, as exec runs a program)\n");
    }
    for (const auto& check : report.checks) {
      const char* mark = check.status == CheckStatus::ok       ? "  ok    "
                         : check.status == CheckStatus::failed ? "  FAIL  "
                                                               : "  skip  ";
      print_marked(check.status == CheckStatus::ok       ? Paint::ok
                   : check.status == CheckStatus::failed ? Paint::fail
                                                         : Paint::warn,
                   mark, check.name + ": " + check.detail + "\n");
    }
    if (!report.fix.empty()) {
      print("  fix:  " + report.fix + "\n        (" + report.fix_source + ")\n");
    }
    {
      namespace key = probe_protocol;
      const auto& gpu = report.gpu;
      const std::pair<std::string_view, std::optional<std::string>> shown[] = {
          {key::driver_cuda, gpu.driver_cuda},
          {key::gpu, gpu.gpu},
          {key::compute_capability, gpu.compute_capability},
          {key::max_relative_error,
           gpu.max_relative_error ? std::optional(gpu.max_relative_error->text) : std::nullopt},
          {key::conv_ms, gpu.conv_ms ? std::optional(gpu.conv_ms->text) : std::nullopt}};
      for (const auto& [name, value] : shown) {
        if (value) print("        " + std::string(name) + ": " + *value + "\n");
      }
    }
    if (!report.devices.empty()) print(devices_table(report.devices));
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
  } else if (arguments.all && !trees->empty()) {
    // One line for the whole store, as the last thing said.
    const std::size_t count = trees->size();
    const std::string trees_word = std::to_string(count) + (count == 1 ? " tree: " : " trees: ");
    print("\n");
    if (!failed.empty()) {
      print_marked(Paint::fail, trees_word + std::to_string(failed.size()) + " failed",
                   " (" + util::join(failed, ", ") + ")\n");
    } else if (no_gpu) {
      print_marked(Paint::warn, trees_word + "verified up to load; no GPU", "\n");
    } else {
      print_marked(Paint::ok, trees_word + (count == 1 ? "passed" : "all passed"), "\n");
    }
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
      ->check(CLI::IsMember(util::names_of(k_verify_levels)));
  command
      ->add_option("--device", arguments->device,
                   "which GPU: an index (default 0), 'all', or indices joined by commas (0,2,5); CUDA_VISIBLE_DEVICES "
                   "applies")
      ->check(CLI::Validator(
          [](std::string& value) {
            return probe_protocol::parse_device_choice(value)
                       ? std::string()
                       : "'" + util::printable(value) + "' is not a device index, 'all', or indices joined by commas";
          },
          "INDEX|all|LIST"));
  command->add_flag("--all", arguments->all, "every tree in the store");
  command->add_flag("--json", arguments->json, "print the results as a JSON array");
  command->footer(
      "Examples:\n"
      "  cudnnenv verify                  the selected tree: files, then loading every library\n"
      "  cudnnenv verify 8.9 --level conv a convolution on the GPU against a CPU reference\n"
      "  cudnnenv verify --all --json     every tree, for a script\n"
      "  cudnnenv verify --level conv --device all   the convolution on every GPU, the driver started once\n"
      "  cudnnenv verify /usr/local/cuda-12.2   a folder that is not in the store");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_verify(*arguments, context); }; });
}

}  // namespace cudnnenv::cli
