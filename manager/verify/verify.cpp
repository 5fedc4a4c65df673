#include "verify/verify.hpp"

#include <cstdlib>
#include <future>
#include <system_error>

#include "discover/dependencies.hpp"
#include "formats/binfmt.hpp"
#include "probe/probe.hpp"
#include "probe/protocol.hpp"
#include "store/component.hpp"
#include "store/layout.hpp"
#include "store/runtime.hpp"
#include "util/environment.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

std::string join_some(const std::vector<std::string>& items, std::size_t shown = 3) {
  std::string text;
  for (std::size_t i = 0; i < items.size() && i < shown; ++i) {
    text += (i ? "; " : "") + items[i];
  }
  if (items.size() > shown) {
    text += "; and " + std::to_string(items.size() - shown) + " more";
  }
  return text;
}

bool is_library(const std::string& path) {
  const std::string name = util::to_lower(path.substr(path.rfind('/') + 1));
  return util::ends_with(name, ".dll") || name.find(".so") != std::string::npos;
}

// The commands that put a damaged tree back as it was installed, from the
// source its record names; and that source, said in words.
void reinstall_fix(const TreeRecord& tree, VerifyReport& report) {
  const std::string name = util::command_word(tree.name);
  std::error_code ec;
  if (tree.location) {
    report.fix = "cudnnenv remove " + name + " --yes";
    report.fix_source = "its files are those of '" + *tree.location +
                        "', which it adopted: restore them there (reinstall what put them there), or forget it so";
    return;
  }
  const std::string& path = tree.source.path;
  if (!path.empty() && fs::exists(util::path_from_utf8(path), ec)) {
    report.fix =
        "cudnnenv remove " + name + " --yes && cudnnenv install " + util::command_word(path) + " --name " + name;
    const std::string& kind = tree.source.kind;
    report.fix_source = "from the " +
                        std::string(kind == "tar" || kind == "zip"        ? "archive"
                                    : kind == "wheel" || kind == "folder" ? kind
                                                                          : "source") +
                        " it was installed from, as recorded";
  } else if (!tree.source.official.empty()) {
    report.fix = "cudnnenv remove " + name + " --yes && cudnnenv install " + tree.version.str() +
                 (tree.cuda_variant ? " --cuda " + tree.cuda_variant->str() : std::string()) + " --name " + name;
    report.fix_source =
        "fetches " + tree.source.official + " again, the archive it was installed from (checked by its SHA-256)";
  } else {
    report.fix = "cudnnenv remove " + name + " --yes";
    report.fix_source = path.empty() ? "then install it again from what it came from"
                                     : "then install it again: its source '" + path + "' is gone";
  }
}

void check_files(const TreeRecord& tree, const VerifyOptions& options, VerifyReport& report) {
  TreeLayout layout;
  layout.major = tree.version.major;
  layout.library_dir = tree.layout.library_dir;
  layout.main_library = tree.layout.main_library;
  layout.include_dir = tree.layout.include_dir;
  layout.import_lib_dir = tree.layout.import_lib_dir;
  const bool import_libs = tree.platform.os == Os::windows && tree.source.kind == "zip";
  if (tree.kind != TreeKind::cudnn) {
    // A tree of a row beside cuDNN (a runtime's, NCCL's): its main library, and every library of its row it recorded.
    const ComponentRow& row = component(tree.kind);
    std::vector<std::string> missing;
    std::size_t libraries = 0;
    std::error_code ec;
    if (!fs::exists(tree.library_path(), ec)) missing.push_back(tree.layout.main_library);
    for (const auto& file : tree.files) {
      if (!row.library_name(file.path.substr(file.path.rfind('/') + 1), tree.platform.os)) continue;
      ++libraries;
      if (!fs::exists(fs::symlink_status(tree.resolve(file.path), ec))) missing.push_back(file.path);
    }
    // And what a runtime's own libraries need of the runtime that it never held (a wheel half uninstalled).
    const auto unmet = tree.kind == TreeKind::cuda
                           ? unmet_runtime_needs(tree.resolve(tree.layout.library_dir), tree.platform.os)
                           : std::vector<UnmetNeed>{};
    std::string detail = (tree.kind == TreeKind::cuda ? "CUDA " + tree.version.str() + " runtime"
                                                      : std::string(row.noun) + " " + tree.version.str()) +
                         ", " + std::to_string(libraries) + (libraries == 1 ? " library file" : " library files");
    if (!missing.empty()) detail = "missing " + join_some(missing);
    if (!unmet.empty()) {
      detail = (missing.empty() ? std::string() : detail + "; ") + "lacks " + describe_unmet(unmet) + "; " +
               runtime_heal_hint(tree, has_heal_donor(tree, unmet, options.store_runtimes));
    }
    report.checks.push_back(
        {"file set", missing.empty() && unmet.empty() ? CheckStatus::ok : CheckStatus::failed, detail});
  } else {
    auto missing = missing_files(tree.root, layout, tree.version, tree.platform.os,
                                 import_libs ? RequireImportLibs::yes : RequireImportLibs::no);
    if (tree.layout.include_dir.empty() || fs::path(util::path_from_utf8(tree.layout.include_dir)).is_absolute()) {
      std::erase_if(missing, [](const std::string& path) { return util::ends_with(path, ".h"); });
    }
    // What the install recorded and is gone since is the files check's to say; this one names what the
    // tree never had.
    const std::size_t before = missing.size();
    std::erase_if(missing, [&](const std::string& path) {
      return std::any_of(tree.files.begin(), tree.files.end(),
                         [&](const FileRecord& file) { return file.path == path; });
    });
    const bool gone_since = missing.size() != before;
    const std::string note = expected_set(tree.version, tree.platform.os).note;
    report.checks.push_back({"file set", missing.empty() ? CheckStatus::ok : CheckStatus::failed,
                             (missing.empty() ? (gone_since ? "the complete cuDNN " + tree.version.str() +
                                                                  " set was installed (files: what is gone since)"
                                                            : "complete cuDNN " + tree.version.str() + " set")
                                              : "missing " + join_some(missing) + " (cuDNN " + tree.version.str() +
                                                    " ships " + (missing.size() == 1 ? "it" : "them") + ")") +
                                 (note.empty() ? std::string() : "; " + note)});
  }

  // Every file as the install recorded it: an antivirus quarantine, a
  // truncated copy or an overwrite shows here, by name. Hashed on every core.
  std::vector<std::future<std::string>> pending;
  for (const auto& file : tree.files) {
    pending.push_back(std::async(std::launch::async, [&tree, &file]() -> std::string {
      std::error_code ec;
      const fs::path path = tree.resolve(file.path);
      const std::string shown = util::printable(file.path);  // a name from an archive or folder, escaped
      if (!fs::exists(path, ec)) {
        // A link still there whose file is gone: that file's own line says it.
        if (!file.link.empty() && fs::is_symlink(fs::symlink_status(path, ec))) return std::string();
        return "'" + shown + "' is gone" +
               (tree.platform.os == Os::windows ? " (deleted, or quarantined by a virus scanner?)" : " (deleted?)");
      }
      const auto size = fs::file_size(path, ec);
      if (size != file.size) {
        return "'" + shown + "' is " + std::to_string(size) + " bytes, was " + std::to_string(file.size) +
               (size < file.size ? " (truncated?)" : "");
      }
      auto hash = util::sha256_file(path);
      return hash && *hash == file.sha256 ? std::string()
                                          : "'" + shown + "' changed since it was installed (SHA-256 differs)";
    }));
  }
  std::vector<std::string> problems;
  for (auto& result : pending) {
    if (auto problem = result.get(); !problem.empty()) {
      problems.push_back(std::move(problem));
    }
  }
  const std::size_t hashed = tree.files.size();
  std::error_code ec;
  if (tree.files.empty()) {
    report.checks.push_back({"files", CheckStatus::skipped, "no install manifest (a tree given by path)"});
  } else {
    if (!problems.empty()) reinstall_fix(tree, report);
    report.checks.push_back(
        {"files", problems.empty() ? CheckStatus::ok : CheckStatus::failed,
         problems.empty()
             ? std::to_string(hashed) + (hashed == 1 ? " file matches" : " files match") + " the install manifest"
             : join_some(problems)});
  }

  // The libraries the manifest lists (an adopted system folder lists only
  // cuDNN's), else the cuDNN libraries in the library folder.
  std::vector<fs::path> libraries;
  for (const auto& file : tree.files) {
    if (is_library(file.path) && file.link.empty()) {
      libraries.push_back(tree.resolve(file.path));
    }
  }
  if (tree.files.empty()) {
    for (const auto& entry : util::directory_entries(tree.resolve(tree.layout.library_dir))) {
      if (is_cudnn_library_name(util::to_utf8(entry.path.filename()), tree.platform.os) && entry.is_regular_file) {
        libraries.push_back(entry.path);
      }
    }
  }
  std::vector<std::string> foreign;
  std::string described;
  for (const auto& path : libraries) {
    if (!fs::exists(path, ec)) continue;  // gone: the files check says so
    auto binary = identify_binary_file(path);
    if (!binary || !matches(*binary, tree.platform)) {
      foreign.push_back("'" + util::to_utf8(path.filename()) + "' is " +
                        (binary ? binary->describe() : std::string("unreadable")));
    } else if (described.empty()) {
      described = binary->describe();
    }
  }
  report.checks.push_back({"architecture", foreign.empty() ? CheckStatus::ok : CheckStatus::failed,
                           foreign.empty() ? described + ", as " + describe(tree.platform) + " needs"
                                           : join_some(foreign) + ", not " + describe(tree.platform)});

  if (!tree.layout.include_dir.empty()) {
    const fs::path include = tree.resolve(tree.layout.include_dir);
    std::optional<Version> header;
    for (const char* name : {"cudnn_version.h", "cudnn.h"}) {
      if (auto text = util::read_file(include / name)) {
        if ((header = parse_version_header(*text))) {
          break;
        }
      }
    }
    const bool same = header && header->same_release(tree.version);
    report.checks.push_back({"header version", same ? CheckStatus::ok : CheckStatus::failed,
                             header ? "cudnn_version.h says " + header->str() +
                                          (same ? "" : ", the tree was recorded as " + tree.version.str())
                                    : "no version in the headers"});
  }
}

// Why `library` would not load, from its dependency tables: each missing
// library named with where it was looked for; empty when all are found.
std::string missing_dependencies_text(const fs::path& library, const VerifyOptions& options,
                                      const std::vector<std::string>& loaded_at_run_time = {}) {
  DiscoverContext context;
  context.environment = with_runtime_folder(options.environment, options.runtime_dir);
  const auto missing = find_missing_dependencies(library, context, loaded_at_run_time);
  const std::string hints = distinct_hints(missing);
  return join_some(describe_grouped(missing, false), 3) + (hints.empty() ? "" : " (" + hints + ")");
}

}  // namespace

std::vector<std::string> missing_dependencies_of_set(const TreeRecord& tree, const util::Environment& environment,
                                                     const fs::path& runtime_dir) {
  DiscoverContext context;
  context.environment = with_runtime_folder(environment, runtime_dir);
  context.os = tree.platform.os;
  std::vector<MissingDependency> missing;
  for (const auto& name : expected_set(tree.version, tree.platform.os).libraries) {
    const fs::path library = tree.resolve(tree.layout.library_dir) / util::path_from_utf8(name);
    std::error_code ec;
    if (!fs::is_regular_file(library, ec)) continue;  // the file set's check says so
    for (auto& item : find_missing_dependencies(library, context)) missing.push_back(std::move(item));
  }
  std::vector<std::string> lines = describe_grouped(missing, false);
  if (const std::string hints = distinct_hints(missing); !lines.empty() && !hints.empty()) {
    lines.front() += " (" + hints + ")";
  }
  return lines;
}

util::Environment with_runtime_folder(util::Environment environment, const fs::path& runtime_dir) {
  if (runtime_dir.empty()) return environment;
  const char* variable = host_platform().os == Os::windows ? "PATH" : "LD_LIBRARY_PATH";
  const auto existing = environment.get(variable);
  environment.set(variable, util::to_utf8(runtime_dir) + (existing && !existing->empty()
                                                              ? std::string(1, util::path_list_separator()) + *existing
                                                              : std::string()));
  return environment;
}

MainLoadCheck check_main_library(const TreeRecord& tree, const fs::path& probe_program,
                                 std::chrono::milliseconds timeout, const fs::path& runtime_dir) {
  const fs::path library = tree.library_path();
  auto probed = probe_in_child(probe_program, library, timeout, runtime_dir);
  if (!probed) {
    return {{"load", CheckStatus::failed, probed.error().message}, std::nullopt};
  }
  std::error_code ec;
  if (!fs::equivalent(util::path_from_utf8(probed->loaded_from), library, ec)) {
    return {{"load", CheckStatus::failed,
             "loading '" + util::to_utf8(library) + "' mapped '" + probed->loaded_from + "' instead"},
            std::move(*probed)};
  }
  const Version loaded = decode_cudnn_version(probed->version_raw);
  const bool same = loaded.same_release(tree.version);
  return {{"load", same ? CheckStatus::ok : CheckStatus::failed,
           "cudnnGetVersion() = " + std::to_string(probed->version_raw) + " (" + loaded.str() + ")" +
               (same ? "" : ", the tree says " + tree.version.str()) + ", from " + probed->loaded_from},
          std::move(*probed)};
}

namespace {

void check_load(const TreeRecord& tree, const VerifyOptions& options, VerifyReport& report) {
  const fs::path library = tree.library_path();
  MainLoadCheck main = check_main_library(tree, options.probe_program, options.timeout, options.runtime_dir);
  if (!main.probed) {
    const std::string missing = missing_dependencies_text(library, options);
    if (!missing.empty()) main.check.detail = missing;
  }
  report.checks.push_back(main.check);
  if (!main.probed) return;
  const auto& probed = main.probed;
  if (probed->cudart_raw) {
    const CudaVersion cudart = decode_cudart_version(*probed->cudart_raw);
    const bool fits = !tree.cuda || tree.cuda->major == cudart.major;
    report.checks.push_back(
        {"cudart", fits ? CheckStatus::ok : CheckStatus::failed,
         "built against CUDA " + cudart.str() +
             (tree.cuda ? (fits ? ", as the tree says" : ", the tree says " + tree.cuda->str()) : std::string())});
  }
  // Each sub-library by absolute path, in parallel children: a missing
  // dependency names itself here.
  std::vector<std::future<std::string>> loads;
  for (const auto& name : expected_set(tree.version, tree.platform.os).libraries) {
    const fs::path path = tree.resolve(tree.layout.library_dir) / name;
    if (path == library) {
      continue;
    }
    loads.push_back(std::async(std::launch::async, [&options, path]() -> std::string {
      auto outcome = util::run_process(
          probe_process(options.probe_program, path, {"--load-only"}, options.timeout, options.runtime_dir));
      if (!outcome) {
        return outcome.error().message;
      }
      if (outcome->exit_code == 0) {
        return {};
      }
      if (std::string missing = missing_dependencies_text(path, options); !missing.empty()) {
        return missing;
      }
      const std::string reason(util::trim(outcome->err));
      if (!reason.empty()) {
        return reason;
      }
      return "loading '" + util::to_utf8(path) + "' " +
             (outcome->signal ? "crashed the probe (signal " + std::to_string(outcome->signal) + ": a damaged file?)"
                              : std::string("failed"));
    }));
  }
  std::vector<std::string> failures;
  std::size_t loaded_count = 0;
  for (auto& load : loads) {
    if (auto failure = load.get(); failure.empty()) {
      ++loaded_count;
    } else {
      failures.push_back(std::move(failure));
    }
  }
  report.checks.push_back(
      {"sub-libraries", failures.empty() ? CheckStatus::ok : CheckStatus::failed,
       failures.empty() ? std::to_string(loaded_count) + " load by absolute path" : join_some(failures, 2)});

  // What cuDNN opens by name only later, at its first real work: a load
  // passes without it and the first convolution fails.
  const auto later = loaded_at_run_time(tree.version, tree.platform.os);
  if (!later.empty()) {
    const std::string missing = missing_dependencies_text(library, options, later);
    report.checks.push_back({"run-time dependencies", missing.empty() ? CheckStatus::ok : CheckStatus::failed,
                             missing.empty() ? join_some(later, 5) + " found" : missing});
  }
}

bool is_several(const std::string& devices) {
  const auto choice = probe_protocol::parse_device_choice(devices);
  return choice && choice->sections;
}

// A GPU check of several GPUs (`name`: conv or sgemm): the run's lines, one
// result per GPU, and one check for them all: failed when a GPU failed,
// skipped when none could be used, else ok (a busy GPU is said, not failed).
void check_devices(const std::string& name, const util::ProcessOutcome& outcome, VerifyReport& report) {
  namespace key = probe_protocol;
  const auto sections = key::split_devices(outcome.out);
  report.gpu = key::parse_gpu_report(sections.run);
  std::vector<std::string> passed, busy, failed;
  for (const auto& [index, text] : sections.devices) {
    DeviceResult device{index, key::parse_gpu_report(text), CheckStatus::ok, {}};
    const auto& result = name == "conv" ? device.gpu.conv_result : device.gpu.sgemm_result;
    std::string problems = device.gpu.problems();
    if (std::string cause = plain_cause(problems); !cause.empty()) problems += ": " + cause;
    const std::string gpu = "GPU " + std::to_string(index);
    if (result == std::optional<std::string>("pass")) {
      passed.push_back(gpu);
    } else if (device.gpu.gpu_busy) {
      device.status = CheckStatus::skipped;
      device.detail = problems.empty() ? "not usable" : problems;
      busy.push_back(gpu + ": " + device.detail);
    } else {
      device.status = CheckStatus::failed;
      device.detail = !problems.empty() ? problems
                      : result          ? join_some(name == "conv" ? device.gpu.shapes
                                                                   : std::vector<std::string>{device.gpu.sgemm.value_or("")},
                                           5)
                      : outcome.signal ? "the GPU check crashed (signal " + std::to_string(outcome.signal) + ")"
                                       : "the GPU check stopped before a result";
      failed.push_back(gpu + ": " + device.detail);
    }
    report.devices.push_back(std::move(device));
  }
  const std::string run_problems = report.gpu.problems();
  if (outcome.timed_out) {
    report.checks.push_back({name, CheckStatus::failed, "the GPU check did not finish in time"});
  } else if (!failed.empty()) {
    report.checks.push_back({name, CheckStatus::failed, join_some(failed, 3)});
  } else if (passed.empty()) {
    report.gpu_unavailable = outcome.exit_code == static_cast<int>(key::ProbeExit::no_gpu);
    std::string why = !run_problems.empty() ? run_problems : join_some(busy, 3);
    if (std::string cause = plain_cause(why); !cause.empty()) why += ": " + cause;
    report.checks.push_back(
        {name, report.gpu_unavailable ? CheckStatus::skipped : CheckStatus::failed,
         why.empty() ? (outcome.signal ? "the GPU check crashed (signal " + std::to_string(outcome.signal) + ")"
                                       : std::string("no usable GPU"))
                     : why});
  } else {
    report.checks.push_back({name, CheckStatus::ok,
                             std::to_string(passed.size()) + " of " + std::to_string(sections.devices.size()) +
                                 (sections.devices.size() == 1 ? " GPU passed" : " GPUs passed") +
                                 (busy.empty() ? "" : "; " + join_some(busy, 3))});
  }
}

void check_conv(const TreeRecord& tree, const VerifyOptions& options, VerifyReport& report) {
  auto outcome =
      util::run_process(probe_process(options.probe_program, tree.library_path(),
                                      {"--conv", "--device", options.devices}, options.timeout, options.runtime_dir));
  if (!outcome) {
    report.checks.push_back({"conv", CheckStatus::failed, outcome.error().message});
    return;
  }
  namespace key = probe_protocol;
  if (is_several(options.devices)) {
    check_devices("conv", *outcome, report);
    return;
  }
  report.gpu = key::parse_gpu_report(outcome->out);
  const std::vector<std::string>& shapes = report.gpu.shapes;
  std::string error = report.gpu.problems();
  // A driver older than the CUDA runtime the library was built with shows
  // as one of several status codes; the two versions say it plainly.
  if (!error.empty()) {
    const std::string driver = report.gpu.driver_cuda.value_or("");
    const auto cudart = report.gpu.cudart_version;
    if (!driver.empty() && cudart &&
        std::atoi(driver.c_str()) < decode_cudart_version(static_cast<std::size_t>(cudart->value)).major) {
      error += ": the NVIDIA driver supports CUDA " + driver + ", older than the CUDA " +
               decode_cudart_version(static_cast<std::size_t>(cudart->value)).str() +
               " this cuDNN was built with; update the driver or use a tree built for an older CUDA";
    } else if (std::string cause = plain_cause(error); !cause.empty()) {
      error += ": " + cause;
    }
  }
  if (outcome->timed_out) {
    report.checks.push_back({"conv", CheckStatus::failed, "the GPU check did not finish in time"});
  } else if (outcome->exit_code == static_cast<int>(key::ProbeExit::no_gpu)) {
    report.gpu_unavailable = true;
    report.checks.push_back({"conv", CheckStatus::skipped, error.empty() ? "no usable GPU" : error});
  } else if (outcome->exit_code == static_cast<int>(key::ProbeExit::ok)) {
    report.checks.push_back({"conv", CheckStatus::ok, join_some(shapes, 5)});
  } else {
    report.checks.push_back({"conv", CheckStatus::failed,
                             !error.empty() ? error
                             : outcome->signal
                                 ? "the GPU check crashed (signal " + std::to_string(outcome->signal) + ")"
                                 : join_some(shapes, 5)});
  }
}

}  // namespace

bool VerifyReport::passed() const {
  for (const auto& check : checks) {
    if (check.status == CheckStatus::failed) {
      return false;
    }
  }
  return true;
}

namespace {

// A runtime tree's GPU level: one cuBLAS SGEMM against a CPU reference, in
// a child with the runtime's folder first on the search path.
void check_sgemm(const TreeRecord& tree, const VerifyOptions& options, VerifyReport& report) {
  fs::path cublas;
  for (const auto& file : tree.files) {
    const std::string name = util::to_lower(file.path.substr(file.path.rfind('/') + 1));
    if (file.link.empty() && (util::starts_with(name, "libcublas.so.") || util::starts_with(name, "cublas64_"))) {
      cublas = tree.resolve(file.path);
    }
  }
  if (cublas.empty()) {
    report.checks.push_back({"sgemm", CheckStatus::failed, "the runtime has no cuBLAS library"});
    return;
  }
  auto outcome = util::run_process(
      probe_process(options.probe_program, cublas, {"--sgemm", "--device", options.devices}, options.timeout));
  if (!outcome) {
    report.checks.push_back({"sgemm", CheckStatus::failed, outcome.error().message});
    return;
  }
  namespace key = probe_protocol;
  if (is_several(options.devices)) {
    check_devices("sgemm", *outcome, report);
    return;
  }
  report.gpu = key::parse_gpu_report(outcome->out);
  std::string error = report.gpu.problems();
  if (std::string cause = plain_cause(error); !error.empty() && !cause.empty()) error += ": " + cause;
  if (outcome->timed_out) {
    report.checks.push_back({"sgemm", CheckStatus::failed, "the GPU check did not finish in time"});
  } else if (outcome->exit_code == static_cast<int>(key::ProbeExit::no_gpu)) {
    report.gpu_unavailable = true;
    report.checks.push_back({"sgemm", CheckStatus::skipped, error.empty() ? "no usable GPU" : error});
  } else {
    const bool ok = outcome->exit_code == static_cast<int>(key::ProbeExit::ok);
    report.checks.push_back({"sgemm", ok ? CheckStatus::ok : CheckStatus::failed,
                             report.gpu.sgemm ? *report.gpu.sgemm + (error.empty() ? "" : "; " + error)
                             : !error.empty()
                                 ? error
                                 : "the GPU check failed (exit " + std::to_string(outcome->exit_code) + ")"});
  }
}

// The load level of a tree beside cuDNN (a runtime's, NCCL's): every library
// of its row by absolute path, in parallel children, each with the version it
// reports of itself (its row's version function: cudaRuntimeGetVersion, ncclGetVersion, ...).
void check_component_load(const TreeRecord& tree, const VerifyOptions& options, VerifyReport& report) {
  std::vector<fs::path> libraries;
  for (const auto& file : tree.files) {
    const std::string name = file.path.substr(file.path.rfind('/') + 1);
    if (file.link.empty() && component(tree.kind).library_name(name, tree.platform.os))
      libraries.push_back(tree.resolve(file.path));
  }
  std::vector<std::future<std::pair<bool, std::string>>> loads;
  for (const auto& path : libraries) {
    loads.push_back(std::async(std::launch::async, [&options, path]() -> std::pair<bool, std::string> {
      const std::string name = util::to_utf8(path.filename());
      auto outcome = util::run_process(
          probe_process(options.probe_program, path, {"--load-only"}, options.timeout, options.runtime_dir));
      if (!outcome) return {false, name + ": " + outcome.error().message};
      if (outcome->exit_code != 0) {
        if (std::string missing = missing_dependencies_text(path, options); !missing.empty()) return {false, missing};
        const std::string reason(util::trim(outcome->err));
        return {false, name + ": " + (reason.empty() ? std::string("does not load") : reason)};
      }
      std::string version;
      std::string from;
      for (const auto& [key, value] : probe_protocol::parse_key_values(outcome->out)) {
        if (key == probe_protocol::library_version) version = value;
        if (key == probe_protocol::library_version_from) from = value;
      }
      return {true, version.empty() ? name : name + " " + version + " (" + from + ")"};
    }));
  }
  std::vector<std::string> loaded;
  std::vector<std::string> failures;
  for (auto& load : loads) {
    auto [ok, text] = load.get();
    (ok ? loaded : failures).push_back(std::move(text));
  }
  report.checks.push_back(
      {"load", failures.empty() ? CheckStatus::ok : CheckStatus::failed,
       failures.empty() ? std::to_string(loaded.size()) + " load by absolute path: " + join_some(loaded, loaded.size())
                        : join_some(failures, 3)});
}

// With options.load_only_unchangeable: why the tree (or the runtime beside
// it) must not be loaded here, as the load check's failure; nothing when it
// may be.
std::optional<std::string> refused_load(const TreeRecord& tree, const VerifyOptions& options) {
  if (!options.load_only_unchangeable) return std::nullopt;
  auto why = changeable_by_others(tree);
  if (!why && !options.runtime_dir.empty()) why = util::changeable_by_others(options.runtime_dir);
  if (!why) return std::nullopt;
  return "not loaded as root: " + *why +
         ", so loading it would run that user's code as root; install the tree (a copy only root can change) or "
         "make its folder root's alone";
}

}  // namespace

VerifyReport verify_tree(const TreeRecord& tree, const VerifyOptions& options) {
  VerifyReport report;
  if (options.level != VerifyLevel::files) {
    if (auto refused = refused_load(tree, options)) {
      check_files(tree, options, report);  // reading and hashing run nothing; a file gone is said as such
      if (report.passed()) report.checks.push_back({"load", CheckStatus::failed, *refused});
      return report;
    }
  }
  if (tree.kind != TreeKind::cudnn) {
    check_files(tree, options, report);
    if (options.level == VerifyLevel::files || !report.passed()) return report;
    if (tree.platform != host_platform()) {
      report.checks.push_back(
          {"load", CheckStatus::skipped,
           "a " + describe(tree.platform) + " " +
               (tree.kind == TreeKind::cuda ? std::string("runtime") : std::string(component(tree.kind).noun)) +
               " cannot load here"});
      return report;
    }
    check_component_load(tree, options, report);
    if (tree.kind == TreeKind::cuda && options.level == VerifyLevel::conv && report.passed())
      check_sgemm(tree, options, report);
    return report;
  }
  const bool loadable = tree.platform == host_platform();
  // The GPU check is the slow one (driver start-up): it runs in its child
  // while the files are hashed and the libraries loaded, and its result
  // counts only if those pass.
  std::future<VerifyReport> conv;
  if (options.level == VerifyLevel::conv && loadable) {
    conv = std::async(std::launch::async, [&tree, &options] {
      VerifyReport part;
      check_conv(tree, options, part);
      return part;
    });
  }
  check_files(tree, options, report);
  if (options.level == VerifyLevel::files || !report.passed()) {
    return report;
  }
  if (!loadable) {
    report.checks.push_back({"load", CheckStatus::skipped, "a " + describe(tree.platform) + " tree cannot load here"});
    return report;
  }
  check_load(tree, options, report);
  if (options.level == VerifyLevel::load || !report.passed()) {
    return report;
  }
  VerifyReport part = conv.get();
  report.checks.insert(report.checks.end(), part.checks.begin(), part.checks.end());
  report.gpu = std::move(part.gpu);
  report.gpu_unavailable = part.gpu_unavailable;
  report.devices = std::move(part.devices);
  return report;
}

std::string plain_cause(std::string_view error_text) {
  const std::string text = util::to_lower(error_text);
  auto has = [&](const char* part) { return text.find(part) != std::string::npos; };
  if (has("arch_mismatch") || has("no kernel image") || has("no_binary_for_gpu")) {
    return "this cuDNN build has no code for this GPU's architecture (a GPU newer than the build, or one it "
           "dropped); install a cuDNN release that supports it";
  }
  if (has("incompatible_cuda_driver") || has("insufficient_driver") || has("driver version is insufficient") ||
      has("system_driver_mismatch") || has("incompatible_cudart")) {
    return "the NVIDIA driver is too old for the CUDA runtime this cuDNN was built with; update the driver or use a "
           "tree built for an older CUDA";
  }
  if (has("alloc_failed") || has("out of memory")) {
    return "the GPU is out of memory; other processes may be holding it (nvidia-smi lists them)";
  }
  if (has("sublibrary_loading_failed") || has("sublibrary_version_mismatch")) {
    return "a cuDNN sub-library failed to load or is of another release; run 'cudnnenv verify --level load'";
  }
  return {};
}

std::string to_string(VerifyLevel level) {
  return std::string(util::name_of(k_verify_levels, level));
}

std::string to_string(CheckStatus status) {
  return status == CheckStatus::ok ? "ok" : status == CheckStatus::failed ? "failed" : "skipped";
}

}  // namespace cudnnenv
