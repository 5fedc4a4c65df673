// What a watched program tried to load and could not (exec --why, and the
// end of --report): each missing CUDA-family library once, with what asked
// for it, the chain from the program, the places searched in order and the
// rule that put each there, and the command that fixes it; each file that
// mapped but failed on a missing dependency.
//
// Linux: the report build of the audit module logs every search, the paths
// each tried and every object mapped (shim/audit.c); a name searched for in
// a process that never mapped a file of that name did not load. Windows: the
// loader's own text (loader snaps, FLG_SHOW_LDR_SNAPS, which the debugger
// sets in each process it starts) names each DLL it could not load and its
// parent; and a CUDA-family DLL that mapped while an import of it never did
// failed on that import: where no loader text names the places (Wine prints
// none), they are the standard search order, computed.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/platform.hpp"
#include "pin/launch.hpp"
#include "store/tree.hpp"

namespace cudnnenv {

// The audit log's lines ("pid\tO\tpath", "pid\tS\tname\trequester",
// "pid\tT\trule\tpath"), appended to `loaded` and `searches`; other lines
// are skipped.
void parse_audit_log(std::string_view text, std::vector<LoadedModule>& loaded, std::vector<LoadSearch>& searches);

// Windows: the loader-snap lines of process `pid` (its OUTPUT_DEBUG_STRING
// text), each "Unable to load DLL" a search of that name by its parent
// module, with the search path last computed before it; other lines are
// skipped.
std::vector<LoadSearch> parse_loader_snaps(long pid, std::string_view text);

// A name of the CUDA family: cuDNN's (any version, its sub-libraries), a
// CUDA runtime library's, or the driver's (libcuda.so.1, nvcuda.dll,
// libnvidia-*). By file name, either system's spelling.
bool is_cuda_family_name(std::string_view file_name);

struct MissingLibrary {
  std::string name;                              // as the loader was asked: a file name
  std::vector<std::string> needed_by;            // file names of what asked for it, each once
  std::vector<std::vector<std::string>> chains;  // the program's file name, ..., name; each once
  std::vector<SearchedPath> looked_in;           // folders in the order searched, each once
  bool looked_in_observed = true;                // false: the standard order, computed (no loader text)
  std::string fix;                               // a command that runs as written, or what to do
  // The same library asked for by other names (Linux: libcudnn_graph.so.9.19.0
  // and libcudnn_graph.so beside libcudnn_graph.so.9, the one in `name`).
  std::vector<std::string> also_asked;
};

// A file that mapped and could not load: a library it links against did
// not load.
struct FailedFile {
  std::string path;
  long pid = 0;
  std::vector<std::string> missing;  // file names
};

struct LoadFailures {
  std::vector<MissingLibrary> missing;  // in the order first asked for
  std::vector<FailedFile> failed;
  bool empty() const { return missing.empty() && failed.empty(); }
};

// What the linker tables of `path` name that must load with it (DT_NEEDED,
// PE imports but not delay imports): the analysis reads them to tell a load
// that failed on its own dependency.
using NeededOf = std::function<std::vector<std::string>(const std::string& path)>;

// The failures among a watched run's `loaded` and `searches`, CUDA-family
// names only. `standard_search`: where a Windows load of a name looks when
// no loader text says (folders_before_path, the pin's folders, PATH).
LoadFailures find_load_failures(const std::filesystem::path& program, const std::vector<LoadedModule>& loaded,
                                const std::vector<LoadSearch>& searches, Os os, const NeededOf& needed_of,
                                const std::vector<SearchedPath>& standard_search = {});

// What the fix of a missing library can name.
struct FixContext {
  Os os = host_platform().os;
  const TreeRecord* tree = nullptr;     // the pinned cuDNN tree
  const TreeRecord* runtime = nullptr;  // the pinned runtime tree, if any
  std::vector<TreeRecord> trees;        // every cuDNN tree installed
  std::vector<TreeRecord> runtimes;     // every runtime tree installed
  std::vector<Version> releases;        // the CUDA releases `install cuda` knows (known_cuda_releases)
  std::string command;                  // the program and its arguments, quoted for the shell
};

// The one command that makes `missing` load: a runtime of its CUDA major
// (`cudnnenv install cuda 12.9.1`, the newest release of it known; or
// `cudnnenv exec --runtime NAME -- ...`
// when one that has the file is installed), a cuDNN tree of its major, or,
// for the driver's, what to install.
std::string fix_for_missing(const MissingLibrary& missing, const FixContext& context);

// The text exec --why prints (and --report after its list): one block per
// missing library, then the files that failed; a line saying all loaded
// when nothing failed.
std::string describe_load_failures(const LoadFailures& failures);

}  // namespace cudnnenv
