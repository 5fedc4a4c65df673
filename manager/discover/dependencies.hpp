// Which libraries a cuDNN library needs that the loader would not find, read
// from the files themselves (ELF DT_NEEDED with RPATH/RUNPATH, PE import and
// delay-import tables) and searched for as the loader searches, so that a
// failed load names its cause: "cudnn_ops_infer64_8.dll needs
// cublas64_11.dll". Only meaningful for libraries of this host's platform.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "discover/discover.hpp"
#include "formats/version.hpp"

namespace cudnnenv {

struct MissingDependency {
  std::string needed_by;  // file name of the library that needs it
  std::string name;       // the file name it needs
  std::string looked_in;  // where it was looked for, in words
  std::string hint;       // what usually provides it, when known; else empty

  // "a needs b: not in <looked_in> (<hint>)"
  std::string describe() const;
};

// One line per missing name, the libraries that need it together, in the
// order first seen: "cudnn_ops_infer64_8.dll and cudnn_cnn_infer64_8.dll need
// cublas64_11.dll: not in <looked_in> (<hint>)"; without `hint`, no hint.
std::vector<std::string> describe_grouped(const std::vector<MissingDependency>& missing, bool hint = true);

// The distinct hints of `missing`, "; "-joined, each once.
std::string distinct_hints(const std::vector<MissingDependency>& missing);

// Follows the dependencies of `library`, and of every dependency found
// outside the system's own folders, and returns those found nowhere.
// `loaded_at_run_time` names libraries the main one opens by name later
// (they are in no table: zlibwapi.dll for cuDNN 8.3 to 8.9 on Windows).
// A library whose tables cannot be read is skipped: the load says why.
std::vector<MissingDependency> find_missing_dependencies(const std::filesystem::path& library,
                                                         const DiscoverContext& context,
                                                         const std::vector<std::string>& loaded_at_run_time = {});

}  // namespace cudnnenv
