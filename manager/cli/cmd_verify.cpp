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
#include "verify/verify.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

// What the GPU check reported (docs/verify-json.md): the timings, errors and
// raw versions as numbers, names and messages as strings, under the
// protocol's key names; null below the conv level.
Json gpu_json(const probe_protocol::GpuReport& reported) {
  namespace key = probe_protocol;
  if (reported.empty()) return nullptr;
  Json gpu = Json::object();
  auto text = [&](std::string_view name, const std::optional<std::string>& value) {
    if (value) gpu[std::string(name)] = *value;
  };
  auto number = [&](std::string_view name, const std::optional<key::Number>& value) {
    if (value) gpu[std::string(name)] = value->value;
  };
  auto whole = [&](std::string_view name, const std::optional<key::Number>& value) {
    if (value) gpu[std::string(name)] = static_cast<std::int64_t>(value->value);
  };
  auto joined = [&](std::string_view name, const std::vector<std::string>& values) {
    std::string all;
    for (const auto& value : values) all += (all.empty() ? "" : "; ") + value;
    if (!values.empty()) gpu[std::string(name)] = all;
  };
  text(key::driver_cuda, reported.driver_cuda);
  text(key::gpu, reported.gpu);
  text(key::compute_capability, reported.compute_capability);
  number(key::driver_init_ms, reported.driver_init_ms);
  number(key::context_ms, reported.context_ms);
  number(key::cudnn_load_ms, reported.cudnn_load_ms);
  number(key::cudnn_create_ms, reported.cudnn_create_ms);
  whole(key::cudnn_version, reported.cudnn_version);
  whole(key::cudart_version, reported.cudart_version);
  text(key::loaded_from, reported.loaded_from);
  joined(key::conv_error, reported.conv_errors);
  number(key::max_relative_error, reported.max_relative_error);
  number(key::error_bound, reported.error_bound);
  number(key::conv_ms, reported.conv_ms);
  text(key::conv_result, reported.conv_result);
  text(key::sgemm, reported.sgemm);
  text(key::sgemm_result, reported.sgemm_result);
  joined(key::gpu_error, reported.gpu_errors);
  joined(key::error, reported.errors);
  for (const auto& [name, value] : reported.other) gpu[name] = value;  // a number that did not parse stays text
  return gpu;
}

// Each GPU of a check of several (`--device all`): its index, what it
// reported (gpu_json's keys) and its result: pass, fail or busy.
Json devices_json(const std::vector<DeviceResult>& devices) {
  Json list = Json::array();
  for (const auto& device : devices) {
    Json entry = gpu_json(device.gpu);
    if (entry.is_null()) entry = Json::object();
    entry["index"] = device.index;
    entry["result"] = device.status == CheckStatus::ok       ? "pass"
                      : device.status == CheckStatus::failed ? "fail"
                                                             : "busy";
    entry["detail"] = or_null(device.detail);
    list.push_back(std::move(entry));
  }
  return list;
}

// One row per GPU: index, name, compute capability, the time on it
// (context, handle, the check), the largest error, the result.
std::string devices_table(const std::vector<DeviceResult>& devices) {
  std::vector<std::vector<std::string>> rows = {{"GPU", "name", "cc", "time", "max error", "result"}};
  for (const auto& device : devices) {
    const auto& gpu = device.gpu;
    double time = 0;
    bool timed = false;
    for (const auto& part : {gpu.context_ms, gpu.cudnn_create_ms, gpu.conv_ms}) {
      if (part) {
        time += part->value;
        timed = true;
      }
    }
    char shown[32];
    std::snprintf(shown, sizeof shown, "%.1f ms", time);
    rows.push_back({std::to_string(device.index), util::printable(gpu.gpu.value_or("?")),
                    gpu.compute_capability.value_or("?"), timed ? shown : "-",
                    gpu.max_relative_error ? gpu.max_relative_error->text : "-",
                    device.status == CheckStatus::ok       ? "pass"
                    : device.status == CheckStatus::failed ? "FAIL: " + device.detail
                                                           : "busy: " + device.detail});
  }
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t column = 0; column + 1 < row.size(); ++column) {
      widths[column] = std::max(widths[column], row[column].size());
    }
  }
  std::string text;
  for (const auto& row : rows) {
    text += "        ";
    for (std::size_t column = 0; column < row.size(); ++column) {
      text += row[column];
      if (column + 1 < row.size()) text += std::string(widths[column] - row[column].size() + 2, ' ');
    }
    text += "\n";
  }
  return text;
}

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
