#include "doctor/selftest.hpp"

#include <algorithm>
#include <random>

#include "doctor/facts.hpp"
#include "formats/platform.hpp"
#include "store/layout.hpp"
#include "store/state.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"
#include "util/process.hpp"
#include "util/shortcut.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_pinned = "pinned";  // the cuDNN 9 trees' names in the temporary store
constexpr const char* k_stray = "stray";
constexpr const char* k_loader = "cudnnenv-selftest-load";
constexpr const char* k_profile = "cudnnenv-selftest";  // a profile of the temporary store's config.toml

// The four test trees: cuDNN 9's pair and cuDNN 8's (the names TensorFlow's
// Windows builds load), each made from the shipped test library of its
// version, with what that library's cudnnGetVersion() prints.
struct TestTree {
  const char* name;     // in the temporary store
  const char* release;  // the folder it is made in, then installed from
  const char* version;  // sentinel: no cuDNN release has it
  const char* printed;  // cudnnGetVersion()
  int major;
  bool pinned;  // the tree each case pins, else the stray copy
};
constexpr TestTree k_trees[] = {{k_pinned, "release-a", "9.90.1", "99001", 9, true},
                                {k_stray, "release-b", "9.90.2", "99002", 9, false},
                                {"pinned-8", "release-a8", "8.1.90", "8190", 8, true},
                                {"stray-8", "release-b8", "8.1.91", "8191", 8, false}};

const TestTree& test_tree(int major, bool pinned) {
  for (const auto& tree : k_trees) {
    if (tree.major == major && tree.pinned == pinned) return tree;
  }
  return k_trees[0];
}

// What the loader printed, in words.
std::string named_version(const std::string& printed) {
  for (const auto& tree : k_trees) {
    if (printed == tree.printed) {
      return std::string(tree.version) + (tree.pinned ? " (the pinned tree)" : " (the stray copy)");
    }
  }
  return printed;
}

// A release's files as `expected_set` names them (Linux: lib, include;
// Windows: bin, include, lib\x64), every library the one test library under
// its name (as tests/e2e/trees.sh's make_*_tree do), cudnn_version.h saying
// the tree's version.
Result<void> make_tree(const fs::path& folder, const fs::path& library, const TestTree& tree) {
  const bool windows = windows_host();
  const ExpectedSet set = expected_set(parse_version(tree.version).value_or(Version{tree.major, 0, 0, {}}),
                                       windows ? Os::windows : Os::linux);
  const fs::path libraries = folder / (windows ? "bin" : "lib");
  std::error_code ec;
  for (const fs::path& sub : {libraries, folder / "include", folder / "lib" / "x64"}) fs::create_directories(sub, ec);
  for (const auto& name : set.libraries) {
    // Linux: the file of the full version, and its soname a link to it.
    const std::string file = windows ? name : name.substr(0, name.rfind(".so.") + 4) + tree.version;
    fs::copy_file(library, libraries / file, fs::copy_options::overwrite_existing, ec);
    if (ec) return make_error("cannot copy '" + util::to_utf8(library) + "': " + ec.message());
    if (!windows) fs::create_symlink(file, libraries / name, ec);
  }
  for (const auto& name : set.import_libs) {
    CUDNNENV_TRY(util::write_file_atomic(folder / "lib" / "x64" / name, "!<arch>\n"));
  }
  const auto fields = util::split(tree.version, '.');
  for (const auto& header : set.headers) {
    CUDNNENV_TRY(util::write_file_atomic(
        folder / "include" / header, header == "cudnn_version.h"
                                         ? "#define CUDNN_MAJOR " + fields[0] + "\n#define CUDNN_MINOR " + fields[1] +
                                               "\n#define CUDNN_PATCHLEVEL " + fields[2] + "\n"
                                         : "/* " + header + " */\n"));
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

// One case: what runs with the pin, what runs without it (the test-only
// switch), and what it must show.
struct CaseSpec {
  std::string id;
  std::string how;
  std::vector<std::string> pinned;  // words after `cudnnenv --root ROOT`
  std::vector<std::string> direct;  // the program and its arguments, started without the pin
  fs::path working_folder;          // empty: this process's
  fs::path root;                    // the store, when not the temporary one
  bool check_report = false;        // --report --json on stderr must name only the tree's files
  // A load by full path, which no launcher can turn: the stray copy loads,
  // and the case holds when --report names it outside the tree (exit 4).
  bool stray_reported = false;
  std::string wine_cannot;  // why Wine cannot show this case; empty when it can
  int major = 9;            // the trees it pins and meets: cuDNN 9's, or 8's
};

// The loader's first word on Windows (its load style); Linux's takes none.
std::vector<std::string> loader_words(const std::string& loader, std::initializer_list<std::string> more) {
  std::vector<std::string> words{loader};
  words.insert(words.end(), more);
  return words;
}

std::vector<std::string> concat(std::vector<std::string> words, const std::vector<std::string>& more) {
  words.insert(words.end(), more.begin(), more.end());
  return words;
}

CaseSpec named(std::string id, std::string how) {
  CaseSpec spec;
  spec.id = std::move(id);
  spec.how = std::move(how);
  return spec;
}

// exec (with `options` of its own) of `program`, pinned to cuDNN `major`'s
// pinned tree; without the pin, `program` alone.
CaseSpec through_exec(std::string id, std::string how, std::vector<std::string> program,
                      const std::vector<std::string>& options = {}, int major = 9) {
  CaseSpec spec = named(std::move(id), std::move(how));
  spec.pinned = concat(concat(concat({"exec", "--cudnn", test_tree(major, true).name}, options), {"--"}), program);
  spec.direct = std::move(program);
  spec.major = major;
  return spec;
}

CaseSpec unprovable_under_wine(CaseSpec spec, const char* why) {
  spec.wine_cannot = why;
  return spec;
}

// A case that did not run here: why (`detail`), and what kept it from being
// shown ("wine", "temporary folder"), or a failure before the program ran
// (`unprovable` empty).
SelftestCase not_run(const CaseSpec& spec, std::string detail, std::string unprovable) {
  SelftestCase result;
  result.id = spec.id;
  result.how = spec.how;
  result.expected = named_version(test_tree(spec.major, true).printed);
  result.loaded = "nothing";
  result.status = unprovable.empty() ? SelftestStatus::failed : SelftestStatus::unprovable;
  result.detail = std::move(detail);
  result.unprovable = std::move(unprovable);
  return result;
}

constexpr const char* k_wine_set_dll_directory =
    "Wine passes a launcher's SetDllDirectoryW to no child, so PATH alone carries the pin to a grandchild, and "
    "the program here puts the stray copy first on PATH; real Windows passes it on";
constexpr const char* k_wine_default_dirs =
    "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS and AddDllDirectory are Wine's own implementation, not Windows' loader";
constexpr const char* k_wine_long_paths =
    "Wine opens paths past 260 characters whatever LongPathsEnabled says; Windows' loader may not";
constexpr const char* k_wine_system32 = "Wine's System32 is a folder of its prefix, with no KnownDLLs of Windows'";

class Run {
 public:
  Run(const SelftestOptions& options, fs::path root, fs::path work, fs::path plain_work, bool wine)
      : m_options(options),
        m_root(std::move(root)),
        m_work(std::move(work)),
        m_plain_work(std::move(plain_work)),
        m_wine(wine) {}

  Result<void> set_up() {
    const bool windows = windows_host();
    const std::string loader = windows ? std::string(k_loader) + ".exe" : k_loader;
    const std::string suffix = windows ? ".dll" : ".so";
    std::vector<std::string> assets = {loader};
    for (const auto& tree : k_trees) assets.push_back("cudnnenv-selftest-" + std::string(tree.version) + suffix);
    if (!windows) {
      assets.push_back("cudnnenv-selftest-load-rpath");
      assets.push_back("cudnnenv-selftest-load-runpath");
    }
    std::error_code ec;
    for (const auto& asset : assets) {
      if (!fs::is_regular_file(m_options.assets / asset, ec)) {
        return make_error("the selftest's file '" + util::to_utf8(m_options.assets / asset) + "' is missing",
                          "reinstall cudnnenv: the package installs them beside the program");
      }
    }
    for (const auto& tree : k_trees) {
      CUDNNENV_TRY(make_tree(m_work / tree.release,
                             m_options.assets / ("cudnnenv-selftest-" + std::string(tree.version) + suffix), tree));
      CUDNNENV_TRY(install(m_root, m_work / tree.release, tree.name));
    }
    // The program's folder: the loaders (Linux: the rpath one's decoy-lib, the stray tree).
    fs::create_directories(m_work / "program", ec);
    for (const auto& asset : assets) {
      if (asset.find("-load") == std::string::npos) continue;
      fs::copy_file(m_options.assets / asset, m_work / "program" / asset, fs::copy_options::overwrite_existing, ec);
      if (ec) return make_error("cannot copy '" + util::to_utf8(m_options.assets / asset) + "': " + ec.message());
    }
    m_environment = m_options.environment;
    for (const char* name : {"CUDNNENV_VERSION", "CUDNNENV_ACTIVATED", "_CUDNNENV_STATE", "CUDNNENV_STATE_DIR",
                             "CUDNNENV_VERIFY", "LD_PRELOAD", "LD_AUDIT"}) {
      m_environment.unset(name);
    }
    m_environment.set("CUDNNENV_ROOT", util::to_utf8(m_root));
    if (windows) return set_up_windows();
    fs::create_directory_symlink(m_root / k_stray / "lib", m_work / "program" / "decoy-lib", ec);
    // A user's environment, less any selection of theirs, with the stray copy first on LD_LIBRARY_PATH.
    m_environment.set("LD_LIBRARY_PATH", util::to_utf8(m_root / k_stray / "lib") + ":" +
                                             util::to_utf8(m_root / test_tree(8, false).name / "lib"));
    return {};
  }

  void run_cases(SelftestReport& report) {
    if (windows_host()) {
      windows_cases(report);
      return;
    }
    const std::string loader = util::to_utf8(m_work / "program" / k_loader);
    const std::string rpath_loader = util::to_utf8(m_work / "program" / "cudnnenv-selftest-load-rpath");
    const std::string stray_file = util::to_utf8(m_root / k_stray / "lib" / "libcudnn.so.9");
    CaseSpec audit = through_exec("exec-audit", "cudnnenv exec (audit module), the stray copy first on LD_LIBRARY_PATH",
                                  {loader}, {"--report", "--json"});
    audit.check_report = true;
    add(report, audit);
    CaseSpec cudnn8 = through_exec("exec-cudnn8",
                                   "cuDNN 8's names: libcudnn.so.8 by name, the stray 8.1.91 on LD_LIBRARY_PATH "
                                   "(cudnnenv exec --report)",
                                   {loader, "libcudnn.so.8"}, {"--report", "--json"}, 8);
    cudnn8.check_report = true;
    add(report, cudnn8);
    preload_case(report, rpath_loader);
    add(report,
        through_exec("exec-path", "cudnnenv exec --mode path (LD_LIBRARY_PATH only)", {loader}, {"--mode", "path"}));
    add(report, through_exec("exec-absolute", "cudnnenv exec, the program loading the stray copy by absolute path",
                             {loader, stray_file}));
    add(report, through_exec("exec-rpath", "cudnnenv exec, the program's DT_RPATH naming the stray copy's folder",
                             {rpath_loader}));
    add(report, through_exec("exec-runpath", "cudnnenv exec, the program's DT_RUNPATH naming the stray copy's folder",
                             {util::to_utf8(m_work / "program" / "cudnnenv-selftest-load-runpath")}));
    shim_cases(report, loader, {});
    bundle_cases(report, {loader, "libcudnn.so.9"});
    const auto profile = profile_scripts();
    const auto conda = conda_hooks(m_root, m_work / "conda env");
    for (const std::string shell : {"bash", "zsh", "fish"}) {
      const bool fish = shell == "fish";
      posix_case(report, named("activate-" + shell, "eval of `cudnnenv activate` in " + shell + ", then the program"),
                 shell, loader,
                 fish ? "$SELFTEST_PROGRAM activate pinned --shell fish | source"
                      : "eval \"$(\"$SELFTEST_PROGRAM\" activate pinned --shell " + shell + ")\"",
                 fs::path());
      const std::string source = fish ? "source $SELFTEST_SCRIPT" : ". \"$SELFTEST_SCRIPT\"";
      const std::string extension = fish ? ".fish" : ".sh";
      posix_case(report,
                 named("profile-" + shell, shell + ": the script `profile generate` wrote (activate" + extension +
                                               "), sourced, then the program"),
                 shell, loader, source, in_folder(profile, "activate" + extension));
      posix_case(report,
                 named("conda-" + shell, shell + ": the conda env's hook `export conda` wrote (cudnnenv-activate" +
                                             extension + "), sourced as `conda activate` does, then the program"),
                 shell, loader, source, in_folder(conda, "cudnnenv-activate" + extension));
    }
  }

 private:
  Result<util::ProcessOutcome> cudnnenv(std::vector<std::string> arguments,
                                        const util::Environment* environment = nullptr, const fs::path& root = {}) {
    util::ProcessSpec spec;
    spec.program = m_options.program;
    spec.arguments = {"--root", util::to_utf8(root.empty() ? m_root : root)};
    spec.arguments.insert(spec.arguments.end(), arguments.begin(), arguments.end());
    spec.environment = environment ? *environment : m_options.environment;
    spec.timeout = std::chrono::seconds(60);
    return util::run_process(spec);
  }

  Result<void> install(const fs::path& root, const fs::path& release, const std::string& name) {
    auto installed = cudnnenv({"install", util::to_utf8(release), "--name", name}, nullptr, root);
    if (!installed) return installed.error();
    if (installed->exit_code != 0) {
      return make_error("the selftest could not install its test tree: " + first_line(installed->err),
                        "run it again with --keep and look at '" + util::to_utf8(root) + "'");
    }
    return {};
  }

  // Windows: the stray copy in the working folder and beside a second copy
  // of the loader, a batch file that starts the loader, a store past 260
  // characters, the stray tree first on PATH, and (--system32) a copy in
  // System32.
  Result<void> set_up_windows() {
    std::error_code ec;
    const fs::path stray_dll = m_root / k_stray / "bin" / "cudnn64_9.dll";
    for (const char* folder : {"working-folder", "program-folder"}) {
      fs::create_directories(m_work / folder, ec);
      fs::copy_file(stray_dll, m_work / folder / "cudnn64_9.dll", fs::copy_options::overwrite_existing, ec);
      if (ec) return make_error("cannot copy '" + util::to_utf8(stray_dll) + "': " + ec.message());
    }
    fs::copy_file(m_work / "program" / (std::string(k_loader) + ".exe"),
                  m_work / "program-folder" / (std::string(k_loader) + ".exe"), fs::copy_options::overwrite_existing,
                  ec);
    // The 32-bit stray copy (when shipped) beside a third copy of the loader.
    if (const fs::path x86 = m_options.assets / "cudnnenv-selftest-9.90.2-x86.dll"; fs::is_regular_file(x86, ec)) {
      fs::create_directories(m_work / "program-x86-copy", ec);
      fs::copy_file(x86, m_work / "program-x86-copy" / "cudnn64_9.dll", fs::copy_options::overwrite_existing, ec);
      fs::copy_file(m_work / "program" / (std::string(k_loader) + ".exe"),
                    m_work / "program-x86-copy" / (std::string(k_loader) + ".exe"),
                    fs::copy_options::overwrite_existing, ec);
      if (ec) return make_error("cannot copy '" + util::to_utf8(x86) + "': " + ec.message());
    }
    fs::create_directories(m_work / "own-dlls", ec);  // the program's own AddDllDirectory folder
    CUDNNENV_TRY(util::write_file_atomic(m_work / "program" / "run-loader.bat",
                                         "@\"%~dp0" + std::string(k_loader) + ".exe\" bare\r\n"));
    if (wanted("exec-long-path")) {
      // Four folders of 64 letters below the temporary folder: every file of the tree past 260 characters.
      m_long_root = m_work;
      for (char letter : {'a', 'b', 'c', 'd'}) m_long_root /= std::string(64, letter);
      fs::create_directories(m_long_root, ec);
      if (ec) return make_error("cannot create '" + util::to_utf8(m_long_root) + "': " + ec.message());
      CUDNNENV_TRY(install(m_long_root, m_work / "release-a", k_pinned));
    }
    std::string path =
        util::to_utf8(m_root / k_stray / "bin") + ";" + util::to_utf8(m_root / test_tree(8, false).name / "bin");
    if (const auto user = m_environment.get("PATH"); user && !user->empty()) path += ";" + *user;
    m_environment.set("PATH", path);
    if (m_options.system32 && wanted("exec-system32")) {
      // Placed for its case only (activation, which has only PATH, cannot come before System32); tried here
      // once so that a prompt that is not elevated is said before anything runs.
      CUDNNENV_TRY_ASSIGN(system, util::system_folder());
      const fs::path copy = *system / "cudnn64_9.dll";
      if (fs::exists(copy, ec) || fs::is_symlink(copy, ec)) {
        return make_error("'" + util::to_utf8(copy) + "' exists: the selftest never replaces a file in System32",
                          "run it without --system32; 'cudnnenv doctor' names what that copy shadows");
      }
      m_system32_copy = copy;
      CUDNNENV_TRY(place_system32_copy());
      clean_up();
    }
    return {};
  }

  // Copies the stray DLL into System32, never over a file (copy_file fails
  // when one is there): only a copy placed here is ever removed.
  Result<void> place_system32_copy() {
    std::error_code ec;
    fs::copy_file(m_root / k_stray / "bin" / "cudnn64_9.dll", m_system32_copy, ec);
    if (ec) {
      return make_error(
          "cannot put a test copy in '" + util::to_utf8(m_system32_copy.parent_path()) + "': " + ec.message(),
          "run --system32 from an elevated prompt, or leave it out");
    }
    m_system32_placed = true;
    return {};
  }

  void windows_cases(SelftestReport& report) {
    const std::string loader = util::to_utf8(m_work / "program" / (std::string(k_loader) + ".exe"));
    const std::string beside = util::to_utf8(m_work / "program-folder" / (std::string(k_loader) + ".exe"));
    const std::string stray_file = util::to_utf8(m_root / k_stray / "bin" / "cudnn64_9.dll");
    const std::string stray_bin = util::to_utf8(m_root / k_stray / "bin");
    const std::string own_dlls = util::to_utf8(m_work / "own-dlls");
    const std::string batch = util::to_utf8(m_work / "program" / "run-loader.bat");
    const std::vector<std::string> bare = loader_words(loader, {"bare"});
    CaseSpec audit =
        through_exec("exec-audit", "cudnnenv exec --report, LoadLibraryW by name, the stray copy first on PATH", bare,
                     {"--report", "--json"});
    audit.check_report = true;
    add(report, audit);
    CaseSpec cudnn8 =
        through_exec("exec-cudnn8",
                     "cuDNN 8's names: cudnn64_8.dll by LoadLibraryW, the stray 8.1.91 on PATH "
                     "(cudnnenv exec --report)",
                     loader_words(loader, {"--name", "cudnn64_8.dll", "bare"}), {"--report", "--json"}, 8);
    cudnn8.check_report = true;
    add(report, cudnn8);
    add(report, through_exec("exec-path", "cudnnenv exec --mode path (PATH only), LoadLibraryW by name", bare,
                             {"--mode", "path"}));
    add(report, through_exec("exec-altered", "LoadLibraryExW with LOAD_WITH_ALTERED_SEARCH_PATH (TensorFlow)",
                             loader_words(loader, {"altered"})));
    add(report,
        unprovable_under_wine(through_exec("exec-default-dirs",
                                           "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS, which never searches PATH (Python 3.8+)",
                                           loader_words(loader, {"default-dirs"})),
                              k_wine_default_dirs));
    add(report, unprovable_under_wine(through_exec("exec-add-dll-directory",
                                                   "the program's own AddDllDirectory, then "
                                                   "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS (os.add_dll_directory)",
                                                   loader_words(loader, {"add-dll-directory", own_dlls})),
                                      k_wine_default_dirs));
    CaseSpec working =
        through_exec("exec-working-folder", "a stray copy in the working folder, LoadLibraryW by name", bare);
    working.working_folder = m_work / "working-folder";
    add(report, working);
    add(report, through_exec("exec-program-folder", "a stray copy in the program's own folder, LoadLibraryW by name",
                             loader_words(beside, {"bare"})));
    if (const fs::path x86 = m_work / "program-x86-copy" / (std::string(k_loader) + ".exe"); fs::exists(x86)) {
      add(report, through_exec("exec-32bit-copy",
                               "a 32-bit copy of the name in the program's own folder (an x86 DLL copied by "
                               "mistake), met first by the search",
                               loader_words(util::to_utf8(x86), {"bare"})));
    }
    CaseSpec absolute = through_exec("exec-absolute",
                                     "the program loading the stray copy by full path (PyTorch's torch\\lib): no "
                                     "launcher can turn it, --report must name it",
                                     loader_words(loader, {"path", stray_file}), {"--report", "--json"});
    absolute.stray_reported = true;
    add(report, absolute);
    add(report, unprovable_under_wine(through_exec("exec-grandchild",
                                                   "a grandchild: the program puts the stray copy first on PATH and "
                                                   "starts a program that loads by name (SetDllDirectoryW, passed on)",
                                                   loader_words(loader, {"child", stray_bin})),
                                      k_wine_set_dll_directory));
    add(report, through_exec("exec-batch", "a .bat file that starts the program (through cmd.exe)", {batch}));
    if (!m_long_root.empty()) {
      CaseSpec deep =
          through_exec("exec-long-path",
                       "a store past 260 characters (" + std::to_string(util::to_utf8(m_long_root).size()) + ")", bare);
      deep.root = m_long_root;
      add(report, unprovable_under_wine(deep, k_wine_long_paths));
    }
    if (!m_system32_copy.empty() && place_system32_copy()) {
      add(report,
          unprovable_under_wine(
              through_exec("exec-system32", "a stray copy in System32 (--system32), LoadLibraryW by name", bare),
              k_wine_system32));
      clean_up();
    }
    shim_cases(report, loader, {"bare"});
    bundle_cases(report, loader_words(loader, {"sub"}));
    windows_shell_cases(report, loader);
  }

  // exec --mode preload, against the program's DT_RPATH (which only a
  // preload or the audit module comes before). LD_PRELOAD cannot hold a
  // path with a space, which exec refuses, so a second store in a folder of
  // the temporary folder without one, when there is such a folder.
  void preload_case(SelftestReport& report, const std::string& rpath_loader) {
    CaseSpec spec = through_exec("exec-preload",
                                 "cudnnenv exec --mode preload, the program's DT_RPATH naming the stray copy's folder "
                                 "(a store whose path has no space)",
                                 {rpath_loader}, {"--mode", "preload"});
    if (!wanted(spec.id) || !in_plain_store(report, spec,
                                            "the temporary folder's path has a space, which LD_PRELOAD cannot hold "
                                            "(exec --mode preload refuses such a store)")) {
      return;
    }
    add(report, spec);
  }

  // Gives the case the second store (its root), in the folder of the
  // temporary folder whose path a case's target can hold, with the pinned
  // tree. False when there is no such folder (the case recorded as not shown
  // here, `why`) or the tree cannot be installed there (recorded as failed).
  bool in_plain_store(SelftestReport& report, CaseSpec& spec, const std::string& why) {
    if (m_plain_work.empty()) {
      report.cases.push_back(not_run(spec, why, "temporary folder"));
      return false;
    }
    const fs::path root = m_plain_work / "store";
    std::error_code ec;
    fs::create_directories(root, ec);
    if (!fs::exists(root / k_pinned, ec)) {
      if (auto installed = install(root, m_work / "release-a", k_pinned); !installed) {
        record(report, spec, installed.error());
        return false;
      }
    }
    spec.root = root;
    return true;
  }

  bool wanted(const std::string& id) const { return m_options.only.empty() || m_options.only == id; }
  // Whether a case whose id starts with `prefix` runs.
  bool wanted_any(const std::string& prefix) const {
    return m_options.only.empty() || m_options.only.rfind(prefix, 0) == 0;
  }

  // Runs the case with the pin (`cudnnenv --root ROOT` and its words), or
  // its program directly (the test-only switch), and records what loaded.
  void add(SelftestReport& report, CaseSpec spec) {
    if (!wanted(spec.id)) return;
    Result<util::ProcessOutcome> outcome = make_error("");
    util::ProcessSpec process;
    if (m_options.unpinned) {
      process.program = util::path_from_utf8(spec.direct.front());
      process.arguments.assign(spec.direct.begin() + 1, spec.direct.end());
    } else {
      process.program = m_options.program;
      process.arguments = {"--root", util::to_utf8(spec.root.empty() ? m_root : spec.root)};
      process.arguments.insert(process.arguments.end(), spec.pinned.begin(), spec.pinned.end());
    }
    process.environment = m_environment;
    process.working_folder = spec.working_folder;
    process.timeout = std::chrono::seconds(60);
    record(report, spec, util::run_process(process));
  }

  void record(SelftestReport& report, const CaseSpec& spec, const Result<util::ProcessOutcome>& outcome) {
    const TestTree& expected = test_tree(spec.major, !spec.stray_reported);
    const std::string want = expected.printed;
    // The tree the loaded file must be in: the case's own store's pinned tree, or the stray one.
    const fs::path tree = (spec.root.empty() ? m_root : spec.root) / expected.name;
    SelftestCase result;
    result.id = spec.id;
    result.how = spec.how;
    result.expected = named_version(want) + (spec.stray_reported ? ", named by --report as outside the tree" : "");
    if (!outcome) {
      result.loaded = "nothing";
      result.status = SelftestStatus::failed;
      result.detail = outcome.error().message;
    } else {
      // The loader's line: VERSION<tab>FILE.
      const std::string printed(util::trim(outcome->out));
      const auto tab = printed.find('\t');
      const std::string version = printed.substr(0, tab);
      result.loaded = printed.empty() ? "nothing" : named_version(version);
      if (tab != std::string::npos) {
        result.file = util::to_utf8(util::final_path(util::path_from_utf8(printed.substr(tab + 1))));
      }
      const auto report_files = reported_files(outcome->err);
      if (version != want) {
        result.status = SelftestStatus::failed;
        result.detail = printed.empty()       ? first_line(outcome->err)
                        : spec.stray_reported ? "the program loaded another copy than the one it named"
                                              : "the program loaded another copy than the pinned tree's";
      } else if (!is_in(util::path_from_utf8(result.file), tree)) {
        result.status = SelftestStatus::failed;
        result.detail = "the program loaded a copy of that version from outside '" + util::to_utf8(tree) + "'";
      } else if (spec.stray_reported || (spec.check_report && !m_options.unpinned)) {
        // --report must name exactly what loaded: that one file, inside the tree or (by full path) outside it
        // (without the pin there is no report, and a load by full path holds only with one).
        const bool exact = report_files && report_files->size() == 1 && report_files->front().first == result.file &&
                           report_files->front().second == !spec.stray_reported &&
                           outcome->exit_code == (spec.stray_reported ? 4 : 0);
        if (!exact) {
          const auto at = outcome->err.rfind("{\"tree\"");
          result.status = SelftestStatus::failed;
          result.detail = "--report (exit code " + std::to_string(outcome->exit_code) + ") did not name exactly '" +
                          result.file + "' as " + (spec.stray_reported ? "outside" : "inside") +
                          " the tree: " + first_line(at == std::string::npos ? outcome->err : outcome->err.substr(at));
        }
      }
    }
    if (m_wine && !spec.wine_cannot.empty()) {
      result.detail = "Wine cannot show this: " + spec.wine_cannot +
                      (result.status == SelftestStatus::failed ? " (here: " + result.detail + ")" : "");
      result.status = SelftestStatus::unprovable;
      result.unprovable = "wine";
    }
    report.cases.push_back(std::move(result));
  }

  // The files exec's --report --json named (the last line of stderr that
  // starts with its object): each resolved, and whether it was inside the
  // tree. None when there is no such line.
  static std::optional<std::vector<std::pair<std::string, bool>>> reported_files(const std::string& err) {
    const auto at = err.rfind("{\"tree\"");
    if (at == std::string::npos) return std::nullopt;
    const std::string line = first_line(err.substr(at));
    if (!json_nesting_within(line, 8)) return std::nullopt;
    const Json json = parse_json(line);
    if (!json.is_object() || !json.contains("files") || !json["files"].is_array()) return std::nullopt;
    std::vector<std::pair<std::string, bool>> files;
    for (const auto& file : json["files"]) {
      if (!file.is_object() || !file.value("path", Json()).is_string() || !file.value("inside", Json()).is_boolean()) {
        return std::nullopt;
      }
      files.emplace_back(util::to_utf8(util::final_path(util::path_from_utf8(file["path"].get<std::string>()))),
                         file["inside"].get<bool>());
    }
    return files;
  }

  // Whether `file` is below `folder`, both as the file system resolves them.
  static bool is_in(const fs::path& file, const fs::path& folder) {
    if (file.empty()) return false;
    const fs::path relative = util::final_path(file).lexically_relative(util::final_path(folder));
    return !relative.empty() && *relative.begin() != "..";
  }

  void shim_cases(SelftestReport& report, const std::string& loader, const std::vector<std::string>& words) {
    if (!wanted("shim") && !wanted("shim-cached")) return;
    auto state = state_folder_for(m_root, m_environment, host_platform().os);
    const fs::path shim =
        StatePaths{state ? *state : fs::path()}.shims() / (std::string(k_loader) + (windows_host() ? ".exe" : ""));
    auto added = cudnnenv({"shim", "add", k_loader, "--target", loader}, &m_environment);
    if (!added || added->exit_code != 0) {
      report.cases.push_back(not_run(named("shim", "a shim (cudnnenv shim add)"),
                                     added ? "shim add failed: " + first_line(added->err) : added.error().message, ""));
      return;
    }
    util::Environment environment = m_environment;
    environment.set("CUDNNENV_VERSION", k_pinned);
    const std::string start = windows_host() ? "one CreateProcessW" : "one execv";
    for (const auto& [id, how] :
         {std::pair<std::string, std::string>{"shim", "a shim, its first start (the slow path)"},
          {"shim-cached", "the shim again (its cached decision, " + start + ")"}}) {
      if (!wanted(id)) continue;
      util::ProcessSpec spec;
      spec.program = m_options.unpinned ? util::path_from_utf8(loader) : shim;
      spec.arguments = words;
      spec.environment = environment;
      record(report, named(id, how), util::run_process(spec));
    }
  }

  // A bundle (a framework's own cuDNN, as a wheel ships it) of the pinned
  // release lacking the sub-library cuDNN 9's dispatcher opens by bare name
  // (libcudnn_engines_tensor_ir.so.9, cudnn_engines_tensor_ir64_9.dll), the
  // stray 9.90.2 complete on the search path. Without the pin the program,
  // the bundle first on its path, takes the bundle's cuDNN and the stray
  // sub-library: two versions (the control). Pinned to the bundle as a tree:
  // exec refuses it before the start, naming the file; with --verify none
  // the fence fails that one load and the stray copy never loads. Pinned to
  // `adopt --heal` of the bundle (its files and the missing one from the
  // pinned tree): both from that tree, one version. `program` loads cuDNN,
  // then the sub-library named after it.
  void bundle_cases(SelftestReport& report, std::vector<std::string> program) {
    if (!wanted_any("bundle")) return;
    const bool windows = windows_host();
    const std::string sub = windows ? "cudnn_engines_tensor_ir64_9.dll" : "libcudnn_engines_tensor_ir.so.9";
    program.push_back(sub);
    const std::string libraries = windows ? "bin" : "lib";
    const fs::path bundle = m_work / "bundle";
    CaseSpec refused = named("bundle-refused", "a bundle lacking " + sub + ", pinned as a tree (cudnnenv exec)");
    refused.pinned = concat({"exec", "--cudnn", "bundle", "--"}, program);
    CaseSpec fenced = named("bundle-fenced", "the same, cudnnenv exec --verify none: the fence fails that one load");
    fenced.pinned = concat({"exec", "--cudnn", "bundle", "--verify", "none", "--"}, program);
    CaseSpec healed = named("bundle-healed", "the bundle healed (cudnnenv adopt --heal) from the pinned tree, pinned");
    healed.pinned = concat({"exec", "--cudnn", "healed", "--"}, program);
    std::error_code ec;
    // A store of their own (the profile cases select the newest 9.90.1 of the temporary store): the pinned
    // tree, the donor of the heal; the tree 'bundle', that release installed, then the sub-library taken out
    // (as a tree an older cudnnenv adopted without it); the bundle: the release's folder less the sub-library.
    const fs::path root = m_work / "bundle-store";
    fs::copy(m_work / "release-a", bundle, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
    Result<void> ready = ec ? make_error("cannot copy the test release: " + ec.message()) : Result<void>{};
    if (ready) ready = install(root, m_work / "release-a", k_pinned);
    if (ready) ready = install(root, m_work / "release-a", "bundle");
    if (ready) {
      for (const fs::path& folder : {bundle / libraries, root / "bundle" / libraries}) {
        for (const auto& entry : util::directory_entries(folder)) {
          if (util::starts_with(util::to_utf8(entry.path.filename()), windows ? sub : sub.substr(0, sub.size() - 2))) {
            fs::remove(entry.path, ec);
          }
        }
      }
      auto adopted = cudnnenv({"adopt", "--heal", util::to_utf8(bundle), "--name", "healed"}, &m_environment, root);
      if (!adopted)
        ready = adopted.error();
      else if (adopted->exit_code != 0)
        ready = make_error("adopt --heal failed: " + first_line(adopted->err));
    }
    for (CaseSpec* spec : {&refused, &fenced, &healed}) {
      if (!wanted(spec->id)) continue;
      if (!ready) {
        report.cases.push_back(not_run(*spec, ready.error().message, ""));
        continue;
      }
      util::ProcessSpec process;
      process.environment = m_environment;
      if (m_options.unpinned) {
        // Run plainly with the bundle first on the search path, as a framework's RPATH or folder puts it.
        const char* variable = windows ? "PATH" : "LD_LIBRARY_PATH";
        process.environment.set(variable, util::to_utf8(bundle / libraries) + (windows ? ";" : ":") +
                                              process.environment.get(variable).value_or(""));
        process.program = util::path_from_utf8(program.front());
        process.arguments.assign(program.begin() + 1, program.end());
      } else {
        process.program = m_options.program;
        process.arguments = concat({"--root", util::to_utf8(root)}, spec->pinned);
      }
      process.timeout = std::chrono::seconds(60);
      record_bundle(report, *spec, sub, root, util::run_process(process));
    }
  }

  // A bundle case's outcome: the loader's two lines (cuDNN, then `sub`), or
  // exec's refusal.
  void record_bundle(SelftestReport& report, const CaseSpec& spec, const std::string& sub, const fs::path& root,
                     const Result<util::ProcessOutcome>& outcome) {
    const std::string pinned = test_tree(9, true).printed;
    const fs::path tree = root / (spec.id == "bundle-healed" ? "healed" : "bundle");
    SelftestCase result;
    result.id = spec.id;
    result.how = spec.how;
    // The bundle, its tree and the healed one are all of the pinned tree's release.
    const auto named = [&](const std::string& version) {
      return version == pinned ? std::string(test_tree(9, true).version) + " (the bundle's release)"
                               : named_version(version);
    };
    result.expected = spec.id == "bundle-refused"  ? "nothing: exec names " + sub + " before the start"
                      : spec.id == "bundle-fenced" ? named(pinned) + ", " + sub + " not loaded"
                                                   : named(pinned) + " twice, both from the healed tree";
    if (!outcome) {
      result.loaded = "nothing";
      result.status = SelftestStatus::failed;
      result.detail = outcome.error().message;
      report.cases.push_back(std::move(result));
      return;
    }
    // VERSION<tab>FILE per library; "-<tab>NAME" for one that did not load.
    std::vector<std::pair<std::string, std::string>> lines;
    for (const auto& line : util::split(std::string(util::trim(outcome->out)), '\n')) {
      const auto tab = line.find('\t');
      if (tab == std::string::npos) continue;
      std::string file(util::trim(line.substr(tab + 1)));
      if (line.substr(0, tab) != "-") file = util::to_utf8(held_path(util::path_from_utf8(file)));
      lines.emplace_back(line.substr(0, tab), file);
    }
    std::vector<std::string> words;
    for (const auto& [version, file] : lines) {
      words.push_back(version == "-" ? file + " not loaded" : named(version));
    }
    result.loaded = words.empty() ? "nothing" : util::join(words, ", then ");
    if (!lines.empty() && lines.front().first != "-") result.file = lines.front().second;
    const auto in_tree = [&](const std::pair<std::string, std::string>& line) {
      const fs::path relative = util::path_from_utf8(line.second).lexically_relative(util::final_path(tree));
      return line.first == pinned && !relative.empty() && *relative.begin() != "..";
    };
    result.status = SelftestStatus::failed;
    const bool mixed = lines.size() == 2 && lines[1].first != "-" && lines[1].first != lines[0].first;
    if (mixed) {
      result.detail = "two versions of cuDNN in one process";
    } else if (spec.id == "bundle-refused") {
      if (!lines.empty()) {
        result.detail = "the program ran";
      } else if (outcome->exit_code != 4 || outcome->err.find(sub) == std::string::npos) {
        result.detail = "exec (exit code " + std::to_string(outcome->exit_code) + ") did not name " + sub + ": " +
                        first_line(outcome->err);
      } else {
        result.loaded = "nothing: " + first_line(outcome->err);
        result.status = SelftestStatus::held;
      }
    } else if (lines.size() != 2 || !in_tree(lines[0])) {
      result.detail = "cuDNN did not load from '" + util::to_utf8(tree) + "': " + first_line(outcome->err);
    } else if (spec.id == "bundle-fenced" && lines[1].first != "-") {
      result.detail = sub + " loaded from '" + lines[1].second + "', not from the tree";
    } else if (spec.id == "bundle-healed" && !in_tree(lines[1])) {
      result.detail = lines[1].first == "-" ? sub + " did not load: " + first_line(outcome->err)
                                            : sub + " loaded from '" + lines[1].second + "', not from the tree";
    } else {
      result.status = SelftestStatus::held;
    }
    report.cases.push_back(std::move(result));
  }

  // `file` with its folder resolved, the name kept: a healed tree's own
  // files are links into the bundle, and the loader names the link.
  static fs::path held_path(const fs::path& file) { return util::final_path(file.parent_path()) / file.filename(); }

  // A script's path for a case, or why there is none.
  static Result<fs::path> in_folder(const Result<fs::path>& folder, const std::string& file) {
    if (!folder) return folder.error();
    return *folder / file;
  }

  // bash, zsh or fish (when found): `setup`, a line of the shell's that
  // reads every path from a variable (SELFTEST_PROGRAM, SELFTEST_SCRIPT),
  // then the loader. Without the pin, the loader alone.
  void posix_case(SelftestReport& report, const CaseSpec& spec, const std::string& shell, const std::string& loader,
                  const std::string& setup, const Result<fs::path>& script) {
    if (!wanted(spec.id)) return;
    const auto found = on_path(m_environment, shell);
    if (!found) return;  // a shell this machine does not have: no case
    const bool fish = shell == "fish";
    const std::string start = fish ? "exec $SELFTEST_LOADER" : "exec \"$SELFTEST_LOADER\"";
    const std::string line = m_options.unpinned ? start : setup + (fish ? "; and " : " && ") + start;
    in_shell(report, spec, *found, {"-c", line}, loader, script);
  }

  // Runs a shell (its program and words) with the selftest's environment,
  // the paths in variables (SELFTEST_PROGRAM, SELFTEST_LOADER and, when the
  // case has one, SELFTEST_SCRIPT): a script reads them, its text holds
  // none. Records what the loader printed.
  void in_shell(SelftestReport& report, const CaseSpec& spec, const fs::path& shell, std::vector<std::string> words,
                const std::string& loader, const Result<fs::path>& script = fs::path(),
                const fs::path& working_folder = {}) {
    if (!script) {
      record(report, spec, script.error());
      return;
    }
    util::ProcessSpec process;
    process.program = shell;
    process.arguments = std::move(words);
    process.environment = m_environment;
    process.environment.set("SELFTEST_PROGRAM", util::to_utf8(m_options.program));
    process.environment.set("SELFTEST_LOADER", loader);
    if (!script->empty()) process.environment.set("SELFTEST_SCRIPT", util::to_utf8(*script));
    process.working_folder = working_folder;
    process.timeout = std::chrono::seconds(60);
    record(report, spec, util::run_process(process));
  }

  // The scripts `profile generate` writes for a profile of the store's own
  // config.toml that names the pinned tree's version (no framework's
  // profile names a sentinel version). Their folder, or why there is none.
  Result<fs::path> profile_scripts() {
    if (!wanted_any("profile-")) return fs::path();
    CUDNNENV_TRY_ASSIGN(state, state_folder_for(m_root, m_environment, host_platform().os));
    const StatePaths paths{*state};
    std::error_code ec;
    fs::create_directories(paths.folder, ec);
    CUDNNENV_TRY(util::write_file_atomic(paths.config(), "[profiles." + std::string(k_profile) +
                                                             "]\nframework = \"cudnnenv selftest\"\ncudnn = \"" +
                                                             test_tree(9, true).version + "\"\n"));
    CUDNNENV_TRY(succeeded("profile generate", cudnnenv({"profile", "generate", k_profile}, &m_environment)));
    return paths.profile_scripts(k_profile);
  }

  // A conda env (a folder with conda-meta) whose hooks `export conda` wrote
  // for the pinned tree of the store `root`: its activate.d folder, or why
  // there is none.
  Result<fs::path> conda_hooks(const fs::path& root, const fs::path& env) {
    if (!wanted_any("conda-")) return fs::path();
    std::error_code ec;
    fs::create_directories(env / "conda-meta", ec);
    if (ec) return make_error("cannot create '" + util::to_utf8(env) + "': " + ec.message());
    CUDNNENV_TRY(succeeded(
        "export conda", cudnnenv({"export", "conda", k_pinned, "--prefix", util::to_utf8(env)}, &m_environment, root)));
    return env / "etc" / "conda" / "activate.d";
  }

  static Result<void> succeeded(const std::string& what, const Result<util::ProcessOutcome>& outcome) {
    if (!outcome) return outcome.error();
    if (outcome->exit_code != 0) return make_error("cudnnenv " + what + " failed: " + first_line(outcome->err));
    return {};
  }

  // cmd: a batch file (ASCII) of `setup`'s lines, then the loader, as a
  // user's session would. The file is written in `folder`, cmd runs there
  // and calls it by its bare name, and `setup` calls its scripts by paths
  // relative to it: `call` expands `%` a second time, so no path (a %TEMP%
  // may hold a `%`) is on a `call` line. The programs' paths come in
  // through variables, expanded once, inside double quotes (where `&` is
  // text; a Windows path holds no `"`).
  void cmd_case(SelftestReport& report, const CaseSpec& spec, const std::string& loader,
                const Result<std::string>& setup, const fs::path& folder) {
    if (!wanted(spec.id)) return;
    auto system = util::system_folder();
    if (!system) {
      record(report, spec, system.error());
      return;
    }
    if (!setup) {
      record(report, spec, setup.error());
      return;
    }
    const std::string batch = spec.id + ".bat";
    const std::string text =
        "@echo off\r\n" + (m_options.unpinned ? std::string() : *setup) + "\"%SELFTEST_LOADER%\" bare\r\n";
    if (auto written = util::write_file_atomic(folder / batch, text); !written) {
      record(report, spec, written.error());
      return;
    }
    in_shell(report, spec, *system / "cmd.exe", {"/d", "/c", "call", batch}, loader, fs::path(), folder);
  }

  // `call` of a script at `script`, by its path relative to `folder` (one
  // a batch file carries whatever the code page), then its errorlevel.
  static Result<std::string> call_line(const Result<fs::path>& script, const fs::path& folder) {
    if (!script) return script.error();
    const std::string relative = util::to_utf8(script->lexically_relative(folder).make_preferred());
    if (relative.empty() || relative.rfind("..", 0) == 0) {
      return make_error("'" + util::to_utf8(*script) + "' is not below '" + util::to_utf8(folder) + "'");
    }
    if (!util::plain_for_batch(relative)) {
      return make_error("the path '" + relative + "' holds a letter a batch file cannot carry in every code page");
    }
    return "call " + relative + "\r\nif errorlevel 1 exit /b 1\r\n";
  }

  // PowerShell 5 (powershell) and 7 (pwsh), when found: `setup`, reading
  // the paths from variables ($env:SELFTEST_PROGRAM, $env:SELFTEST_SCRIPT),
  // then the loader.
  void powershell_case(SelftestReport& report, const CaseSpec& spec, const std::string& shell,
                       const std::string& loader, const std::string& setup, const Result<fs::path>& script) {
    if (!wanted(spec.id)) return;
    if (m_wine) {
      // Wine's powershell.exe is a stub that runs nothing; pwsh is not there.
      if (shell == "powershell") {
        report.cases.push_back(
            not_run(spec, "Wine cannot show this: Wine's powershell.exe is a stub, not PowerShell", "wine"));
      }
      return;
    }
    const auto found = on_path(m_environment, shell + ".exe");
    if (!found) return;  // pwsh (PowerShell 7) is optional
    const std::string start = "& $env:SELFTEST_LOADER bare";
    in_shell(report, spec, *found,
             {"-NoLogo", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-Command",
              m_options.unpinned ? start : setup + "; " + start},
             loader, script);
  }

  // cmd's conda hook: `export conda` writes one only for a store whose path
  // a batch file carries in every code page (ASCII, none of `%!^&|<>"`),
  // which the temporary store's is not, on purpose; so a second store, in
  // a plain folder of %TEMP% when its path is plain, with its env.
  void conda_cmd_case(SelftestReport& report, const std::string& loader) {
    CaseSpec spec = named("conda-cmd",
                          "cmd: call of the conda env's hook `export conda` wrote (cudnnenv-activate.bat), as "
                          "conda's activate.bat calls it, then the program (a store of a plain path)");
    if (!wanted(spec.id) || !in_plain_store(report, spec,
                                            "the temporary folder's path holds a letter a batch file cannot carry in "
                                            "every code page, so export conda writes no cmd hook for a store there "
                                            "(it says so)")) {
      return;
    }
    const fs::path env = m_plain_work / "env";
    cmd_case(report, spec, loader, call_line(in_folder(conda_hooks(spec.root, env), "cudnnenv-activate.bat"), env),
             env);
  }

  // Windows: activation, the profile's scripts and the conda hooks, in cmd
  // and in each PowerShell found.
  void windows_shell_cases(SelftestReport& report, const std::string& loader) {
    cmd_case(report, named("activate-cmd", "cmd: call of `cudnnenv activate --shell cmd`'s script, then the program"),
             loader,
             std::string("\"%SELFTEST_PROGRAM%\" activate pinned --shell cmd > on.bat\r\nif errorlevel 1 exit /b 1\r\n"
                         "call on.bat\r\n"),
             m_work);
    const auto profile = profile_scripts();
    cmd_case(report, named("profile-cmd", "cmd: call of the activate.bat `profile generate` wrote, then the program"),
             loader, call_line(in_folder(profile, "activate.bat"), m_work), m_work);
    conda_cmd_case(report, loader);
    const auto conda = conda_hooks(m_root, m_work / "conda env");
    for (const std::string shell : {"powershell", "pwsh"}) {
      powershell_case(report,
                      named("activate-" + shell,
                            shell + ": `cudnnenv activate --shell powershell` | Invoke-Expression, then the program"),
                      shell, loader,
                      "& $env:SELFTEST_PROGRAM activate pinned --shell powershell | Out-String | Invoke-Expression",
                      fs::path());
      powershell_case(report,
                      named("profile-" + shell, shell + ": the activate.ps1 `profile generate` wrote, dot-sourced, "
                                                        "then the program"),
                      shell, loader, ". $env:SELFTEST_SCRIPT", in_folder(profile, "activate.ps1"));
      powershell_case(report,
                      named("conda-" + shell, shell + ": the conda env's hook `export conda` wrote "
                                                      "(cudnnenv-activate.ps1), dot-sourced as `conda activate` "
                                                      "does, then the program"),
                      shell, loader, ". $env:SELFTEST_SCRIPT", in_folder(conda, "cudnnenv-activate.ps1"));
    }
  }

 public:
  // The System32 copy, when one was placed: always removed, kept or not.
  void clean_up() {
    std::error_code ec;
    if (m_system32_placed) fs::remove(m_system32_copy, ec);
    m_system32_placed = false;
  }

 private:
  const SelftestOptions& m_options;
  fs::path m_root;
  fs::path m_work;
  fs::path m_plain_work;  // a folder for a store of a plain path (Windows: a batch file carries it; Linux: no space)
  bool m_wine = false;
  util::Environment m_environment;
  fs::path m_long_root;            // Windows: a second store past 260 characters
  fs::path m_system32_copy;        // Windows, --system32: where the stray copy goes in System32
  bool m_system32_placed = false;  // and whether it is there now, placed by us
};

std::vector<std::pair<std::string, std::string>> shell_versions(const util::Environment& environment) {
  std::vector<std::pair<std::string, std::string>> shells;
  const auto version_of = [&](const std::string& name, const fs::path& program, std::vector<std::string> words) {
    util::ProcessSpec spec;
    spec.program = program;
    spec.arguments = std::move(words);
    spec.environment = environment;
    spec.timeout = std::chrono::seconds(10);
    auto outcome = util::run_process(spec);
    std::string line = outcome ? first_line(std::string(util::trim(outcome->out))) : std::string();
    shells.emplace_back(name, line);
  };
  if (!windows_host()) {
    for (const char* shell : {"bash", "zsh", "fish"}) {
      if (const auto found = on_path(environment, shell)) version_of(shell, *found, {"--version"});
    }
    return shells;
  }
  if (auto system = util::system_folder()) version_of("cmd", *system / "cmd.exe", {"/d", "/c", "ver"});
  for (const char* shell : {"powershell", "pwsh"}) {
    if (wine_version()) break;  // Wine's powershell.exe is a stub
    if (const auto found = on_path(environment, std::string(shell) + ".exe")) {
      version_of(shell, *found,
                 {"-NoLogo", "-NoProfile", "-NonInteractive", "-Command", "$PSVersionTable.PSVersion.ToString()"});
    }
  }
  return shells;
}

}  // namespace

bool SelftestReport::passed() const {
  return std::none_of(cases.begin(), cases.end(),
                      [](const SelftestCase& each) { return each.status == SelftestStatus::failed; });
}

std::vector<std::string> selftest_case_ids() {
  if (windows_host()) {
    return {"exec-audit",          "exec-cudnn8",         "exec-path",
            "exec-altered",        "exec-default-dirs",   "exec-add-dll-directory",
            "exec-working-folder", "exec-program-folder", "exec-32bit-copy",
            "exec-absolute",       "exec-grandchild",     "exec-batch",
            "exec-long-path",      "exec-system32",       "shim",
            "shim-cached",         "bundle-refused",      "bundle-fenced",
            "bundle-healed",       "activate-cmd",        "profile-cmd",
            "conda-cmd",           "activate-powershell", "profile-powershell",
            "conda-powershell",    "activate-pwsh",       "profile-pwsh",
            "conda-pwsh"};
  }
  return {"exec-audit",    "exec-cudnn8",  "exec-preload", "exec-path",      "exec-absolute", "exec-rpath",
          "exec-runpath",  "shim",         "shim-cached",  "bundle-refused", "bundle-fenced", "bundle-healed",
          "activate-bash", "profile-bash", "conda-bash",   "activate-zsh",   "profile-zsh",   "conda-zsh",
          "activate-fish", "profile-fish", "conda-fish"};
}

std::string to_string(SelftestStatus status) {
  return std::string(util::name_of(k_selftest_statuses, status));
}

Result<SelftestReport> run_selftest(const SelftestOptions& options) {
  if (options.system32 && !windows_host()) {
    return make_error("--system32 is for Windows: Linux has no folder its loader searches before the pin's");
  }
  SelftestReport report;
  report.os = os_description();
  report.wine = wine_version().has_value();
  report.code_pages = code_pages();
  report.shells = shell_versions(options.environment);
  std::error_code ec;
  if (const std::string temp = util::to_utf8(fs::temp_directory_path(ec));
      !windows_host() && temp.find(':') != std::string::npos) {
    // exec and activate refuse such a store (LD_LIBRARY_PATH splits at ':'): no case could be shown.
    return make_error("the temporary folder '" + temp + "' has a ':', which LD_LIBRARY_PATH cannot hold",
                      "run it with TMPDIR set to a folder without one");
  }
  // A space, '&' and letters outside ASCII in the store's path, on purpose. Each folder is made by this
  // run alone (a name that exists is never used: a co-user sharing the temporary folder cannot plant a
  // store of theirs), for this user alone, and only what this run made is removed.
  const fs::path temp = fs::temp_directory_path(ec);
  CUDNNENV_TRY_ASSIGN(work, util::make_private_directory(temp, "cudnnenv selftest 库 & "));
  report.store = *work / "store";
  fs::create_directories(report.store, ec);
  if (ec) {
    util::remove_tree(*work);
    return make_error("cannot create '" + util::to_utf8(report.store) + "': " + ec.message());
  }
  // A second folder for a store whose path the case's target can hold, when the temporary folder's allows:
  // Windows, a batch file in every code page (conda's cmd hook); Linux, LD_PRELOAD (no space). Its name
  // adds only ASCII letters, digits and '-' to the temporary folder's path.
  fs::path plain_work;
  const std::string plain_text = util::to_utf8(temp / "cudnnenv-selftest-0-0");
  if (windows_host() ? util::plain_for_batch(plain_text) : plain_text.find(' ') == std::string::npos) {
    auto plain = util::make_private_directory(temp, "cudnnenv-selftest-");
    if (!plain) {
      util::remove_tree(*work);
      return plain.error();
    }
    plain_work = *plain;
  }
  Run run(options, report.store, *work, plain_work, report.wine);
  auto set_up = run.set_up();
  if (set_up) run.run_cases(report);
  run.clean_up();
  report.kept = options.keep;
  if (!options.keep) {
    util::remove_tree(*work);
    if (!plain_work.empty()) util::remove_tree(plain_work);
  } else if (!plain_work.empty()) {
    fs::remove(plain_work, ec);  // kept only when a case put a store there
  }
  if (!set_up) return set_up.error();
  return report;
}

}  // namespace cudnnenv
