#include "pin/pin_policy.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <system_error>
#include <vector>

#include "discover/dependencies.hpp"
#include "discover/discover.hpp"
#include "launch_key.hpp"
#include "probe/probe.hpp"
#include "select/resolve.hpp"
#include "store/layout.hpp"
#include "store/runtime.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"
#include "verify/verify.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

// "size:mtime" of a file, as the shims compute it, or empty when it cannot be read.
std::string identity(const fs::path& path) {
  char text[64];
  return shim::file_identity(util::to_utf8(path).c_str(), text, sizeof text) ? std::string(text) : std::string();
}

// The libraries cuDNN's release ships, in the tree's library folder.
std::vector<fs::path> release_libraries(const TreeRecord& tree) {
  std::vector<fs::path> files;
  if (tree.kind != TreeKind::cudnn) return files;
  for (const auto& name : expected_set(tree.version, tree.platform.os).libraries) {
    files.push_back(tree.resolve(tree.layout.library_dir) / util::path_from_utf8(name));
  }
  return files;
}

// The files the check covers: the manifest's (an installed or adopted
// tree) and the libraries of the tree's release.
std::vector<fs::path> file_set(const TreeRecord& tree) {
  std::vector<fs::path> files;
  for (const auto& file : tree.files) {
    files.push_back(tree.resolve(file.path));
  }
  for (auto& library : release_libraries(tree)) {
    if (std::find(files.begin(), files.end(), library) == files.end()) files.push_back(std::move(library));
  }
  return files;
}

// FNV-1a of every file's "size:mtime", in order; empty when one cannot be
// read. Not SHA-256: the cache is only as trusted as the folder it is in,
// and OpenSSL's first digest (its providers' start) cost 0.9 ms of a 2.7 ms
// `exec` (perf).
std::string set_identity(const std::vector<fs::path>& files) {
  std::uint64_t hash = shim::fnv1a("");
  for (const auto& file : files) {
    const std::string id = identity(file);
    spdlog::trace("pin check: '{}' {}", util::to_utf8(file), id.empty() ? "cannot be read" : "is " + id);
    if (id.empty()) {
      return {};
    }
    hash = shim::fnv1a((id + "\n").c_str(), hash);
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

// One line per check that passed:
// "policy|device|library identity|file set identity|driver identity|library path".
std::string cache_key(const TreeRecord& tree, const std::vector<fs::path>& files, const PinCheckOptions& options) {
  const fs::path library = tree.library_path();
  const std::string library_identity = identity(library);
  const std::string files_identity = set_identity(files);
  if (library_identity.empty() || files_identity.empty()) {
    return {};
  }
  return to_string(options.policy) + "|" + std::to_string(options.device) + "|" + library_identity + "|" +
         files_identity + "|" + (options.policy == LaunchPolicy::conv ? driver_identity() : std::string("-")) + "|" +
         util::to_utf8(library) + "|" + util::to_utf8(options.runtime_dir);
}

// What a load of the main library cannot see: a sub-library gone or
// truncated (cuDNN opens them only when a routine needs one), and the
// libraries it opens by name at its first real work (zlibwapi.dll).
Result<void> check_file_set(const TreeRecord& tree, const std::vector<fs::path>& files, const std::string& hint,
                            const util::Environment& environment) {
  std::vector<std::string> missing;
  if (!tree.files.empty()) {
    missing = changed_files(tree);
    // A library of the release the tree never had: without it the loader takes another copy's.
    std::vector<std::string> lacking;
    for (const auto& library : release_libraries(tree)) {
      std::error_code ec;
      if (!fs::is_regular_file(library, ec)) lacking.push_back("'" + util::to_utf8(library.filename()) + "'");
    }
    if (missing.empty() && !lacking.empty()) {
      return make_error("the tree '" + tree.name + "' lacks " + util::join(lacking, ", ") + " of cuDNN " +
                            tree.version.str() + "'s libraries: the loader would take " +
                            (lacking.size() == 1 ? "that file" : "those files") + " from another copy",
                        hint, ExitCode::verify_failed);
    }
  } else {
    for (const auto& file : files) {
      std::error_code ec;
      if (!fs::is_regular_file(file, ec)) {
        missing.push_back(util::to_utf8(file.filename()));
      }
    }
  }
  if (!missing.empty()) {
    return make_error("the tree '" + tree.name + "' is incomplete: '" + missing.front() + "'" +
                          (missing.size() > 1 ? " and " + std::to_string(missing.size() - 1) + " more" : "") +
                          (tree.files.empty() ? " missing" : " missing or changed since it was installed"),
                      hint, ExitCode::verify_failed);
  }
  if (const auto later = tree.kind == TreeKind::cudnn ? loaded_at_run_time(tree.version, tree.platform.os)
                                                      : std::vector<std::string>{};
      !later.empty()) {
    DiscoverContext context;
    context.environment = environment;
    context.os = tree.platform.os;
    const auto absent = find_missing_dependencies(tree.library_path(), context, later);
    if (!absent.empty()) {
      return make_error(absent.front().describe(), hint, ExitCode::verify_failed);
    }
  }
  return {};
}

void remember(const PinCheckOptions& options, const std::string& key) {
  std::string kept;
  if (auto text = util::read_file(options.cache_file)) {
    const std::string path = key.substr(key.rfind('|'));
    const std::string policy = key.substr(0, key.find('|'));
    for (const auto& line : util::split(*text, '\n')) {
      // The older result for the same library and policy is replaced.
      const bool same = util::ends_with(line, path) && util::starts_with(line, policy + "|");
      if (!line.empty() && !same) {
        kept += line + "\n";
      }
    }
  }
  std::error_code ec;
  fs::create_directories(options.cache_file.parent_path(), ec);
  (void)util::write_file_atomic(options.cache_file, kept + key + "\n");  // a cache: failing to write costs a recheck
}

}  // namespace

std::string driver_identity() {
  DiscoverContext context;
  context.environment = util::Environment::current();
  const fs::path driver =
      default_resolution(context, host_platform().os == Os::windows ? "nvcuda.dll" : "libcuda.so.1");
  return driver.empty() ? "none" : util::to_utf8(driver) + "@" + identity(driver);
}

std::string to_string(LaunchPolicy policy) {
  return std::string(util::name_of(k_launch_policies, policy));
}

Result<LaunchPolicy> choose_launch_policy(const std::optional<std::string>& option,
                                          const util::Environment& environment,
                                          const std::optional<std::string>& project_value) {
  const std::pair<std::optional<std::string>, const char*> sources[] = {
      {option, "--verify"},
      {environment.get("CUDNNENV_VERIFY"), "CUDNNENV_VERIFY"},
      {project_value, "[verify] on_launch"}};
  for (const auto& [value, where] : sources) {
    if (value && !value->empty()) {
      if (auto policy = util::parse_name(k_launch_policies, *value)) {
        return *policy;
      }
      return make_error(std::string(where) + " is '" + *value + "'", "use " + util::choices_of(k_launch_policies),
                        ExitCode::usage);
    }
  }
  return LaunchPolicy::load;
}

Result<void> check_pin(const TreeRecord& tree, const PinCheckOptions& options) {
  if (options.policy == LaunchPolicy::none) {
    return {};
  }
  const std::vector<fs::path> files = file_set(tree);
  // The runtime's folder, entry by entry (links followed: a dangling one has no identity), for the key.
  std::vector<fs::path> every_file = files;
  if (options.runtime) {
    for (const auto& entry : util::directory_entries(options.runtime_dir)) every_file.push_back(entry.path);
  }
  const std::string key = cache_key(tree, every_file, options);
  if (!key.empty()) {
    if (auto text = util::read_file(options.cache_file)) {
      for (const auto& line : util::split(*text, '\n')) {
        if (line == key) {
          spdlog::debug("pin check ({}) of '{}': passed before, no file changed since (cache)",
                        to_string(options.policy), tree.name);
          return {};
        }
      }
    }
  }
  spdlog::debug("pin check ({}) of '{}': {}", to_string(options.policy), tree.name,
                key.empty() ? "a file cannot be read" : "not in the cache: checking");
  const std::string hint =
      "see 'cudnnenv verify " + util::command_word(tree.name) + "'; launch anyway with " + options.skip_check;
  if (auto complete = check_file_set(tree, files, hint, options.environment); !complete) {
    return complete;
  }
  if (options.runtime) {
    // A library of the runtime gone: the program would load its own copy, or none, silently.
    if (const auto runtime = options.runtime()) {
      const std::string runtime_hint =
          "see 'cudnnenv verify " + util::command_word(runtime->name) + "'; launch anyway with " + options.skip_check;
      if (auto complete = check_file_set(*runtime, file_set(*runtime), runtime_hint, options.environment); !complete) {
        return complete;
      }
      // A library the runtime's own libraries need and it lacks (a wheel half uninstalled): the fence would
      // fail its load, and without the fence the program would mix in another copy.
      const fs::path runtime_dir = runtime->resolve(runtime->layout.library_dir);
      if (const auto unmet = unmet_runtime_needs(runtime_dir, runtime->platform.os); !unmet.empty()) {
        return make_error("the CUDA runtime '" + util::printable(runtime->name) +
                              "' is incomplete: " + util::to_utf8(runtime_dir) + " lacks " + describe_unmet(unmet),
                          runtime_heal_hint(*runtime, options.store_runtimes &&
                                                          has_heal_donor(*runtime, unmet, options.store_runtimes())) +
                              "; launch anyway with " + options.skip_check + " (" +
                              unmet_loads_unchecked(unmet, runtime->platform.os) + ")",
                          ExitCode::verify_failed);
      }
    }
  }
  if (options.policy == LaunchPolicy::load) {
    // verify's own load check of the main library: the same words as 'cudnnenv verify --level load'.
    const MainLoadCheck main =
        check_main_library(tree, options.probe_program, std::chrono::seconds(30), options.runtime_dir);
    // Then what every library of the set needs, from its tables: a
    // sub-library's missing cuBLAS fails only at the program's first call.
    const auto missing = missing_dependencies_of_set(tree, options.environment, options.runtime_dir);
    if (main.check.status == CheckStatus::failed) {
      // "Module not found (126)" alone does not say which: the tables do.
      return make_error("the pin check failed: " + main.check.name + ": " + main.check.detail +
                            (missing.empty() ? std::string() : "; " + missing.front()),
                        hint, ExitCode::verify_failed);
    }
    if (!missing.empty()) {
      // Said, not refused: a framework may load them itself first (PyTorch's
      // wheels bring cuBLAS), and a loaded library of that name then serves.
      // Not remembered as passed, so it is said at each start until fixed.
      for (const auto& line : missing) {
        spdlog::warn(
            "{}: the program fails at the first call that needs it unless it loads that library itself; "
            "see 'cudnnenv verify {}'",
            line, tree.name);
      }
      return {};
    }
  } else {
    VerifyOptions verify;
    verify.level = VerifyLevel::conv;
    verify.probe_program = options.probe_program;
    verify.runtime_dir = options.runtime_dir;
    verify.devices = std::to_string(options.device);
    const VerifyReport report = verify_tree(tree, verify);
    for (const auto& check : report.checks) {
      if (check.status == CheckStatus::failed) {
        return make_error("the pin check failed: " + check.name + ": " + check.detail, hint, ExitCode::verify_failed);
      }
    }
    if (report.gpu_unavailable) {
      return make_error("the 'conv' launch check needs a GPU, and there is none here", "use " + options.load_check,
                        ExitCode::verify_failed);
    }
  }
  if (!key.empty()) {
    remember(options, key);
  }
  return {};
}

Result<void> check_before_start(const std::string& verify, int device, const Store& store, const Selection& selection,
                                const util::Environment& process_environment, const util::Environment& environment,
                                TreeRecord& tree, bool slurm_task) {
  CUDNNENV_TRY_ASSIGN(policy,
                      choose_launch_policy(verify.empty() ? std::nullopt : std::optional(verify), process_environment,
                                           selection.project ? selection.project->verify_on_launch : std::nullopt));
  PinCheckOptions check;
  check.policy = *policy;
  check.probe_program = probe_program_beside(util::installed_program());
  check.cache_file = store.state().pin_checks();
  check.device = device;
  check.environment = environment;
  if (slurm_task) {
    check.skip_check = "srun --cudnn-verify=none";
    check.load_check = "srun --cudnn-verify=load";
  }
  if (selection.runtime()) check.runtime_dir = selection.runtime()->resolve(selection.runtime()->layout.library_dir);
  if (*policy != LaunchPolicy::none) {
    // The file manifest, for the check of the whole file set: from the store's
    // folder of the tree, also for an adopted tree (its root is elsewhere; #11).
    if (auto full = store.full_record(tree); full) tree = *full;
    if (selection.runtime()) {
      check.runtime = [&store, runtime = *selection.runtime()]() -> std::optional<TreeRecord> {
        auto full = store.full_record(runtime);
        return full ? *full : runtime;
      };
      check.store_runtimes = [&store] { return store.list().of(TreeKind::cuda); };
    }
  }
  return check_pin(tree, check);
}

}  // namespace cudnnenv
