// Starting a program pinned to one tree (exec and the shims' slow path):
// finding the program, preparing its environment per pin mode, the policy
// check before it starts, and what it really loaded (--report).
//
// Linux: the tree's library folder first on LD_LIBRARY_PATH and, in the
// default mode, the LD_AUDIT module (shim/audit.c) that sends every cuDNN
// name to the tree; then execve, so the PID, signals and exit code are the
// program's. Windows: the tree's bin first on PATH and SetDllDirectoryW, a
// suspended start in a kill-on-close job object, the exit code returned.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "shell/activation.hpp"
#include "store/tree.hpp"
#include "util/environment.hpp"
#include "util/names.hpp"
#include "util/result.hpp"

namespace cudnnenv {

enum class PinMode {
  audit,    // LD_AUDIT + LD_LIBRARY_PATH (Linux default); PATH + SetDllDirectoryW on Windows
  preload,  // the tree's main library in LD_PRELOAD + LD_LIBRARY_PATH
  path,     // LD_LIBRARY_PATH (PATH on Windows) only
};

// exec --mode's words: parsing, the CLI's check, completion, the notes and
// JSON read this table.
inline constexpr util::Named<PinMode> k_pin_modes[] = {
    {PinMode::audit, "audit"}, {PinMode::preload, "preload"}, {PinMode::path, "path"}};
static_assert(util::covers_each_once(k_pin_modes, 3));

// The Linux pin's audit module installed beside `program` (cudnnenv).
std::filesystem::path audit_module_beside(const std::filesystem::path& program);

// One change a start makes to the program's environment, in order
// (LaunchPlan::changes): an entry put first on a list (earlier copies of it
// removed), a variable set, or one unset.
struct EnvironmentChange {
  enum class Kind { prepend, set, unset };
  Kind kind = Kind::set;
  std::string name;
  std::string value;  // the entry or the value; empty for unset
  bool operator==(const EnvironmentChange&) const = default;
};

struct LaunchRequest {
  // What activating the selection sets (activation_of: the trees' folders,
  // the toolkit, CUDNN_*, the profile's and the project's variables): the
  // launch environment every door renders; the start applies it first.
  // Empty: the tree's and the runtime's folders alone.
  shell::Activation selection_environment;
  TreeRecord tree;
  // The trees selected beside it (Selection::beside: the CUDA runtime's),
  // each one's folder after the tree's, and on Linux its libraries' names
  // pinned by the audit module (its pin variable, CUDNNENV_RUNTIME_DIR) as
  // cuDNN's are.
  std::vector<TreeRecord> beside;
  PinMode mode = PinMode::audit;
  std::string command;                 // a name looked up on PATH, or a path
  std::vector<std::string> arguments;  // passed untouched
  util::Environment environment;
  std::filesystem::path audit_module;       // libcudnnenv-audit.so (Linux, audit mode)
  std::vector<std::filesystem::path> skip;  // folders never to take the program from (the shims folder)
  std::filesystem::path report_log;         // Linux: where the audit module records what maps; empty: no report
  // Windows: prepare_fence's folder, on PATH right after the trees' folders;
  // empty: none.
  std::filesystem::path fence_folder;
};

struct LaunchPlan {
  std::filesystem::path program;
  std::vector<std::string> arguments;
  util::Environment environment;
  // What was changed to make `environment` from the request's, in order: the
  // selection's environment, then the pin's (CUDNNENV_PIN_DIR, LD_AUDIT, ...).
  // A shim's recorded decision holds these, and its fast path makes them.
  std::vector<EnvironmentChange> changes;
  std::filesystem::path library_dir;  // the tree's, first on the search path
  std::filesystem::path runtime_dir;  // the runtime tree's, second; empty without one
  // Every pinned tree's library folder in the component table's order
  // (library_dir first): what Windows' launch adds to the program's DLL
  // directories and searches for copies to preload past.
  std::vector<std::filesystem::path> folders;
  // Windows: the trees' DLLs of which a copy lies where the standard search
  // looks before PATH (the program's folder, System32, ...; Wine also before
  // the SetDllDirectory folder): loaded by absolute path inside the program
  // before its own code runs, dependencies first, so that a load of the name
  // gets the module already loaded and never that copy.
  std::vector<std::filesystem::path> preload;
  // Windows: the fence folder on PATH (LaunchRequest::fence_folder); a
  // module mapped from it is a load that failed.
  std::filesystem::path fence_folder;
  std::filesystem::path report_log;
  std::vector<std::string> notes;  // where the pin cannot hold, said before the start
};

// The log the audit module appends to for `exec --report` and `--why`
// (Linux): `file`, made new and this user's own, its folder as needed (the
// module opens it without following a link and never creates it).
// remove_report_log deletes it after the run.
Result<void> create_report_log(const std::filesystem::path& file);
void remove_report_log(const std::filesystem::path& file);

// Fails (exit code 3) when the program is not found, and when the only
// candidates are in `skip` or are the shim itself (a loop).
Result<LaunchPlan> plan_launch(const LaunchRequest& request);

// The environment part of plan_launch, for a door that starts no program
// itself (Slurm's task prolog, the SPANK plugin): `environment` and
// `changes` as the start of any program would get them; no program,
// arguments, notes or preloads.
Result<LaunchPlan> plan_environment(const LaunchRequest& request);

// Windows' fence: the cuDNN names of the tree's major (family_libraries)
// that its folder lacks, each a copy of `fence_dll` (cudnnenv-fence.dll,
// whose DllMain fails) in a folder under `fences` (the state's). On PATH
// right after the tree's folder, a bare-name load of such a name (cuDNN 9's
// dispatcher opening cudnn_engines_tensor_ir64_9.dll) finds the fence before
// any other copy further on PATH and fails (ERROR_DLL_INIT_FAILED) as if
// nothing had the name. Empty when the tree lacks none.
Result<std::optional<std::filesystem::path>> prepare_fence(const TreeRecord& tree,
                                                           const std::filesystem::path& fence_dll,
                                                           const std::filesystem::path& fences);

// `command` as the system would find it: a path as given, else the first
// match on PATH (with PATHEXT on Windows), skipping the folders in `skip`
// and files that are the same file as one in `skip` (a shim reached
// through a link or a differently-cased path).
Result<std::filesystem::path> find_program(const std::string& command, const util::Environment& environment,
                                           const std::vector<std::filesystem::path>& skip);

// The programs on PATH whose names start with `prefix`, each the first of its
// name (as find_program would start it), in PATH order, folders in `skip`
// left out; on Windows by the name typed (python for python.exe, the
// extensions of PATHEXT). For completion: folders that cannot be read are
// passed over.
struct ProgramOnPath {
  std::string name;
  std::filesystem::path path;
};
std::vector<ProgramOnPath> programs_on_path(std::string_view prefix, const util::Environment& environment,
                                            const std::vector<std::filesystem::path>& skip);

// Windows: a batch file (.bat, .cmd) runs through cmd.exe, which parses
// its command line again; fails (exit code 2) when `program` is one and its
// path or an argument holds what cmd cannot receive intact inside quotes
// (shim/batch_command.hpp). Anything else passes.
Result<void> check_batch_arguments(const std::filesystem::path& program, const std::vector<std::string>& arguments);

// POSIX: replaces this process and returns only on failure. Windows: runs
// the program and returns its exit code.
Result<int> launch(const LaunchPlan& plan);

struct LoadedModule {
  long pid = 0;
  std::string path;
  bool preloaded = false;  // Windows: loaded by cudnnenv inside the program before it started (LaunchPlan::preload)
};

// One place a load looked, and the rule that put it there ("pin",
// "LD_LIBRARY_PATH", "RUNPATH", "ld.so.cache", "default", "PATH", ...).
struct SearchedPath {
  std::string rule;
  std::string path;
  bool operator==(const SearchedPath&) const = default;
};

// One search the loader made for a name (Linux: the audit module's log;
// Windows: the loader's own text), in the order made.
struct LoadSearch {
  long pid = 0;
  std::string name;                 // as asked: a file name, or a path
  std::string requester;            // the object that asked; empty: the program
  std::vector<SearchedPath> tried;  // each path tried, in order
};

// What a watched run saw besides the modules.
struct WatchedRun {
  long program_pid = 0;
  // Windows: the processes the program started (children, grandchildren),
  // and how many of them still ran when it ended (ended with its job, or
  // left running when started outside it); 0 elsewhere.
  int started = 0;
  int running_at_exit = 0;
  // Every search the loader made, of any name (pin/why finds the failures).
  std::vector<LoadSearch> searches;
  // Windows: whether the loader's own text came (loader snaps; Wine prints none).
  bool loader_text = false;
};

// Runs the program, waits for it, and lists every module its processes
// mapped (POSIX: the audit module's log; Windows: the debug API's DLL load
// events), its children's and grandchildren's included. The exit code is
// the program's. On Windows, a process still running when the program ends
// is let go of (never ended by the debugger's exit).
Result<int> launch_and_watch(const LaunchPlan& plan, std::vector<LoadedModule>& loaded, WatchedRun& run);

// A file named like any cuDNN library of any version (libcudnn*.so*,
// cudnn*.dll), by its last path component.
bool is_cudnn_file(std::string_view path);

// Whether a module a watched program mapped is cuDNN: by its name (a wheel's
// hashed name too), the name its links resolve to, or (ELF) its soname or
// its exporting cudnnGetVersion (a copy under a name and soname of its own).
bool is_cudnn_module(const std::string& path);

// One cuDNN file a watched program mapped, once per file.
struct LoadedCudnnFile {
  std::string path;  // resolved (links and `..` followed)
  long pid = 0;      // the process that mapped it first
  bool inside = false;
  // The row whose library it is: cuDNN, or a row beside it whose tree is
  // pinned (a CUDA runtime library is reported only when a runtime tree is).
  TreeKind kind = TreeKind::cudnn;
  bool preloaded = false;  // loaded by cudnnenv before the program started (LoadedModule::preloaded)
  bool fenced = false;     // the fence's file (LaunchPlan::fence_folder): a name the tree lacks, whose load failed
  std::string why;         // outside: why that copy won, when known; a preloaded or fenced file: why it was
};

struct PinReport {
  std::vector<LoadedCudnnFile> files;  // the tree's first, then the others, each in the order mapped
  std::size_t outside_count() const;
};

// Sorts the files among `loaded` of each row of `trees` (a selection's, the
// cuDNN tree first: Selection::trees) by whether they lie in that row's
// tree: the cuDNN files, and the libraries of each row beside it that has a
// tree there (the CUDA runtime's, NCCL's); an outside file in `program`'s
// own folder says so (on Windows that folder is searched before PATH and
// SetDllDirectory: no launcher can beat it). A file of `fence_folder` is
// fenced: neither a tree's nor outside.
PinReport classify_loaded(const std::vector<const TreeRecord*>& trees, const std::filesystem::path& program,
                          const std::vector<LoadedModule>& loaded, const std::filesystem::path& fence_folder = {});

}  // namespace cudnnenv
