#include "doctor/selftest.hpp"

#include <algorithm>
#include <random>

#ifndef _WIN32
#include <sys/utsname.h>
#endif

#include "formats/platform.hpp"
#include "store/state.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_pinned = "pinned";  // the trees' names in the temporary store
constexpr const char* k_stray = "stray";
constexpr const char* k_pinned_version = "9.90.1";
constexpr const char* k_stray_version = "9.90.2";
constexpr const char* k_loader = "cudnnenv-selftest-load";

// What the loader printed, in words.
std::string named_version(const std::string& printed) {
  if (printed == "99001") return std::string(k_pinned_version) + " (the pinned tree)";
  if (printed == "99002") return std::string(k_stray_version) + " (the stray copy)";
  return printed;
}

// A cuDNN 9 release's files for Linux, every library the one test library
// under its name (as tests/e2e/trees.sh's make_linux_tree does).
Result<void> make_linux_tree(const fs::path& folder, const fs::path& library, const std::string& version) {
  std::error_code ec;
  fs::create_directories(folder / "lib", ec);
  fs::create_directories(folder / "include", ec);
  for (const char* base : {"cudnn", "cudnn_graph", "cudnn_ops", "cudnn_cnn", "cudnn_adv", "cudnn_heuristic",
                           "cudnn_engines_precompiled", "cudnn_engines_runtime_compiled"}) {
    const std::string file = "lib" + std::string(base) + ".so." + version;
    fs::copy_file(library, folder / "lib" / file, fs::copy_options::overwrite_existing, ec);
    if (ec) return make_error("cannot copy '" + util::to_utf8(library) + "': " + ec.message());
    fs::create_symlink(file, folder / "lib" / ("lib" + std::string(base) + ".so.9"), ec);
  }
  const auto fields = util::split(version, '.');
  CUDNNENV_TRY(util::write_file_atomic(folder / "include" / "cudnn_version.h",
                                       "#define CUDNN_MAJOR " + fields[0] + "\n#define CUDNN_MINOR " + fields[1] +
                                           "\n#define CUDNN_PATCHLEVEL " + fields[2] + "\n"));
  for (const char* header : {"cudnn", "cudnn_graph", "cudnn_ops", "cudnn_cnn", "cudnn_adv", "cudnn_backend"}) {
    CUDNNENV_TRY(util::write_file_atomic(folder / "include" / (std::string(header) + ".h"),
                                         "/* " + std::string(header) + " */\n"));
  }
  return {};
}

// The first `name` on the environment's PATH.
std::optional<fs::path> on_path(const util::Environment& environment, const std::string& name) {
  std::error_code ec;
  for (const auto& entry : util::split_path_list(environment.get("PATH").value_or(""))) {
    if (entry.empty()) continue;
    const fs::path candidate = util::path_from_utf8(entry) / name;
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  return std::string(util::trim(end == std::string::npos ? text : text.substr(0, end)));
}

class Run {
 public:
  Run(const SelftestOptions& options, fs::path root, fs::path work)
      : m_options(options), m_root(std::move(root)), m_work(std::move(work)) {}

  Result<void> set_up() {
    std::error_code ec;
    for (const char* asset :
         {k_loader, "cudnnenv-selftest-load-rpath", "cudnnenv-selftest-9.90.1.so", "cudnnenv-selftest-9.90.2.so"}) {
      if (!fs::is_regular_file(m_options.assets / asset, ec)) {
        return make_error("the selftest's file '" + util::to_utf8(m_options.assets / asset) + "' is missing",
                          "reinstall cudnnenv: the package installs them beside the program");
      }
    }
    CUDNNENV_TRY(
        make_linux_tree(m_work / "release-a", m_options.assets / "cudnnenv-selftest-9.90.1.so", k_pinned_version));
    CUDNNENV_TRY(
        make_linux_tree(m_work / "release-b", m_options.assets / "cudnnenv-selftest-9.90.2.so", k_stray_version));
    for (const auto& [release, name] : {std::pair{"release-a", k_pinned}, std::pair{"release-b", k_stray}}) {
      auto installed = cudnnenv({"install", util::to_utf8(m_work / release), "--name", name});
      if (!installed) return installed.error();
      if (installed->exit_code != 0) {
        return make_error("the selftest could not install its test tree: " + first_line(installed->err),
                          "run it again with --keep and look at '" + util::to_utf8(m_root) + "'");
      }
    }
    // The program's folder: the loaders, and the rpath one's decoy-lib (the stray tree).
    fs::create_directories(m_work / "program", ec);
    for (const char* loader : {k_loader, "cudnnenv-selftest-load-rpath"}) {
      fs::copy_file(m_options.assets / loader, m_work / "program" / loader, fs::copy_options::overwrite_existing, ec);
    }
    fs::create_directory_symlink(m_root / k_stray / "lib", m_work / "program" / "decoy-lib", ec);
    // A user's environment, less any selection of theirs, with the stray copy first on LD_LIBRARY_PATH.
    m_environment = m_options.environment;
    for (const char* name : {"CUDNNENV_VERSION", "CUDNNENV_ACTIVATED", "_CUDNNENV_STATE", "CUDNNENV_STATE_DIR",
                             "CUDNNENV_VERIFY", "LD_PRELOAD", "LD_AUDIT"}) {
      m_environment.unset(name);
    }
    m_environment.set("CUDNNENV_ROOT", util::to_utf8(m_root));
    m_environment.set("LD_LIBRARY_PATH", util::to_utf8(m_root / k_stray / "lib"));
    return {};
  }

  void run_cases(SelftestReport& report) {
    const std::string loader = util::to_utf8(m_work / "program" / k_loader);
    const std::string rpath_loader = util::to_utf8(m_work / "program" / "cudnnenv-selftest-load-rpath");
    const std::string stray_file = util::to_utf8(m_root / k_stray / "lib" / "libcudnn.so.9");
    const std::vector<std::string> exec = {"exec", "--cudnn", k_pinned};
    auto with = [](std::vector<std::string> words, std::initializer_list<std::string> more) {
      words.insert(words.end(), more);
      return words;
    };
    add(report, "exec-audit", "cudnnenv exec (audit module), the stray copy first on LD_LIBRARY_PATH",
        with(exec, {"--report", "--json", "--", loader}), {loader}, true);
    add(report, "exec-preload", "cudnnenv exec --mode preload", with(exec, {"--mode", "preload", "--", loader}),
        {loader});
    add(report, "exec-path", "cudnnenv exec --mode path (LD_LIBRARY_PATH only)",
        with(exec, {"--mode", "path", "--", loader}), {loader});
    add(report, "exec-absolute", "cudnnenv exec, the program loading the stray copy by absolute path",
        with(exec, {"--", loader, stray_file}), {loader, stray_file});
    add(report, "exec-rpath", "cudnnenv exec, the program's DT_RPATH naming the stray copy's folder",
        with(exec, {"--", rpath_loader}), {rpath_loader});
    shim_cases(report, loader);
    for (const char* shell : {"bash", "zsh", "fish"}) {
      activation_case(report, shell, loader);
    }
  }

 private:
  Result<util::ProcessOutcome> cudnnenv(std::vector<std::string> arguments,
                                        const util::Environment* environment = nullptr) {
    util::ProcessSpec spec;
    spec.program = m_options.program;
    spec.arguments = {"--root", util::to_utf8(m_root)};
    spec.arguments.insert(spec.arguments.end(), arguments.begin(), arguments.end());
    spec.environment = environment ? *environment : m_options.environment;
    spec.timeout = std::chrono::seconds(60);
    return util::run_process(spec);
  }

  bool wanted(const std::string& id) const { return m_options.only.empty() || m_options.only == id; }

  // Runs `pinned` (words after `cudnnenv --root ROOT`), or the loader
  // directly (`unpinned`: the test-only switch) and records what loaded.
  void add(SelftestReport& report, const std::string& id, const std::string& how, std::vector<std::string> pinned,
           std::vector<std::string> unpinned, bool check_report = false) {
    if (!wanted(id)) return;
    Result<util::ProcessOutcome> outcome = make_error("");
    if (m_options.unpinned) {
      util::ProcessSpec spec;
      spec.program = util::path_from_utf8(unpinned.front());
      spec.arguments.assign(unpinned.begin() + 1, unpinned.end());
      spec.environment = m_environment;
      outcome = util::run_process(spec);
    } else {
      outcome = cudnnenv(std::move(pinned), &m_environment);
    }
    record(report, id, how, outcome, check_report);
  }

  void record(SelftestReport& report, const std::string& id, const std::string& how,
              const Result<util::ProcessOutcome>& outcome, bool check_report) {
    SelftestCase result{id, how, named_version("99001"), {}, SelftestStatus::held, {}};
    if (!outcome) {
      result.loaded = "nothing";
      result.status = SelftestStatus::failed;
      result.detail = outcome.error().message;
    } else {
      const std::string printed(util::trim(outcome->out));
      result.loaded = printed.empty() ? "nothing" : named_version(printed);
      if (printed != "99001") {
        result.status = SelftestStatus::failed;
        result.detail =
            printed.empty() ? first_line(outcome->err) : "the program loaded another copy than the pinned tree's";
      } else if (check_report && !m_options.unpinned) {
        // --report's JSON on stderr: every cuDNN file it names inside the tree.
        const auto at = outcome->err.rfind("{\"tree\"");
        if (at == std::string::npos || outcome->err.find("\"outside\":0", at) == std::string::npos) {
          result.status = SelftestStatus::failed;
          result.detail = "--report did not name only the tree's files: " +
                          first_line(outcome->err.substr(at == std::string::npos ? 0 : at));
        }
      }
    }
    report.cases.push_back(std::move(result));
  }

  void shim_cases(SelftestReport& report, const std::string& loader) {
    if (!wanted("shim") && !wanted("shim-cached")) return;
    auto state = state_folder_for(m_root, m_environment, host_platform().os);
    const fs::path shim = StatePaths{state ? *state : fs::path()}.shims() / k_loader;
    auto added = cudnnenv({"shim", "add", k_loader, "--target", loader}, &m_environment);
    if (!added || added->exit_code != 0) {
      report.cases.push_back({"shim", "a shim (cudnnenv shim add)", named_version("99001"), "nothing",
                              SelftestStatus::failed,
                              added ? "shim add failed: " + first_line(added->err) : added.error().message});
      return;
    }
    util::Environment environment = m_environment;
    environment.set("CUDNNENV_VERSION", k_pinned);
    for (const auto& [id, how] :
         {std::pair<std::string, std::string>{"shim", "a shim, its first start (the slow path)"},
          {"shim-cached", "the shim again (its cached decision, one execv)"}}) {
      if (!wanted(id)) continue;
      util::ProcessSpec spec;
      spec.program = m_options.unpinned ? util::path_from_utf8(loader) : shim;
      spec.environment = environment;
      record(report, id, how, util::run_process(spec), false);
    }
  }

  void activation_case(SelftestReport& report, const std::string& shell, const std::string& loader) {
    const std::string id = "activate-" + shell;
    if (!wanted(id)) return;
    const auto found = on_path(m_environment, shell);
    if (!found) return;  // a shell this machine does not have: no case
    util::Environment environment = m_environment;
    environment.set("SELFTEST_PROGRAM", util::to_utf8(m_options.program));
    environment.set("SELFTEST_LOADER", loader);
    util::ProcessSpec spec;
    spec.program = *found;
    if (m_options.unpinned) {
      spec.arguments = {"-c", shell == "fish" ? "exec $SELFTEST_LOADER" : "exec \"$SELFTEST_LOADER\""};
    } else if (shell == "fish") {
      spec.arguments = {"-c", "$SELFTEST_PROGRAM activate pinned --shell fish | source; and exec $SELFTEST_LOADER"};
    } else {
      spec.arguments = {
          "-c", "eval \"$(\"$SELFTEST_PROGRAM\" activate pinned --shell " + shell + ")\" && exec \"$SELFTEST_LOADER\""};
    }
    spec.environment = environment;
    spec.timeout = std::chrono::seconds(60);
    record(report, id, "eval of `cudnnenv activate` in " + shell + ", then the program", util::run_process(spec),
           false);
  }

  const SelftestOptions& m_options;
  fs::path m_root;
  fs::path m_work;
  util::Environment m_environment;
};

std::string os_description() {
#ifdef _WIN32
  return "Windows";
#else
  utsname name{};
  if (::uname(&name) != 0) return "Linux";
  return std::string(name.sysname) + " " + name.release + " " + name.machine;
#endif
}

std::vector<std::pair<std::string, std::string>> shell_versions(const util::Environment& environment) {
  std::vector<std::pair<std::string, std::string>> shells;
  for (const char* shell : {"bash", "zsh", "fish"}) {
    const auto found = on_path(environment, shell);
    if (!found) continue;
    util::ProcessSpec spec;
    spec.program = *found;
    spec.arguments = {"--version"};
    spec.environment = environment;
    spec.timeout = std::chrono::seconds(10);
    auto outcome = util::run_process(spec);
    shells.emplace_back(shell, outcome ? first_line(outcome->out) : std::string());
  }
  return shells;
}

}  // namespace

bool SelftestReport::passed() const {
  return std::none_of(cases.begin(), cases.end(),
                      [](const SelftestCase& each) { return each.status == SelftestStatus::failed; });
}

std::vector<std::string> selftest_case_ids() {
  return {"exec-audit", "exec-preload", "exec-path",     "exec-absolute", "exec-rpath",
          "shim",       "shim-cached",  "activate-bash", "activate-zsh",  "activate-fish"};
}

std::string to_string(SelftestStatus status) {
  return status == SelftestStatus::held ? "held" : status == SelftestStatus::failed ? "failed" : "unprovable";
}

Result<SelftestReport> run_selftest(const SelftestOptions& options) {
  if (host_platform().os == Os::windows) {
    return make_error(
        "selftest runs its Linux cases only so far: the Windows cases (the DLL pair, each load style, "
        "cmd and PowerShell) are not written yet",
        "run 'cudnnenv doctor' for what can be checked here");
  }
  SelftestReport report;
  report.os = os_description();
  report.shells = shell_versions(options.environment);
  std::random_device random;
  // A space, '&' and letters outside ASCII in the store's path, on purpose.
  const fs::path work = fs::temp_directory_path() /
                        util::path_from_utf8("cudnnenv selftest 库 & " + std::to_string(util::current_process_id()) +
                                             "-" + std::to_string(random() % 100000));
  report.store = work / "store";
  std::error_code ec;
  fs::create_directories(report.store, ec);
  if (ec) return make_error("cannot create '" + util::to_utf8(work) + "': " + ec.message());
  Run run(options, report.store, work);
  auto set_up = run.set_up();
  if (set_up) run.run_cases(report);
  report.kept = options.keep;
  if (!options.keep) util::remove_tree(work);
  if (!set_up) return set_up.error();
  return report;
}

}  // namespace cudnnenv
