// Every cuDNN copy on this machine, with its real version, and which one a
// plain process would load by name.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "formats/platform.hpp"
#include "formats/version.hpp"
#include "probe/probe.hpp"
#include "util/environment.hpp"

namespace cudnnenv {

struct FoundCopy {
  std::filesystem::path library;  // the main library file (libcudnn.so.9, cudnn64_8.dll)
  int major = 0;
  std::optional<Version> version;
  std::string version_from;         // "header", "library", or empty when unknown
  std::optional<CudaVersion> cuda;  // from the library, when it could be loaded
  std::vector<std::string> found_via;
  bool loaded_by_name = false;  // what a plain process gets for its name
  std::string note;             // a problem or a fact worth knowing
};

struct DiscoverContext {
  util::Environment environment;
  Os os = host_platform().os;
  ProbeFunction probe = {};  // empty: versions from headers only
  // The site-packages of the Python that runs (doctor's site_packages_of):
  // their cuDNN wheels and torch/lib too, where no fixed pattern reaches.
  std::vector<std::filesystem::path> site_packages = {};
};

struct SearchDirectory {
  std::filesystem::path directory;
  std::string via;  // "LD_LIBRARY_PATH", "ld.so cache", "PATH", "site-packages", ...
};

// Folders worth looking in, per platform (discover_posix.cpp / discover_win.cpp).
std::vector<SearchDirectory> candidate_directories(const DiscoverContext& context);

// Where a plain process with no RPATH or application folder of its own
// would find `file_name`, following the platform's search order; empty when
// nowhere.
std::filesystem::path default_resolution(const DiscoverContext& context, const std::string& file_name);

// Where default_resolution looks, in words, for messages:
// "LD_LIBRARY_PATH (2 folders), the ld.so cache, /lib/x86_64-linux-gnu, ...".
std::string describe_default_search(const DiscoverContext& context);

std::vector<FoundCopy> discover(const DiscoverContext& context);

struct LoaderCandidate {
  std::filesystem::path file;
  std::string via;  // "DT_RUNPATH of python3", "LD_LIBRARY_PATH", "System32", "PATH", ...
};

// Every file named `file_name` that `program` would consider when it loads
// that name, in the loader's order: the first is what it loads, the rest are
// skipped. Linux: the program's DT_RPATH (when it has no DT_RUNPATH),
// LD_LIBRARY_PATH, its DT_RUNPATH, the ld.so cache, the default folders.
// Windows (safe search mode): the program's folder, System32, the 16-bit
// System folder, the Windows folder, the working folder, PATH. An empty
// `program` is a process without a search path of its own (default_resolution).
// The program's file is read, never started.
std::vector<LoaderCandidate> loader_candidates(const DiscoverContext& context, const std::filesystem::path& program,
                                               const std::string& file_name);

// Windows: the folders the standard DLL search looks in before PATH (safe
// search mode: the program's folder, System32, the 16-bit System folder, the
// Windows folder, the working folder), in order, each with its `via`: a copy
// of a name there wins over every folder on PATH. Empty on other systems.
std::vector<SearchDirectory> folders_before_path(const DiscoverContext& context, const std::filesystem::path& program);

// Expands '*' in any component of `pattern` against the file system.
std::vector<std::filesystem::path> expand_glob(const std::filesystem::path& pattern);

}  // namespace cudnnenv
