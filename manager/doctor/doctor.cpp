#include "doctor/doctor.hpp"

#include <algorithm>
#include <set>
#include <system_error>

#include "discover/dependencies.hpp"
#include "doctor/frameworks.hpp"
#include "integrate/cdi.hpp"
#include "pin/launch.hpp"
#include "select/framework.hpp"
#include "store/layout.hpp"
#include "store/runtime.hpp"
#include "store/spec.hpp"
#include "util/text.hpp"
#include "verify/verify.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

std::string to_string(DoctorStatus status) {
  switch (status) {
    case DoctorStatus::ok:
      return "ok";
    case DoctorStatus::warn:
      return "warn";
    case DoctorStatus::fail:
      return "fail";
    case DoctorStatus::skip:
      return "skip";
  }
  return "?";
}

namespace {

struct MinimumRow {
  int major;
  int minor;
  const char* linux;
  const char* windows;
};

// cudnn-facts.md 6.1, the GA release of each CUDA minor.
constexpr MinimumRow k_minimums[] = {
    {13, 2, "595.45.04", ""},       {13, 1, "590.44.01", ""},       {13, 0, "580.65.06", ""},
    {12, 9, "575.51.03", "576.02"}, {12, 8, "570.26", "570.65"},    {12, 6, "560.28.03", "560.76"},
    {12, 5, "555.42.02", "555.85"}, {12, 4, "550.54.14", "551.61"}, {12, 3, "545.23.06", "545.84"},
    {12, 2, "535.54.03", "536.25"}, {12, 1, "530.30.02", "531.14"}, {12, 0, "525.60.13", "527.41"},
    {11, 8, "520.61.05", "520.06"}, {11, 7, "515.43.04", "516.01"}, {11, 6, "510.39.01", "511.23"},
    {11, 5, "495.29.05", "496.04"}, {11, 4, "470.42.01", "471.11"}, {11, 3, "465.19.01", "465.89"},
    {11, 2, "460.27.03", "460.82"}, {11, 1, "455.23", "456.38"},    {11, 0, "450.51.05", "451.48"},
    {10, 2, "440.33", "441.22"},    {10, 1, "418.39", "418.96"},    {10, 0, "410.48", "411.31"},
};

DoctorCheck check(std::string id, DoctorStatus status, std::string summary) {
  DoctorCheck result;
  result.id = std::move(id);
  result.status = status;
  result.summary = std::move(summary);
  return result;
}

DoctorCheck problem(std::string id, DoctorStatus status, std::string summary, std::string symptom, std::string cause,
                    std::string fix) {
  DoctorCheck result = check(std::move(id), status, std::move(summary));
  result.symptom = std::move(symptom);
  result.cause = std::move(cause);
  result.fix = std::move(fix);
  return result;
}

std::string quoted(const fs::path& path) {
  return "'" + util::to_utf8(path) + "'";
}

std::string command_word(const std::string& word, Os os) {
  return util::command_word(word, os == Os::windows);
}

// The fix that runs the program pinned. A shim goes by a name looked up on
// PATH and pins what is selected where it runs: a program given by its path,
// or a selection made by doctor's --cudnn, gets `exec` only (with that spec).
std::string pinned_fix(const Facts& facts) {
  const std::string& requested = facts.program.requested;
  const std::string word = command_word(requested, facts.platform.os);
  const bool by_option = facts.selection && facts.selection->origin == Origin::command_line;
  const std::string exec =
      "'cudnnenv exec " + (by_option ? "--cudnn " + command_word(facts.selection->spec, facts.platform.os) + " " : "") +
      "-- " + word + " ...'";
  if (by_option || requested.find_first_of(facts.platform.os == Os::windows ? "/\\:" : "/") != std::string::npos) {
    return "run it pinned: " + exec;
  }
  return "run it pinned: 'cudnnenv shim add " + word + "' (then " + word + " on PATH loads the selected tree), or " +
         exec;
}

// For libraries found through LD_LIBRARY_PATH: the one command that takes
// their folders out (every entry naming one), for this shell and the rc file
// that set it.
std::string ld_library_path_fix(const Facts& facts, const std::vector<fs::path>& folders) {
  std::vector<std::string> kept;
  for (const auto& entry : util::split(facts.environment.get("LD_LIBRARY_PATH").value_or(""), ':')) {
    const bool names_one = !entry.empty() && std::any_of(folders.begin(), folders.end(), [&](const fs::path& folder) {
      return util::same_file(util::path_from_utf8(entry), folder) ||
             fs::path(entry).lexically_normal() == folder.lexically_normal();
    });
    if (!names_one) kept.push_back(entry);
  }
  const std::string rest = util::join(kept, ":");
  const std::string command =
      rest.empty() ? "unset LD_LIBRARY_PATH" : "export LD_LIBRARY_PATH=" + command_word(rest, facts.platform.os);
  std::vector<std::string> named;
  for (const auto& folder : folders) named.push_back(quoted(folder));
  return "or take " + util::join(named, ", ") + " out of LD_LIBRARY_PATH: '" + command +
         "' here, and the same in the shell's rc file (~/.bashrc) that sets it";
}

const FoundCopy* copy_of(const Facts& facts, const fs::path& library) {
  for (const auto& copy : facts.copies) {
    if (util::same_file(copy.library, library)) {
      return &copy;
    }
  }
  return nullptr;
}

std::string version_of(const Facts& facts, const fs::path& library) {
  if (facts.selection && util::same_file(facts.selection->tree.library_path(), library)) {
    return facts.selection->tree.version.str();
  }
  const FoundCopy* copy = copy_of(facts, library);
  return copy != nullptr && copy->version ? copy->version->str() : std::string("version unknown");
}

std::string tree_words(const TreeRecord& tree) {
  return "'" + tree.name + "' (cuDNN " + tree.version.str() + (tree.cuda ? ", CUDA " + tree.cuda->str() : "") + ")";
}

DoctorCheck skipped_without_selection(const std::string& id) {
  return check(id, DoctorStatus::skip, "nothing selected");
}

// The cuDNN main library names the program would load: the selected tree's,
// else those of every copy found.
std::vector<std::string> library_names(const Facts& facts) {
  std::vector<std::string> names;
  if (facts.selection) {
    names.push_back(util::to_utf8(facts.selection->tree.library_path().filename()));
    return names;
  }
  for (const auto& copy : facts.copies) {
    const std::string name = util::to_utf8(copy.library.filename());
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  }
  return names;
}

std::vector<LoaderCandidate> candidates_for(const Facts& facts, const std::string& name) {
  DiscoverContext context;
  context.environment = facts.environment;
  context.os = facts.platform.os;
  return loader_candidates(context, facts.program.target, name);
}

std::string program_name(const Facts& facts) {
  return facts.program.path.empty() ? facts.program.requested : util::to_utf8(facts.program.path.filename());
}

// ---- the checks, in the order they are shown ----

DoctorCheck check_selection(const Facts& facts) {
  if (facts.selection && !facts.node.empty() && facts.selection->tree.platform != facts.platform) {
    const TreeRecord& tree = facts.selection->tree;
    return problem(
        "selection", DoctorStatus::fail,
        tree_words(tree) + " is built for " + describe(tree.platform) + "; the node is " + describe(facts.platform),
        "'cannot open shared object file' or 'wrong ELF class' for " + tree.layout.main_library,
        "a tree of one platform does not load on another",
        "install one for the node: cudnnenv install " + std::to_string(tree.version.major) + "." +
            std::to_string(tree.version.minor) + " --facts " + command_word(facts.node_file, host_platform().os));
  }
  if (facts.selection) {
    return check("selection", DoctorStatus::ok,
                 tree_words(facts.selection->tree) + ", " + describe_origin(*facts.selection));
  }
  const Error& error = facts.selection_error ? *facts.selection_error : Error{};
  return problem("selection", DoctorStatus::warn, "nothing selected: " + error.message,
                 "'cudnnenv exec' and the shims stop with exit code 3; plain programs load whatever copy comes first",
                 error.message, error.hint.empty() ? "cudnnenv use --global <version>" : error.hint);
}

DoctorCheck check_driver(const Facts& facts) {
  const DriverInfo& driver = facts.driver;
  const Os os = facts.platform.os;
  if (!driver.found()) {
    std::string why = driver.error;
    if (util::starts_with(why, "no NVIDIA driver: ")) {
      why = why.substr(18);  // the probe's words, without repeating ours
    }
    return problem("driver", DoctorStatus::fail, "no NVIDIA driver found" + (why.empty() ? "" : ": " + why),
                   os == Os::windows ? "torch.cuda.is_available() is False; TensorFlow logs 'Could not load dynamic "
                                       "library nvcuda.dll'"
                                     : "torch.cuda.is_available() is False; TensorFlow logs 'Could not load dynamic "
                                       "library libcuda.so.1'",
                   "the CUDA driver library (" + std::string(os == Os::windows ? "nvcuda.dll" : "libcuda.so.1") +
                       ") is not installed or cannot start",
                   "install the NVIDIA driver for your GPU (nvidia.com/drivers); check with nvidia-smi");
  }
  std::string summary = driver.version.empty() ? "version unknown" : driver.version;
  if (driver.cuda) {
    summary += " (runs CUDA " + driver.cuda->str() + " and older)";
  }
  DoctorCheck result = check("driver", DoctorStatus::ok, summary);
  if (!driver.version_from.empty()) {
    result.details.push_back("version from " + driver.version_from);
  }
  if (!facts.selection || !facts.selection->tree.cuda) {
    return result;
  }
  const TreeRecord& tree = facts.selection->tree;
  const CudaVersion cuda = *tree.cuda;
  const DriverMinimum minimum = minimum_driver(cuda, os);
  const std::string tree_text = tree_words(tree);
  if (driver_below_major(driver, cuda, os)) {
    return problem("driver", DoctorStatus::fail, summary + ": too old for CUDA " + cuda.str(),
                   "'CUDA driver version is insufficient for CUDA runtime version' (cudaErrorInsufficientDriver, "
                   "error 35); cudnnCreate fails with CUDNN_STATUS_NOT_INITIALIZED",
                   "the selected tree " + tree_text + " needs a driver of " +
                       (minimum.major.empty() ? "CUDA " + std::to_string(cuda.major) : minimum.major) +
                       " or newer; this one is " + summary,
                   "update the driver (" +
                       (minimum.major.empty() ? std::string("newer") : minimum.major + " or newer") +
                       "), or select a tree built for an older CUDA: cudnnenv list");
  }
  const bool below_minor =
      driver.cuda
          ? cuda.minor && driver.cuda->major == cuda.major && driver.cuda->minor && *driver.cuda->minor < *cuda.minor
          : !driver.version.empty() && !minimum.exact.empty() && compare_dotted(driver.version, minimum.exact) < 0;
  if (below_minor) {
    return problem("driver", DoctorStatus::warn, summary + ": older than CUDA " + cuda.str() + "'s own driver",
                   "programs run, but PTX compiled for CUDA " + cuda.str() +
                       " fails to load ('the provided PTX was compiled with an unsupported toolchain')",
                   "CUDA " + cuda.str() + " ships with driver " + minimum.exact +
                       "; older drivers of the same major run it "
                       "through minor-version compatibility, without newer features",
                   "update the driver to " + minimum.exact + " or newer");
  }
  return result;
}

// A GPU the selected build has no code for, or that it dropped (cudnn-facts.md, section 7).
std::optional<DoctorCheck> gpu_problem(const GpuInfo& gpu, const TreeRecord& tree) {
  const Version& v = tree.version;
  const int cuda_major = tree.cuda ? tree.cuda->major : 0;
  const std::string who = gpu.name + " (compute capability " + gpu.compute_capability() + ")";
  auto too_new = [&](const std::string& need) {
    return problem("gpu", DoctorStatus::fail, who + ": not supported by cuDNN " + v.str(),
                   "CUDNN_STATUS_ARCH_MISMATCH, or 'no kernel image is available for execution on the device'",
                   "cuDNN " + v.str() + (tree.cuda ? " for CUDA " + tree.cuda->str() : "") +
                       " has no code for this GPU's architecture",
                   "install " + need + ": cudnnenv list --available");
  };
  if (gpu.cc_major >= 10 && (v < Version{9, 7, 0, std::nullopt} || (cuda_major != 0 && cuda_major < 12))) {
    return too_new("cuDNN 9.7 or newer for CUDA 12.8 or newer");
  }
  if (gpu.cc_major == 9 && v < Version{8, 6, 0, std::nullopt}) {
    return too_new("cuDNN 8.6 or newer");
  }
  if (gpu.cc_major == 8 && (v < Version{8, 0, 0, std::nullopt} || (cuda_major != 0 && cuda_major < 11))) {
    return too_new("cuDNN 8.0 or newer for CUDA 11");
  }
  const int cc = gpu.cc_major * 10 + gpu.cc_minor;
  if ((cc < 35 && cuda_major >= 11) || (cc < 50 && v >= Version{8, 8, 0, std::nullopt})) {
    return problem("gpu", DoctorStatus::fail, who + ": too old for cuDNN " + v.str(),
                   "CUDNN_STATUS_ARCH_MISMATCH, or 'no kernel image is available for execution on the device'",
                   "cuDNN " + v.str() +
                       " dropped this GPU's architecture (8.8 starts at compute capability 5.0; "
                       "CUDA 11 builds at 3.5)",
                   "select an older cuDNN that still supports it, e.g. 8.7 for CUDA 11: cudnnenv list");
  }
  if (cc < 75 && (cuda_major >= 13 || v >= Version{9, 17, 0, std::nullopt})) {
    return problem(
        "gpu", DoctorStatus::fail,
        who + ": not supported by cuDNN " + v.str() + (tree.cuda ? " for CUDA " + tree.cuda->str() : std::string()),
        "CUDNN_STATUS_ARCH_MISMATCH, or 'no kernel image is available for execution on the device'",
        "CUDA 13 has no code for Maxwell, Pascal or Volta (CUDA 12's release notes: their library "
        "support ends with the next major), and cuDNN 9.17's support matrix starts at compute "
        "capability 7.5",
        "select cuDNN 9.10 or older for CUDA 12 or 11: cudnnenv list --available 9.10");
  }
  if (cc < 75 && v >= Version{9, 11, 0, std::nullopt}) {
    return problem("gpu", DoctorStatus::warn, who + ": probably not supported by cuDNN " + v.str(),
                   "CUDNN_STATUS_ARCH_MISMATCH, or 'no kernel image is available for execution on the device'",
                   "cuDNN releases after 9.10 dropped Maxwell, Pascal and Volta (the 9.17 support matrix starts at "
                   "compute capability 7.5; the exact release is not documented)",
                   "select cuDNN 9.10 or older if it fails: cudnnenv list");
  }
  return std::nullopt;
}

DoctorCheck check_gpu(const Facts& facts) {
  const DriverInfo& driver = facts.driver;
  if (!driver.found()) {
    return check("gpu", DoctorStatus::skip, "no driver");
  }
  if (driver.gpus.empty()) {
    return problem("gpu", DoctorStatus::fail, "no GPU visible" + (driver.error.empty() ? "" : ": " + driver.error),
                   "torch.cuda.device_count() is 0; TensorFlow lists no GPU devices",
                   driver.error.empty() ? "the driver reports no GPU" : "the driver says: " + driver.error,
                   "check CUDA_VISIBLE_DEVICES (now '" + facts.environment.get("CUDA_VISIBLE_DEVICES").value_or("") +
                       "'), the container's GPU access (--gpus all), and nvidia-smi");
  }
  std::string summary;
  for (const auto& gpu : driver.gpus) {
    summary += (summary.empty() ? "" : ", ") + gpu.name + " (compute capability " + gpu.compute_capability() + ")";
  }
  if (facts.selection) {
    for (const auto& gpu : driver.gpus) {
      if (auto found = gpu_problem(gpu, facts.selection->tree)) {
        return *found;
      }
    }
  }
  return check("gpu", DoctorStatus::ok, summary);
}

DoctorCheck check_toolkit(const Facts& facts) {
  if (facts.toolkits.empty()) {
    return check("toolkit", DoctorStatus::ok,
                 "no CUDA toolkit found (needed to build CUDA code; the runtime can come from elsewhere: the "
                 "dependencies check says)");
  }
  const ToolkitInfo& first = facts.toolkits.front();
  DoctorCheck result = check("toolkit", DoctorStatus::ok,
                             "CUDA " + (first.version_text.empty() ? std::string("?") : first.version_text) + " in " +
                                 quoted(first.root) + " (" + first.via + ")");
  for (const auto& toolkit : facts.toolkits) {
    result.details.push_back("CUDA " + (toolkit.version_text.empty() ? std::string("?") : toolkit.version_text) + "  " +
                             util::to_utf8(toolkit.root) + "  (" + toolkit.via + ")");
  }
  if (!facts.selection || !facts.selection->tree.cuda || !first.version) {
    return result;
  }
  const TreeRecord& tree = facts.selection->tree;
  if (first.version->major != tree.cuda->major) {
    bool any = false;
    for (const auto& toolkit : facts.toolkits) {
      any = any || (toolkit.version && toolkit.version->major == tree.cuda->major);
    }
    DoctorCheck found = problem(
        "toolkit", DoctorStatus::warn,
        "CUDA " + first.version_text + " comes first; the selected tree is built for CUDA " + tree.cuda->str(),
        "code built with nvcc " + first.version_text + " against cuDNN " + tree.version.str() +
            " fails to link or to load (a CUDA " + std::to_string(first.version->major) + " runtime beside a CUDA " +
            std::to_string(tree.cuda->major) + " cuDNN)",
        "the first toolkit (" + first.via + ") is CUDA " + std::to_string(first.version->major) + ".x",
        any ? "point CUDA_PATH / CUDA_HOME at the CUDA " + std::to_string(tree.cuda->major) + " toolkit listed below"
            : "install CUDA " + tree.cuda->str() + ", or select a cuDNN built for CUDA " +
                  std::to_string(first.version->major) + ": " + install_suggestion(first.version->major));
    found.details = result.details;
    return found;
  }
  return result;
}

DoctorCheck check_dependencies(const Facts& facts) {
  if (!facts.selection) {
    return skipped_without_selection("dependencies");
  }
  const TreeRecord& tree = facts.selection->tree;
  if (tree.platform != facts.platform) {
    return check("dependencies", DoctorStatus::skip, "the selected tree is built for " + describe(tree.platform));
  }
  // Every library of the tree (cuDNN 8's sub-libraries import cuBLAS, the
  // main one does not), searched as exec runs a program: the tree's folder,
  // then the CUDA runtime's selected with it, then the path.
  DiscoverContext context;
  const auto& runtime = facts.selection->runtime();
  context.environment =
      with_runtime_folder(facts.environment, runtime ? runtime->resolve(runtime->layout.library_dir) : fs::path());
  context.os = facts.platform.os;
  std::vector<MissingDependency> missing;
  for (const auto& name : expected_set(tree.version, tree.platform.os).libraries) {
    const fs::path library = tree.resolve(tree.layout.library_dir) / util::path_from_utf8(name);
    std::error_code ec;
    if (library != tree.library_path() && !fs::is_regular_file(library, ec)) continue;  // the integrity check's
    const auto found =
        find_missing_dependencies(library, context,
                                  library == tree.library_path() ? loaded_at_run_time(tree.version, facts.platform.os)
                                                                 : std::vector<std::string>{});
    missing.insert(missing.end(), found.begin(), found.end());
  }
  if (missing.empty()) {
    return check("dependencies", DoctorStatus::ok,
                 "every library " + tree.name + " needs is found" +
                     (runtime ? " (with the CUDA runtime '" + runtime->name + "')" : std::string()));
  }
  DoctorCheck result;
  std::string names;
  std::string hints;
  std::set<std::string> named;  // one name that several libraries need, once
  for (const auto& item : missing) {
    if (!named.insert(item.name).second) continue;
    names += (names.empty() ? "" : ", ") + item.name;
    if (!item.hint.empty() && hints.find(item.hint) == std::string::npos) {
      hints += (hints.empty() ? "" : "; ") + item.hint;
    }
  }
  const bool windows = facts.platform.os == Os::windows;
  result = problem("dependencies", DoctorStatus::fail, "missing: " + names,
                   windows ? "'Could not load library cudnn_cnn_infer64_8.dll. Error code 126' or 'DLL load failed "
                             "while importing ...: The specified module could not be found'"
                           : "'libcudnn_cnn_infer.so.8: cannot open shared object file' or 'Could not load library "
                             "libcudnn_...'",
                   describe_grouped(missing, false).front(),
                   hints.empty() ? "install what provides " + names + " and put its folder on " +
                                       (windows ? "PATH" : "LD_LIBRARY_PATH")
                                 : hints);
  // The first line is the cause already: the details list the rest, if any.
  const auto lines = describe_grouped(missing, false);
  if (lines.size() > 1) result.details = lines;
  return result;
}

struct Winner {
  std::string name;
  std::vector<LoaderCandidate> candidates;
};

std::vector<Winner> winners(const Facts& facts) {
  std::vector<Winner> result;
  for (const auto& name : library_names(facts)) {
    result.push_back({name, candidates_for(facts, name)});
  }
  return result;
}

DoctorCheck check_copy_wins(const Facts& facts) {
  if (facts.program.path.empty()) {
    return check("copy-wins", DoctorStatus::skip, "no '" + facts.program.requested + "' on PATH");
  }
  const std::string program = program_name(facts);
  const auto all = winners(facts);
  if (all.empty()) {
    return check("copy-wins", DoctorStatus::skip, "no cuDNN copy found");
  }
  DoctorCheck result;
  std::vector<std::string> details;
  for (const auto& winner : all) {
    int rank = 0;
    for (const auto& candidate : winner.candidates) {
      details.push_back(std::string(rank == 0 ? "loads  " : "skips  ") + util::to_utf8(candidate.file) + "  (" +
                        version_of(facts, candidate.file) + ", " + candidate.via + ")");
      ++rank;
    }
  }
  // PyTorch on Linux links cuDNN from libtorch_cuda.so, whose own RPATH/RUNPATH is searched for it.
  for (const auto& framework : facts.frameworks) {
    const fs::path linker = framework.location / "lib" / "libtorch_cuda.so";
    std::error_code ec;
    if (facts.platform.os != Os::linux || framework.name != "PyTorch" || !fs::is_regular_file(linker, ec)) {
      continue;
    }
    DiscoverContext context;
    context.environment = facts.environment;
    context.os = facts.platform.os;
    for (const auto& winner : all) {
      const auto found = loader_candidates(context, linker, winner.name);
      if (!found.empty()) {
        details.push_back("import torch loads  " + util::to_utf8(found.front().file) + "  (" +
                          version_of(facts, found.front().file) + ", " + found.front().via + ")");
      }
    }
  }
  if (facts.program.is_shim) {
    result = check("copy-wins", DoctorStatus::ok,
                   program + " on PATH is a cudnnenv shim (" + quoted(facts.program.path) + "): it loads the " +
                       (facts.selection ? "selected tree " + tree_words(facts.selection->tree) : "selected tree") +
                       "; without it, it would load what is listed below");
    result.details = details;
    return result;
  }
  const Winner& first = all.front();
  if (!facts.selection) {
    if (first.candidates.empty()) {
      result = check("copy-wins", DoctorStatus::ok, program + " finds no " + first.name);
    } else {
      result = check("copy-wins", DoctorStatus::ok,
                     program + " loads " + quoted(first.candidates.front().file) + " (" +
                         version_of(facts, first.candidates.front().file) + ")");
    }
    result.details = details;
    return result;
  }
  const TreeRecord& tree = facts.selection->tree;
  const std::string fix = pinned_fix(facts);
  if (first.candidates.empty()) {
    result = problem("copy-wins", DoctorStatus::warn,
                     program + " alone finds no " + first.name + "; the selected tree is " + tree_words(tree),
                     facts.platform.os == Os::windows
                         ? "'Could not load dynamic library '" + first.name + "'' or 'DLL load failed'"
                         : "'Could not load dynamic library '" + first.name + "'' or 'cannot open shared object file'",
                     first.name + " is in none of the folders " + program + "'s loader searches", fix);
    result.details = details;
    return result;
  }
  const LoaderCandidate& winner = first.candidates.front();
  if (util::same_file(winner.file, tree.library_path())) {
    result = check("copy-wins", DoctorStatus::ok,
                   program + " loads " + quoted(winner.file) + " (the selected tree, via " + winner.via + ")");
    result.details = details;
    return result;
  }
  const std::string version = version_of(facts, winner.file);
  result = problem("copy-wins", DoctorStatus::warn,
                   program + " loads " + quoted(winner.file) + " (" + version + "), not the selected tree",
                   "a plain '" + facts.program.requested + "' gets cuDNN " + version + " from " + quoted(winner.file) +
                       " (TensorFlow logs 'Loaded cuDNN version ...'; torch.backends.cudnn.version())",
                   quoted(winner.file.parent_path()) + " (" + winner.via + ") comes before the selected tree " +
                       tree_words(tree) + " in " + program + "'s search order",
                   fix + (winner.via == "LD_LIBRARY_PATH"
                              ? "; " + ld_library_path_fix(facts, {winner.file.parent_path()})
                              : "; or remove the copy " + quoted(winner.file) + " if it was copied there by hand"));
  result.details = details;
  return result;
}

// The copy-wins check for the selected CUDA runtime's libraries: which file
// of each name the program loads when started plainly.
DoctorCheck check_runtime_copy_wins(const Facts& facts) {
  const std::string id = "cuda-copy-wins";
  if (facts.selection && !facts.selection->runtime()) {
    if (const auto unprovided = unprovided_framework_libraries(*facts.selection, facts.environment, facts.platform.os);
        unprovided && facts.platform == host_platform()) {
      const bool windows = facts.platform.os == Os::windows;
      return problem(id, DoctorStatus::fail,
                     "no CUDA runtime: " + unprovided->framework + " opens " + unprovided->names.front() +
                         " first, and nothing provides it",
                     windows ? "'Could not load dynamic library '" + unprovided->names.front() +
                                   "'; dlerror: " + unprovided->names.front() + " not found'"
                             : "'Could not load dynamic library '" + unprovided->names.front() +
                                   "'; dlerror: " + unprovided->names.front() + ": cannot open shared object file'",
                     unprovided->describe(), unprovided->fix);
    }
  }
  if (!facts.selection || !facts.selection->runtime()) {
    return check(id, DoctorStatus::skip, "no CUDA runtime tree is selected");
  }
  if (facts.program.path.empty()) {
    return check(id, DoctorStatus::skip, "no '" + facts.program.requested + "' on PATH");
  }
  const TreeRecord& runtime = *facts.selection->runtime();
  const fs::path folder = runtime.resolve(runtime.layout.library_dir);
  const std::string program = program_name(facts);
  const std::string words = "the selected runtime '" + runtime.name + "'";
  std::vector<std::string> details;
  // The names found elsewhere, grouped by where ("'/opt/x/lib' (LD_LIBRARY_PATH)"), in the order first seen.
  std::vector<std::pair<std::string, std::vector<std::string>>> elsewhere;
  std::vector<std::string> nowhere;
  std::vector<fs::path> through_ld_library_path;  // the folders of those found through LD_LIBRARY_PATH
  const auto names = runtime_library_files(folder, facts.platform.os);
  for (const auto& name : names) {
    const auto candidates = candidates_for(facts, name);
    if (candidates.empty()) {
      nowhere.push_back(name);
      details.push_back("finds no " + name);
      continue;
    }
    const LoaderCandidate& first = candidates.front();
    if (util::same_file(first.file, folder / util::path_from_utf8(name))) {
      details.push_back("loads  " + util::to_utf8(first.file) + "  (the runtime, via " + first.via + ")");
      continue;
    }
    details.push_back("loads  " + util::to_utf8(first.file) + "  (" + first.via + ")");
    const std::string where = quoted(first.file.parent_path()) + " (" + first.via + ")";
    auto group =
        std::find_if(elsewhere.begin(), elsewhere.end(), [&](const auto& each) { return each.first == where; });
    if (group == elsewhere.end()) group = elsewhere.insert(elsewhere.end(), {where, {}});
    group->second.push_back(name);
    const fs::path from = first.file.parent_path();
    if (first.via == "LD_LIBRARY_PATH" && std::find(through_ld_library_path.begin(), through_ld_library_path.end(),
                                                    from) == through_ld_library_path.end()) {
      through_ld_library_path.push_back(from);
    }
  }
  DoctorCheck result;
  if (facts.program.is_shim) {
    result = check(id, DoctorStatus::ok,
                   program + " on PATH is a cudnnenv shim: it loads " + words +
                       "; without it, it would load what is listed below");
  } else if (elsewhere.empty() && nowhere.empty()) {
    result = check(id, DoctorStatus::ok,
                   program + " loads each of the " + std::to_string(names.size()) + " libraries of " + words);
  } else {
    std::vector<std::string> parts;
    for (const auto& [where, found] : elsewhere) {
      parts.push_back(std::to_string(found.size()) + " from " + where + ": " + util::join(found, ", "));
    }
    std::string summary = parts.empty() ? std::string() : program + " loads " + util::join(parts, "; ");
    if (!nowhere.empty()) {
      summary += (summary.empty() ? program + " finds no " : "; finds no ") + util::join(nowhere, ", ");
    }
    const bool windows = facts.platform.os == Os::windows;
    const std::string ld_library_path_fixes =
        through_ld_library_path.empty() ? std::string() : "; " + ld_library_path_fix(facts, through_ld_library_path);
    result = problem(
        id, DoctorStatus::warn, summary + ", not " + words,
        "a plain '" + facts.program.requested + "' gets other CUDA libraries than cuDNN was selected with ('" +
            (windows ? std::string("DLL load failed") : std::string("cannot open shared object file")) +
            "', CUBLAS_STATUS_NOT_INITIALIZED, or a framework's own bundled copies)",
        "the runtime's folder " + quoted(folder) + " is not first in " + program + "'s search order for those names",
        pinned_fix(facts) + ld_library_path_fixes + "; or remove a copy that was put there by hand");
  }
  result.details = details;
  return result;
}

// Jupyter's kernels: which cuDNN each kernel's Python loads when Jupyter
// starts it (directly, with Jupyter's environment), or that cudnnenv pins it.
DoctorCheck check_kernels(const Facts& facts) {
  const std::string id = "kernels";
  if (facts.kernels.empty()) return check(id, DoctorStatus::skip, "no Jupyter kernel found");
  if (!facts.selection) return skipped_without_selection(id);
  const TreeRecord& tree = facts.selection->tree;
  const std::string library = util::to_utf8(tree.library_path().filename());
  DiscoverContext context;
  context.environment = facts.environment;
  context.os = facts.platform.os;
  std::vector<std::string> details;
  std::vector<std::string> others;
  std::string python;
  for (const auto& kernel : facts.kernels) {
    if (kernel.argv.empty()) continue;
    if (kernel.by_cudnnenv) {
      const auto at = std::find(kernel.argv.begin(), kernel.argv.end(), "--cudnn");
      details.push_back(kernel.name + ": pinned by cudnnenv to '" +
                        (at != kernel.argv.end() && at + 1 != kernel.argv.end() ? *(at + 1) : std::string("?")) + "'");
      continue;
    }
    auto program = find_program(kernel.argv.front(), facts.environment, {});
    if (!program) {
      details.push_back(kernel.name + ": its program '" + util::printable(kernel.argv.front()) + "' is not found");
      continue;
    }
    const auto candidates = loader_candidates(context, *program, library);
    if (candidates.empty()) {
      details.push_back(kernel.name + ": " + util::to_utf8(*program) + " finds no " + library);
    } else if (util::same_file(candidates.front().file, tree.library_path())) {
      details.push_back(kernel.name + ": " + util::to_utf8(*program) + " loads the selected tree");
    } else {
      others.push_back(kernel.name);
      if (python.empty()) python = util::to_utf8(*program);
      details.push_back(kernel.name + ": " + util::to_utf8(*program) + " loads " +
                        util::to_utf8(candidates.front().file) + " (" + version_of(facts, candidates.front().file) +
                        ", " + candidates.front().via + ")");
    }
  }
  DoctorCheck result;
  if (others.empty()) {
    result = check(id, DoctorStatus::ok,
                   std::to_string(facts.kernels.size()) +
                       (facts.kernels.size() == 1 ? " Jupyter kernel" : " Jupyter kernels") +
                       ": each pinned by cudnnenv, or loading the selected tree or no cuDNN");
  } else {
    result = problem(id, DoctorStatus::warn,
                     "the Jupyter kernel" + std::string(others.size() == 1 ? " " : "s ") + util::join(others, ", ") +
                         " load another cuDNN than the selected tree " + tree_words(tree),
                     "a notebook reports another cuDNN than this shell (TensorFlow's 'Loaded cuDNN version', "
                     "torch.backends.cudnn.version())",
                     "Jupyter starts a kernel's Python directly, with the environment Jupyter itself was started "
                     "from: no activation, no shim reaches it",
                     "a kernel whose every start is pinned: 'cudnnenv export jupyter " +
                         command_word(tree.name, facts.platform.os) + " --python " +
                         command_word(python, facts.platform.os) + "', then pick it in the notebook");
  }
  result.details = details;
  return result;
}

// The VS Code workspace here: which cuDNN its interpreter loads when VS Code
// starts it (Run, the debugger, its notebooks' default), or the tree a
// cudnnenv launcher pins it to.
DoctorCheck check_vscode(const Facts& facts) {
  const std::string id = "vscode";
  if (!facts.vscode) return check(id, DoctorStatus::skip, "no VS Code workspace here (.vscode/settings.json)");
  const VscodeInfo& vscode = *facts.vscode;
  const std::string settings = util::to_utf8(vscode.settings);
  if (!vscode.problem.empty()) {
    return check(id, DoctorStatus::skip, settings + " is " + vscode.problem + ": its interpreter was not read");
  }
  if (vscode.interpreter.empty()) {
    return check(id, DoctorStatus::skip, settings + " names no interpreter (python.defaultInterpreterPath)");
  }
  if (!facts.selection) return skipped_without_selection(id);
  const TreeRecord& tree = facts.selection->tree;
  const std::string program = util::to_utf8(vscode.program);
  if (vscode.pinned) {
    if (vscode.pinned->tree == tree.name) {
      return check(id, DoctorStatus::ok,
                   "VS Code's interpreter " + util::printable(program) +
                       " is pinned by cudnnenv to the selected tree " + tree_words(tree));
    }
    return problem(id, DoctorStatus::warn,
                   "VS Code's interpreter " + util::printable(program) + " (" + settings +
                       ") is pinned by cudnnenv to '" + util::printable(vscode.pinned->tree) +
                       "', not the selected tree " + tree_words(tree),
                   "Run and Debug in VS Code report another cuDNN than this shell",
                   "the workspace's settings were exported for another tree",
                   "'cudnnenv export vscode " + command_word(tree.name, facts.platform.os) + " --python " +
                       command_word(vscode.pinned->target, facts.platform.os) + "', then reload the window");
  }
  DiscoverContext context;
  context.environment = facts.environment;
  context.os = facts.platform.os;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(vscode.program, ec)) {
    return check(id, DoctorStatus::warn,
                 "VS Code's interpreter " + util::printable(program) + " (" + settings + ") is not found");
  }
  const std::string library = util::to_utf8(tree.library_path().filename());
  const auto candidates = loader_candidates(context, vscode.program, library);
  if (candidates.empty() || util::same_file(candidates.front().file, tree.library_path())) {
    return check(id, DoctorStatus::ok,
                 "VS Code's interpreter " + util::printable(program) +
                     (candidates.empty() ? " finds no " + library : " loads the selected tree"));
  }
  return problem(id, DoctorStatus::warn,
                 "VS Code's interpreter " + util::printable(program) + " (" + settings + ") loads " +
                     util::to_utf8(candidates.front().file) + " (" + version_of(facts, candidates.front().file) + ", " +
                     candidates.front().via + "), not the selected tree " + tree_words(tree),
                 "Run and Debug in VS Code report another cuDNN than this shell",
                 "VS Code starts the interpreter directly, with the environment VS Code itself was started from: no "
                 "activation, no shim reaches it",
                 "an interpreter whose every start is pinned: 'cudnnenv export vscode " +
                     command_word(tree.name, facts.platform.os) + " --python " +
                     command_word(program, facts.platform.os) + "', then reload the window");
}

DoctorCheck check_stray_copies(const Facts& facts) {
  if (facts.platform.os != Os::windows) {
    return check("stray-copies", DoctorStatus::skip, "Windows only (System32, SysWOW64)");
  }
  std::vector<const FoundCopy*> strays;
  for (const auto& copy : facts.copies) {
    for (const auto& via : copy.found_via) {
      if (via == "System32" || via == "SysWOW64") {
        strays.push_back(&copy);
        break;
      }
    }
  }
  if (strays.empty()) {
    return check("stray-copies", DoctorStatus::ok, "no cuDNN in System32 or SysWOW64");
  }
  DoctorCheck result =
      problem("stray-copies", DoctorStatus::warn, "cuDNN in a system folder: " + quoted(strays.front()->library),
              "every program that loads " + util::to_utf8(strays.front()->library.filename()) +
                  " by name gets this copy, whatever PATH says",
              "System32 and SysWOW64 come before PATH in the DLL search order; guides that say 'copy the DLLs into "
              "System32' leave such copies",
              "delete " + quoted(strays.front()->library) +
                  " (and its sibling cudnn_*.dll files); keep versions in the store "
                  "and select one: cudnnenv use <version>");
  for (const auto* copy : strays) {
    result.details.push_back(util::to_utf8(copy->library) + "  (" +
                             (copy->version ? copy->version->str() : std::string("version unknown")) + ")");
  }
  return result;
}

// A framework's own cuDNN lacking a library of its major: one its release
// ships (incomplete), or one another copy here has at another version (run
// plainly, the loader takes that copy's: two versions in one process).
DoctorCheck check_bundle_incomplete(const Facts& facts) {
  const Os os = facts.platform.os;
  std::vector<std::string> details;
  std::optional<DoctorCheck> found;
  for (const auto& framework : facts.frameworks) {
    for (const auto& library : framework.own_copies) {
      const auto version = parse_version(version_of(facts, library));
      if (!version) continue;
      const fs::path folder = library.parent_path();
      const auto release = expected_set(*version, os).libraries;
      std::vector<std::string> lacking;  // of the release
      std::vector<std::string> taken;    // "NAME from 'PATH' (cuDNN V)"
      for (const auto& name : family_libraries_lacking(folder, version->major, os)) {
        std::error_code ec;
        if (std::find(release.begin(), release.end(), name) != release.end()) lacking.push_back(name);
        const FoundCopy* other = nullptr;
        for (const auto& copy : facts.copies) {
          if (util::same_file(copy.library.parent_path(), folder)) continue;
          if (!fs::is_regular_file(copy.library.parent_path() / util::path_from_utf8(name), ec)) continue;
          if (!other || (copy.loaded_by_name && !other->loaded_by_name)) other = &copy;
        }
        if (other && !(other->version && other->version->same_release(*version))) {
          taken.push_back(name + " from " + quoted(other->library.parent_path() / util::path_from_utf8(name)) +
                          " (cuDNN " + (other->version ? other->version->str() : std::string("of unknown version")) +
                          ")");
        }
      }
      const std::string owner = framework.name + (framework.version.empty() ? "" : " " + framework.version);
      if (lacking.empty() && taken.empty()) {
        details.push_back(owner + ": cuDNN " + version->str() + " in " + quoted(folder) + ", complete");
        continue;
      }
      std::vector<std::string> names = lacking;
      for (const auto& each : taken) {
        const std::string name = each.substr(0, each.find(' '));
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      }
      const std::string summary =
          owner + "'s cuDNN " + version->str() + " in " + quoted(folder) + " lacks " + util::join(names, ", ");
      details.push_back(summary);
      if (found) continue;
      const std::string program = command_word(facts.program.requested, os);
      const std::string heal =
          "keep the bundle's own files: cudnnenv adopt --heal " + command_word(util::to_utf8(folder), os);
      // A tree of that release in the store: the fix that works here, offline too, leads.
      const TreeRecord* same = nullptr;
      for (const auto& tree : facts.trees) {
        if (tree.kind == TreeKind::cudnn && tree.version == *version && tree.platform.os == os) same = &tree;
      }
      const auto install = release_install_command(*version);
      const std::string fix =
          same ? "cudnnenv exec --cudnn " + command_word(same->name, os) + " -- " + program + "  ('" + same->name +
                     "' in the store is cuDNN " + same->version.str() +
                     ", pinned: a name it lacks loads from nowhere else); or " + heal
               : (install ? *install + " && " : std::string()) + "cudnnenv exec" +
                     (install ? " --cudnn " + std::to_string(version->major) + "." + std::to_string(version->minor) +
                                    "." + std::to_string(version->patch)
                              : std::string()) +
                     " -- " + program + "  (a complete tree, pinned: a name it lacks loads from nowhere else)" +
                     "; or, with that release in the store, " + heal;
      found =
          problem("bundle-incomplete", DoctorStatus::fail, summary,
                  os == Os::windows ? "'Could not locate " + names.front() +
                                          "' or CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH at the first convolution"
                                    : "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH at the first convolution",
                  taken.empty() ? "cuDNN " + version->str() + " ships " + util::join(lacking, ", ") +
                                      "; the bundle left it out, and cuDNN opens it by bare name"
                                : "run plainly, the loader takes " + util::join(taken, "; ") + " beside the bundle's " +
                                      version->str() + ": two versions of cuDNN in one process",
                  fix);
    }
  }
  if (found) {
    found->details = details;
    return *found;
  }
  if (details.empty()) return check("bundle-incomplete", DoctorStatus::skip, "no framework carries its own cuDNN");
  DoctorCheck result =
      check("bundle-incomplete", DoctorStatus::ok, "every framework's own cuDNN has its release's libraries");
  result.details = details;
  return result;
}

DoctorCheck check_bundled_copies(const Facts& facts) {
  std::vector<std::string> details;
  std::optional<DoctorCheck> windows_torch;
  std::string summary;
  for (const auto& framework : facts.frameworks) {
    for (const auto& library : framework.own_copies) {
      const std::string version = version_of(facts, library);
      details.push_back(framework.name + " " + framework.version + ": " + util::to_utf8(library) + "  (" + version +
                        ")");
      if (summary.empty()) {
        summary = framework.name + " " + framework.version + " carries cuDNN " + version + " in " +
                  quoted(library.parent_path());
      }
      if (facts.platform.os == Os::windows &&
          util::to_lower(util::to_utf8(library)).find("torch") != std::string::npos && !windows_torch) {
        windows_torch =
            problem("bundled-copies", DoctorStatus::warn,
                    framework.name + " " + framework.version + " loads its own cuDNN " + version + " from " +
                        quoted(library.parent_path()),
                    "torch.backends.cudnn.version() shows " + version + " whatever tree is selected",
                    "PyTorch on Windows loads torch\\lib's DLLs by full path: no launcher, PATH or SetDllDirectory can "
                    "replace them",
                    "to run PyTorch with another cuDNN, install the PyTorch build made with it (pip install torch "
                    "--index-url https://download.pytorch.org/whl/cuXXX); cudnnenv pins the other programs");
      }
    }
  }
  for (const auto& copy : facts.copies) {
    for (const auto& via : copy.found_via) {
      if (via == "conda environment") {
        details.push_back("conda: " + util::to_utf8(copy.library) + "  (" +
                          (copy.version ? copy.version->str() : std::string("version unknown")) + ")");
        break;
      }
    }
  }
  if (windows_torch) {
    windows_torch->details = details;
    return *windows_torch;
  }
  if (details.empty()) {
    return check("bundled-copies", DoctorStatus::ok, "no framework or conda environment carries its own cuDNN");
  }
  DoctorCheck result = check(
      "bundled-copies", DoctorStatus::ok,
      (summary.empty() ? "conda environments carry their own cuDNN" : summary) +
          (facts.platform.os == Os::linux
               ? "; it loads that copy through its RPATH when run plainly; 'cudnnenv exec' and the shims replace it "
                 "with the selected tree (LD_AUDIT)"
               : ""));
  result.details = details;
  return result;
}

DoctorCheck check_architecture(const Facts& facts) {
  if (!facts.program.binary) {
    const std::string no_program = facts.program.path.empty() ? "no '" + facts.program.requested + "' on PATH"
                                                              : quoted(facts.program.target) + " is not a program file";
    // Nothing to compare with: every copy found, against this machine's own
    // architecture (cuDNN has no 32-bit build: such a copy only fails).
    std::vector<std::string> others;
    for (const auto& copy : facts.copies) {
      if (auto info = identify_binary_file(copy.library);
          info && info->format != BinaryFormat::none && (info->arch != facts.platform.arch || info->bits != 64)) {
        others.push_back(quoted(copy.library) + " is " + info->describe());
      }
    }
    if (others.empty()) return check("architecture", DoctorStatus::skip, no_program);
    const bool windows = facts.platform.os == Os::windows;
    DoctorCheck result = problem(
        "architecture", DoctorStatus::warn,
        others.front() + (others.size() > 1 ? " (and " + std::to_string(others.size() - 1) + " more)" : "") + ", not " +
            describe(facts.platform) + " (" + no_program + " to compare with)",
        windows ? "'DLL load failed: %1 is not a valid Win32 application' (error 193)"
                : "'wrong ELF class' when it loads",
        "a 64-bit program loads only 64-bit libraries; a copy of another architecture found first by name fails "
        "its load",
        "delete or rename that copy if it was copied there by hand (cuDNN has no 32-bit build)");
    result.details = others;
    return result;
  }
  const BinaryInfo& program = *facts.program.binary;
  const std::string name = program_name(facts);
  auto mismatch = [&](const fs::path& library, const BinaryInfo& info, DoctorStatus status, const std::string& role) {
    const bool windows = facts.platform.os == Os::windows;
    return problem(
        "architecture", status, quoted(library) + " is " + info.describe() + "; " + name + " is " + program.describe(),
        windows ? "'DLL load failed: %1 is not a valid Win32 application' (error 193)"
                : "'wrong ELF class: ELFCLASS" + std::to_string(info.bits) + "' when it loads",
        "a process loads only libraries of its own architecture; " + role,
        "use a " + std::to_string(program.bits) + "-bit " + to_string(program.arch) + " cuDNN (" +
            (program.bits == 32 ? "cuDNN has no 32-bit build: install a 64-bit " + name : install_suggestion()) +
            "), and delete " + quoted(library) + " if it was copied there by hand");
  };
  auto differs = [&](const BinaryInfo& info) {
    return info.format != BinaryFormat::none && (info.arch != program.arch || info.bits != program.bits);
  };
  if (facts.selection) {
    const fs::path library = facts.selection->tree.library_path();
    if (auto info = identify_binary_file(library); info && differs(*info)) {
      return mismatch(library, *info, DoctorStatus::fail, "this is the selected tree's library");
    }
  }
  DoctorCheck result = check("architecture", DoctorStatus::ok, name + " is " + program.describe());
  for (const auto& winner : winners(facts)) {
    int rank = 0;
    for (const auto& candidate : winner.candidates) {
      if (auto info = identify_binary_file(candidate.file); info && differs(*info)) {
        if (rank == 0 && !facts.program.is_shim) {
          return mismatch(candidate.file, *info, DoctorStatus::fail,
                          "this is the copy " + name + " loads first (" + candidate.via + ")");
        }
        result.details.push_back(util::to_utf8(candidate.file) + " is " + info->describe() + " (skipped)");
      }
      ++rank;
    }
  }
  return result;
}

DoctorCheck check_headers(const Facts& facts) {
  if (facts.headers.empty()) {
    return check("headers", DoctorStatus::ok, "no cudnn_version.h found (needed only to build against cuDNN)");
  }
  const HeaderInfo& first = facts.headers.front();
  const std::string version = first.version ? first.version->str() : std::string("version unknown");
  DoctorCheck result =
      check("headers", DoctorStatus::ok, quoted(first.file) + " says " + version + " (" + first.via + ")");
  for (const auto& header : facts.headers) {
    result.details.push_back(util::to_utf8(header.file) + "  (" +
                             (header.version ? header.version->str() : std::string("?")) + ", " + header.via + ")");
  }
  if (!facts.selection || !first.version) {
    return result;
  }
  const TreeRecord& tree = facts.selection->tree;
  if (first.version->same_release(tree.version)) {
    return result;
  }
  const bool major = first.version->major != tree.version.major;
  DoctorCheck found = problem(
      "headers", major ? DoctorStatus::fail : DoctorStatus::warn,
      quoted(first.file) + " says " + version + "; the selected library is " + tree.version.str(),
      "code builds against the headers of " + version + ", then " +
          (major ? "fails to load or crashes with " + tree.version.str()
                 : "runs with " + tree.version.str() + " (cudnnGetVersion() differs from CUDNN_VERSION)"),
      "the first cudnn_version.h a build finds (" + first.via + ") is not the selected tree's",
      "build with the tree's headers: point CUDNN_INCLUDE_DIR at " + quoted(tree.resolve(tree.layout.include_dir)) +
          " ('cudnnenv activate' sets it), or remove " + quoted(first.file));
  found.details = result.details;
  return found;
}

DoctorCheck check_vc_runtime(const Facts& facts) {
  if (facts.platform.os != Os::windows) {
    return check("vc-runtime", DoctorStatus::skip, "Windows only");
  }
  std::vector<std::string> missing;
  for (const char* name : {"msvcp140.dll", "vcruntime140.dll", "vcruntime140_1.dll"}) {
    const bool found = std::any_of(facts.vc_runtime.begin(), facts.vc_runtime.end(), [&](const RuntimeFile& file) {
      return util::iequals(util::to_utf8(file.file.filename()), name);
    });
    if (!found) missing.push_back(name);
  }
  DoctorCheck result;
  if (missing.empty()) {
    std::string versions;
    for (const auto& file : facts.vc_runtime) {
      versions += (versions.empty() ? "" : ", ") + util::to_utf8(file.file.filename()) + " " +
                  (file.version.empty() ? std::string("(no version)") : file.version);
    }
    result = check("vc-runtime", DoctorStatus::ok, versions);
  } else {
    std::string names;
    for (const auto& name : missing) names += (names.empty() ? "" : ", ") + name;
    result = problem("vc-runtime", DoctorStatus::fail, "missing in System32: " + names,
                     "'The code execution cannot proceed because " + missing.front() +
                         " was not found', or 'DLL load failed' when TensorFlow or PyTorch starts",
                     "the Microsoft Visual C++ 2015-2022 runtime is not installed",
                     "install the Visual C++ Redistributable (x64): https://aka.ms/vs/17/release/vc_redist.x64.exe");
  }
  for (const auto& file : facts.vc_runtime) {
    result.details.push_back(util::to_utf8(file.file) + "  " + file.version);
  }
  return result;
}

DoctorCheck check_cpu(const Facts& facts) {
  if (!facts.cpu_avx) {
    return check("cpu-avx", DoctorStatus::skip, "not an x86 CPU");
  }
  if (*facts.cpu_avx) {
    return check("cpu-avx", DoctorStatus::ok, "the CPU has AVX");
  }
  return problem("cpu-avx", DoctorStatus::warn, "the CPU has no AVX",
                 "'Illegal instruction (core dumped)' on 'import tensorflow', or a crash with no message on Windows",
                 "TensorFlow's binaries since 1.6 use AVX instructions",
                 "use a CPU with AVX, or a TensorFlow built without it (from source)");
}

// The command that puts a damaged tree back as it was installed: removed,
// then installed again from where it came (its official release by version
// and CUDA, else the archive or folder it was installed from), under its name.
std::string reinstall_command(const TreeRecord& tree, Os os) {
  const std::string name = command_word(tree.name, os);
  std::string again;
  if (tree.source.kind == "adopted") {
    again = "cudnnenv adopt " + command_word(tree.source.path, os);
  } else if (!tree.source.official.empty() && tree.cuda) {
    again = "cudnnenv install " + tree.version.str() + " --cuda " + std::to_string(tree.cuda->major);
  } else {
    again = "cudnnenv install " + command_word(tree.source.path, os);
  }
  return "cudnnenv remove " + name + " && " + again + " --name " + name;
}
DoctorCheck check_integrity(const Facts& facts, const DoctorOptions& options) {
  if (facts.trees.empty() && facts.beside.empty() && facts.damaged_trees.empty()) {
    return check("integrity", DoctorStatus::skip, "no tree installed");
  }
  std::vector<TreeRecord> all = facts.trees;  // cuDNN trees and CUDA runtime trees alike
  all.insert(all.end(), facts.beside.begin(), facts.beside.end());
  std::vector<std::string> details;
  std::string first_tree;
  const TreeRecord* first_damaged = nullptr;
  std::vector<TreeRecord> runtimes;  // the donors an incomplete runtime's fix names
  std::ranges::copy_if(all, std::back_inserter(runtimes),
                       [](const TreeRecord& tree) { return tree.kind == TreeKind::cuda; });
  for (const auto& tree : all) {
    std::vector<std::string> problems;
    if (options.deep) {
      VerifyOptions verify;
      verify.level = VerifyLevel::files;
      verify.environment = facts.environment;
      verify.store_runtimes = runtimes;
      for (const auto& item : verify_tree(tree, verify).checks) {
        if (item.status == CheckStatus::failed) problems.push_back(item.name + ": " + item.detail);
      }
    } else {
      for (const auto& file : changed_files(tree)) {
        problems.push_back(util::printable(file) + ": missing or another size than installed");
      }
      for (const auto& file : modified_files(tree)) {
        problems.push_back(util::printable(file) + ": written after the install, and its SHA-256 differs");
      }
    }
    for (const auto& item : problems) {
      details.push_back(tree.name + ": " + item);
    }
    if (!problems.empty() && first_tree.empty()) {
      first_tree = tree.name;
      first_damaged = &tree;
    }
  }
  for (const auto& error : facts.damaged_trees) {
    details.push_back(error.message);
    if (first_tree.empty()) first_tree = "?";
  }
  const std::string how = options.deep
                              ? "every file hashed"
                              : "sizes compared, files written since the install hashed; --deep hashes every file";
  if (details.empty()) {
    return check("integrity", DoctorStatus::ok,
                 std::to_string(all.size()) + (all.size() == 1 ? " tree" : " trees") + " as installed (" + how + ")");
  }
  const bool windows = facts.platform.os == Os::windows;
  DoctorCheck result = problem(
      "integrity", DoctorStatus::fail,
      std::to_string(details.size()) + (details.size() == 1 ? " file differs" : " files differ") +
          " from the manifest (" + how + ")",
      "a load fails or crashes midway ('" + std::string(windows ? "DLL load failed" : "file too short") +
          "', CUDNN_STATUS_INTERNAL_ERROR)",
      "a file of tree '" + first_tree + "' was deleted, truncated or replaced after install" +
          (windows ? " (antivirus quarantine does this to DLLs)" : ""),
      "see each file: 'cudnnenv verify " + command_word(first_tree, facts.platform.os) + " --level files'" +
          (first_damaged ? "; then reinstall: '" + reinstall_command(*first_damaged, facts.platform.os) + "'"
                         : std::string()) +
          (windows ? "; restore quarantined files and exclude " + quoted(facts.store_root) + " from scanning" : ""));
  result.details = details;
  return result;
}

std::string normalised_folder(std::string entry, Os os) {
  while (entry.size() > 1 && (entry.back() == '\\' || entry.back() == '/')) {
    entry.pop_back();
  }
  return os == Os::windows ? util::to_lower(entry) : entry;
}

DoctorCheck check_path_stale(const Facts& facts) {
  if (facts.platform.os != Os::windows) {
    return check("path-stale", DoctorStatus::skip, "Windows only (the registry's PATH)");
  }
  if (!facts.registry_path) {
    return check("path-stale", DoctorStatus::skip, "the registry's PATH cannot be read");
  }
  std::set<std::string> here;
  for (const auto& entry : util::split_path_list(facts.environment.get("PATH").value_or(""))) {
    here.insert(normalised_folder(entry, Os::windows));
  }
  std::vector<std::string> missing;
  for (const auto& entry : *facts.registry_path) {
    if (!here.count(normalised_folder(entry, Os::windows))) {
      missing.push_back(entry);
    }
  }
  if (missing.empty()) {
    return check("path-stale", DoctorStatus::ok, "this terminal's PATH has every entry of the registry's");
  }
  DoctorCheck result = problem(
      "path-stale", DoctorStatus::warn,
      std::to_string(missing.size()) + " registry PATH " + (missing.size() == 1 ? "entry is" : "entries are") +
          " not in this terminal's PATH: '" + missing.front() + "'",
      "a DLL you just put on PATH (setx, the System dialog, an installer) is still 'not found' in this terminal",
      "this terminal was started before PATH changed: a process copies the environment once, at its start",
      "open a new terminal (close VS Code or the IDE entirely, it starts terminals with its own old copy)");
  result.details = missing;
  return result;
}

DoctorCheck check_path_entries(const Facts& facts) {
  const bool windows = facts.platform.os == Os::windows;
  std::vector<std::string> missing;
  std::error_code ec;
  std::vector<const char*> variables = {"PATH"};
  if (!windows) variables.push_back("LD_LIBRARY_PATH");
  for (const char* variable : variables) {
    for (const auto& entry : util::split_path_list(facts.environment.get(variable).value_or(""))) {
      if (!fs::is_directory(util::path_from_utf8(entry), ec)) {
        missing.push_back(std::string(variable) + ": " + entry);
      }
    }
  }
  const std::size_t length = facts.environment.get("PATH").value_or("").size();
  if (windows && length > 8191) {
    DoctorCheck result =
        problem("path-entries", length > 32767 ? DoctorStatus::fail : DoctorStatus::warn,
                "PATH is " + std::to_string(length) + " characters long",
                "cmd says 'The input line is too long'; entries at the end are not searched by some programs",
                "cmd lines are limited to 8191 characters and an environment variable to 32767",
                "remove folders that no longer exist or are not needed from PATH; 'cudnnenv use' selects cuDNN without "
                "adding one folder per version");
    result.details = missing;
    return result;
  }
  if (missing.empty()) {
    return check("path-entries", DoctorStatus::ok,
                 "every folder on PATH" + std::string(windows ? "" : " and LD_LIBRARY_PATH") + " exists");
  }
  DoctorCheck result =
      problem("path-entries", DoctorStatus::warn,
              std::to_string(missing.size()) + (missing.size() == 1 ? " folder" : " folders") +
                  " on the search path do" + (missing.size() == 1 ? "es" : "") + " not exist: " + missing.front(),
              "nothing by itself; a sign of a removed CUDA or cuDNN the search path still names",
              "a folder was deleted or renamed, or mistyped, after it was added",
              "remove it from " + std::string(windows ? "PATH (System Properties > Environment Variables)"
                                                      : "your shell's start-up file"));
  result.details = missing;
  return result;
}

// The framework's own words when it meets a cuDNN it does not accept.
std::string refusal_words(const CudnnNeed& need, const Version& loaded, const std::optional<CudaVersion>& cuda, Os os) {
  const Version built{need.major, need.minor.value_or(0), need.patch.value_or(0), std::nullopt};
  const bool same_cudnn = loaded.major == built.major && (!need.minor || loaded.minor >= built.minor);
  if (same_cudnn && cuda && need.cuda_major && cuda->major != *need.cuda_major) {
    const std::string major = std::to_string(cuda->major);
    return "a load error naming a CUDA " + major + " library (" +
           (os == Os::windows ? "cublasLt64_" + major + ".dll" : "libcublasLt.so." + major) +
           "), or CUDNN_STATUS_* errors at the first cuDNN call: this cuDNN needs CUDA " + major +
           "'s runtime beside the CUDA " + std::to_string(*need.cuda_major) + " one " + need.framework + " loads";
  }
  if (!need.load_error.empty()) return "'" + need.load_error + "' (its own words, probed under the pin)";
  if (need.framework == "PyTorch") {
    return "through 'cudnnenv exec' or a shim: 'RuntimeError: cuDNN version incompatibility: PyTorch was compiled "
           "against (" +
           std::to_string(built.major) + ", " + std::to_string(built.minor) + ", " + std::to_string(built.patch) +
           ") but found runtime version (" + std::to_string(loaded.major) + ", " + std::to_string(loaded.minor) + ", " +
           std::to_string(loaded.patch) + ")'";
  }
  if (need.framework == "JAX" && loaded.major == built.major) {
    return "'RuntimeError: Found cuDNN version " + std::to_string(encode_cudnn_version(loaded)) +
           ", but JAX was built against version " + std::to_string(encode_cudnn_version(built)) +
           ", which is newer. ...'";
  }
  if (!need.checked_at_load) {
    return "no message when it loads: the first cuDNN call it makes fails (a missing symbol, or "
           "CUDNN_STATUS_VERSION_MISMATCH)";
  }
  return "'Loaded runtime CuDNN library: " + loaded.str() + " but source was compiled with: " + built.str() +
         ". CuDNN library needs to have matching major version and equal or higher minor version'";
}

DoctorCheck check_frameworks(const Facts& facts, const std::vector<CudnnNeed>& needs) {
  if (facts.frameworks.empty()) {
    return check("frameworks", DoctorStatus::skip,
                 facts.site_packages.empty()
                     ? "no site-packages found for '" + facts.program.requested + "'"
                     : "no TensorFlow, PyTorch, JAX, ONNX Runtime or CuPy in " + quoted(facts.site_packages.front()));
  }
  std::vector<std::string> details;
  std::optional<DoctorCheck> worst;
  auto keep = [&](DoctorCheck found) {
    if (!worst || (found.status == DoctorStatus::fail && worst->status != DoctorStatus::fail)) {
      worst = std::move(found);
    }
  };
  for (const auto& framework : facts.frameworks) {
    std::string line = framework.name + " " + (framework.version.empty() ? "?" : framework.version) + " in " +
                       util::to_utf8(framework.location);
    if (!framework.cuda.empty()) line += ", built for CUDA " + framework.cuda;
    if (!framework.cudnn.empty()) line += ", cuDNN " + framework.cudnn;
    details.push_back(line);
  }
  for (const auto& need : needs) {
    if (!need.probe_failure.empty()) {
      details.push_back(need.label() + ": the probe failed (" + need.probe_failure + "); its files say " +
                        need.wants());
    } else if (!need.known() && util::starts_with(need.source, "probe: built without")) {
      details.push_back(need.label() + ": built without cuDNN, needs none (probe)");
    } else if (util::starts_with(need.source, "probe:")) {
      details.push_back(need.label() + ": built with cuDNN " + need.built_with() + " (" + need.source + ")" +
                        (need.metadata.empty() ? "" : "; its metadata says " + need.metadata) +
                        (need.loaded ? "; loaded " + need.loaded->str() + " under the pin" : ""));
    }
  }
  if (!facts.selection) {
    DoctorCheck result = check("frameworks", DoctorStatus::ok, details.front());
    result.details = details;
    return result;
  }
  const TreeRecord& tree = facts.selection->tree;
  const std::optional<CudaVersion> tree_cuda = tree.cuda ? tree.cuda : tree.cuda_variant;
  std::optional<Solution> solution;
  auto fix_for_all = [&]() {
    if (!solution) {
      solution =
          solve(needs, facts.trees, available_archives(facts.platform, nullptr, std::nullopt), facts.platform.os);
    }
    return solution->pick ? solution->command
                          : solution->conflict + ": 'cudnnenv frameworks --solve' names a cuDNN for each";
  };
  for (const auto& need : needs) {
    if (need.framework == "TensorFlow") {
      if (auto profile = tensorflow_profile(facts.profiles, facts.platform.os, need.version)) {
        const auto fit = satisfying_tree(*profile, {tree});
        if (!fit) {
          keep(problem("frameworks", DoctorStatus::fail,
                       "TensorFlow " + need.version + " cannot run cuDNN " + tree.version.str(),
                       "'Loaded runtime CuDNN library: " + tree.version.str() +
                           " but source was compiled with: " + profile->cudnn +
                           ".0. CuDNN library needs to have matching major version and equal or "
                           "higher minor version'",
                       "TensorFlow " + need.version + " was built with cuDNN " + profile->cudnn + " and CUDA " +
                           profile->cuda + " (its tested pair); the selected tree is " + tree_words(tree),
                       "cudnnenv use " + command_word(profile->name, facts.platform.os) + "  (or: cudnnenv install " +
                           profile->cudnn + " --cuda " + profile->cuda + ")"));
        } else if (!fit->tested) {
          keep(problem("frameworks", DoctorStatus::warn,
                       "TensorFlow " + need.version + " with cuDNN " + tree.version.str() +
                           ": outside its tested pair (cuDNN " + profile->cudnn + ", CUDA " + profile->cuda + ")",
                       "it runs (same major, a newer minor), but this pairing was never tested by TensorFlow",
                       "the selected tree " + tree_words(tree) + " is not the pair TensorFlow " + need.version +
                           " was built and tested with",
                       "cudnnenv install " + profile->cudnn + " --cuda " + profile->cuda + " && cudnnenv use " +
                           command_word(profile->name, facts.platform.os)));
        }
        continue;
      }
      if (need.known() && need.major != tree.version.major) {
        keep(
            problem("frameworks", DoctorStatus::fail,
                    "TensorFlow " + need.version + " was built with cuDNN " + need.built_with() +
                        "; the selected tree is " + tree.version.str(),
                    "'Loaded runtime CuDNN library: " + tree.version.str() +
                        " but source was compiled with: " + need.built_with() + "...'",
                    "TensorFlow accepts only the major version it was built with",
                    "select a cuDNN " + std::to_string(need.major) + ".x: cudnnenv use " + std::to_string(need.major)));
      }
      continue;
    }
    std::string why;
    if (runs(need, tree.version, tree_cuda, &why)) continue;
    const bool other_cuda = need.major == tree.version.major && (!need.minor || tree.version.minor >= *need.minor);
    keep(problem("frameworks", DoctorStatus::fail,
                 other_cuda ? need.label() + " was built for CUDA " + std::to_string(need.cuda_major.value_or(0)) +
                                  "; the selected tree is built for CUDA " + tree_cuda->str()
                            : need.label() + " was built with cuDNN " + need.built_with() + "; the selected tree is " +
                                  tree.version.str(),
                 refusal_words(need, tree.version, tree_cuda, facts.platform.os),
                 need.framework + " " + why + " (" + need.source + ")" +
                     (need.metadata.empty() ? "" : "; its metadata says only " + need.metadata),
                 fix_for_all()));
  }
  DoctorCheck result = worst ? *worst : check("frameworks", DoctorStatus::ok, details.front());
  result.details = details;
  return result;
}

}  // namespace

bool driver_below_major(const DriverInfo& driver, const CudaVersion& cuda, Os os) {
  // The CUDA the driver says it runs decides when it says one (a Jetson's driver 580.00 runs CUDA 13.0);
  // else its version against the table's minimum.
  if (driver.cuda) return driver.cuda->major < cuda.major;
  const DriverMinimum minimum = minimum_driver(cuda, os);
  return !driver.version.empty() && !minimum.major.empty() && compare_dotted(driver.version, minimum.major) < 0;
}

std::optional<DoctorCheck> gpu_check_for(const GpuInfo& gpu, const TreeRecord& tree) {
  return gpu_problem(gpu, tree);
}

DriverMinimum minimum_driver(const CudaVersion& cuda, Os os) {
  DriverMinimum minimum;
  const bool windows = os == Os::windows;
  for (const auto& row : k_minimums) {
    if (row.major == cuda.major && cuda.minor && row.minor == *cuda.minor) {
      minimum.exact = windows ? row.windows : row.linux;
    }
  }
  // Minor-version compatibility (cudnn-facts.md 6.2): the minimum for the whole major.
  switch (cuda.major) {
    case 11:
      minimum.major = windows ? "452.39" : "450.80.02";
      break;
    case 12:
      minimum.major = windows ? "527.41" : "525.60.13";
      break;
    case 13:
      minimum.major = windows ? "" : "580.65.06";
      break;
    default:
      minimum.major = minimum.exact;
      break;
  }
  return minimum;
}

// verify --level conv of the selected tree, as one more check.
DoctorCheck check_verify(const Facts& facts, const DoctorOptions& doctor_options) {
  DoctorCheck check;
  check.id = "verify";
  if (!facts.selection) {
    check.status = DoctorStatus::skip;
    check.summary = "nothing selected";
    return check;
  }
  VerifyOptions options;
  options.level = VerifyLevel::conv;
  options.probe_program = doctor_options.probe_program;
  options.environment = facts.environment;
  // Several GPUs listed: each is checked, the driver started once.
  if (facts.driver.gpus.size() > 1) options.devices = "all";
  const VerifyReport report = verify_tree(facts.selection->tree, options);
  for (const auto& item : report.checks) {
    check.details.push_back(to_string(item.status) + "  " + item.name + ": " + item.detail);
  }
  for (const auto& device : report.devices) {
    check.details.push_back(to_string(device.status) + "  GPU " + std::to_string(device.index) + " (" +
                            device.gpu.gpu.value_or("?") + ")" + (device.detail.empty() ? "" : ": " + device.detail));
  }
  if (!report.passed()) {
    check.status = DoctorStatus::fail;
    std::string first;
    for (const auto& item : report.checks) {
      if (item.status == CheckStatus::failed && first.empty()) first = item.name + ": " + item.detail;
    }
    check.summary = "verify --level conv failed: " + first;
    check.symptom = "the selected tree does not work as installed";
    check.cause = first;
    check.fix = "cudnnenv verify " + command_word(facts.selection->tree.name, facts.platform.os) +
                " --level conv shows every step";
  } else if (report.gpu_unavailable) {
    check.status = DoctorStatus::warn;
    check.summary = "verified up to load; the convolution was skipped: no GPU";
    check.symptom = "no GPU to run a convolution on";
    check.cause = "the driver or the GPU is missing (see the driver and gpu checks)";
    check.fix = "see the driver and gpu checks above";
  } else {
    check.status = DoctorStatus::ok;
    check.summary = report.devices.size() > 1
                        ? "a convolution on each GPU matches the CPU reference (" + report.checks.back().detail + ")"
                        : "a convolution on the GPU matches the CPU reference";
  }
  return check;
}

// cudnnenv's CDI specs: each device's mounts still there, and each tree it
// mounts still the one exported (its name, installed at the same time).
DoctorCheck check_cdi(const Facts& facts) {
  const std::string id = "cdi";
  std::vector<std::string> details;
  std::vector<std::string> stale;  // the spec files to write again
  std::size_t devices = 0;
  for (const auto& [file, text] : facts.cdi_specs) {
    auto records = read_cdi_spec(text);
    if (!records) {
      details.push_back(util::to_utf8(file) + ": not read: " + records.error().message);
      continue;
    }
    bool bad = false;
    for (const auto& device : *records) {
      ++devices;
      for (const auto& path : device.host_paths) {
        std::error_code ec;
        const fs::path host = util::path_from_utf8(path);
        if (!fs::exists(host, ec)) {
          details.push_back(device.name + ": '" + util::printable(path) + "' it mounts is gone");
          bad = true;
        } else if (const fs::path now = util::final_path(host); now != host) {
          // export cdi records real paths: one that resolves elsewhere now was moved or replaced by a link.
          details.push_back(device.name + ": '" + util::printable(path) + "' it mounts now leads to '" +
                            util::printable(util::to_utf8(now)) + "'");
          bad = true;
        }
      }
      for (const auto& [name, installed_at] : device.trees) {
        const TreeRecord* tree = nullptr;
        for (const auto* list : {&facts.trees, &facts.beside}) {
          for (const auto& each : *list) {
            if (each.name == name && tree == nullptr) tree = &each;
          }
        }
        if (tree == nullptr) {
          details.push_back(device.name + ": the tree '" + util::printable(name) + "' is no longer in the store");
          bad = true;
        } else if (tree->installed_at != installed_at) {
          details.push_back(device.name + ": the tree '" + util::printable(name) + "' was installed again (" +
                            tree->installed_at + ") after the export (" + util::printable(installed_at) + ")");
          bad = true;
        }
      }
    }
    if (bad) stale.push_back(util::to_utf8(file.parent_path()));
  }
  if (devices == 0 && details.empty()) {
    return check(id, DoctorStatus::skip, "no CDI spec of cudnnenv's in /etc/cdi or /var/run/cdi");
  }
  DoctorCheck result;
  if (stale.empty()) {
    result = check(id, DoctorStatus::ok,
                   std::to_string(devices) + " CDI device" + (devices == 1 ? "" : "s") + " of " +
                       std::string(k_cdi_kind) + ": each tree as exported");
  } else {
    std::vector<std::string> fixes;
    for (const auto& folder : stale) fixes.push_back("cudnnenv export cdi --all -o " + command_word(folder, Os::linux));
    result = problem(id, DoctorStatus::fail, "a CDI spec of cudnnenv's names trees the store no longer has as exported",
                     "'podman run --device " + std::string(k_cdi_kind) +
                         "=...' fails to mount, or the container loads a tree other than the one exported",
                     "a tree was removed, installed again or moved after 'cudnnenv export cdi' wrote the spec",
                     util::join(fixes, " && "));
  }
  result.details = details;
  return result;
}

std::vector<DoctorCheck> run_checks(const Facts& facts, const DoctorOptions& options) {
  const std::vector<CudnnNeed> needs = options.framework_needs
                                           ? *options.framework_needs
                                           : needs_from_files(facts.frameworks, facts.profiles, facts.platform.os);
  std::vector<DoctorCheck> checks = {check_selection(facts),
                                     check_driver(facts),
                                     check_gpu(facts),
                                     check_toolkit(facts),
                                     check_dependencies(facts),
                                     check_copy_wins(facts),
                                     check_runtime_copy_wins(facts),
                                     check_stray_copies(facts),
                                     check_bundled_copies(facts),
                                     check_bundle_incomplete(facts),
                                     check_architecture(facts),
                                     check_headers(facts),
                                     check_vc_runtime(facts),
                                     check_cpu(facts),
                                     check_integrity(facts, options),
                                     check_path_stale(facts),
                                     check_path_entries(facts),
                                     check_kernels(facts),
                                     check_vscode(facts),
                                     check_frameworks(facts, needs),
                                     check_cdi(facts)};
  if (options.verify) checks.push_back(check_verify(facts, options));
  return checks;
}

}  // namespace cudnnenv
