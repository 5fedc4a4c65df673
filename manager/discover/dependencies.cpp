#include "discover/dependencies.hpp"

#include <algorithm>
#include <deque>
#include <set>
#include <system_error>

#include "formats/binfmt.hpp"
#include "store/runtime.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

// API sets are resolved by the loader from its schema, never from a file.
bool is_api_set(const std::string& lower_name) {
  return util::starts_with(lower_name, "api-ms-win-") || util::starts_with(lower_name, "ext-ms-");
}

std::string hint_for(const std::string& name) {
  const std::string lower = util::to_lower(name);
  if (util::starts_with(lower, "vcruntime") || util::starts_with(lower, "msvcp")) {
    return "the Microsoft Visual C++ Redistributable (x64) installs it";
  }
  if (lower == "zlibwapi.dll") {
    // The package carries one (store::carried_libraries_beside), which install puts into the trees it makes.
    const fs::path carried = util::installed_program().parent_path() / "zlib" / "zlibwapi.dll";
    return "cuDNN 8.3 to 8.9 opens zlibwapi.dll by name and does not ship it; 'cudnnenv install' puts the one "
           "cudnnenv carries (" +
           util::to_utf8(carried) +
           ") into the trees it installs: remove this tree and install it again, or for a folder copy that file "
           "next to its cudnn64_8.dll";
  }
  for (const char* cuda : {"cublas", "cudart", "nvrtc", "nvjitlink", "cufft", "curand", "cusolver", "cusparse"}) {
    if (util::starts_with(lower, cuda) || util::starts_with(lower, std::string("lib") + cuda)) {
      // cudart64_110.dll, cublas64_11.dll, libcublas.so.12: the CUDA major
      // (cuFFT's and cuRAND's own majors differ from CUDA's: no release named).
      std::string release;
      const bool named_by_cuda = std::string(cuda) == "cublas" || std::string(cuda) == "cudart";
      const bool dll = util::ends_with(lower, ".dll");
      const auto mark = lower.find(dll ? "64_" : ".so.");
      const auto digits = mark == std::string::npos ? mark : mark + (dll ? 3 : 4);
      if (named_by_cuda && digits != std::string::npos && digits + 2 <= lower.size()) {
        const std::string major = lower.substr(digits, 2);
        for (const auto& pinned : pinned_manifests()) {
          if (util::starts_with(pinned.release, major + ".")) release = pinned.release;  // the newest pinned
        }
      }
      return "a CUDA runtime library: 'cudnnenv install cuda " + (release.empty() ? "RELEASE" : release) +
             "' installs the runtime beside cuDNN (selected and pinned with it); or put the matching CUDA toolkit's " +
             std::string(util::ends_with(lower, ".dll") ? "bin folder on PATH" : "lib folder on LD_LIBRARY_PATH");
    }
  }
  return {};
}

// $ORIGIN and ${ORIGIN} in an RPATH/RUNPATH entry, relative to the object's folder.
fs::path expand_origin(const std::string& entry, const fs::path& folder) {
  std::string text = entry;
  for (const char* token : {"${ORIGIN}", "$ORIGIN"}) {
    for (auto at = text.find(token); at != std::string::npos; at = text.find(token)) {
      text.replace(at, std::string(token).size(), util::to_utf8(folder));
    }
  }
  return util::path_from_utf8(text);
}

struct Found {
  fs::path path;
  bool system = false;  // from the system's own folders: not followed further
};

}  // namespace

std::string MissingDependency::describe() const {
  return needed_by + " needs " + name + ": not in " + looked_in + (hint.empty() ? "" : " (" + hint + ")");
}

std::vector<std::string> describe_grouped(const std::vector<MissingDependency>& missing, bool hint) {
  std::vector<std::string> lines;
  std::vector<std::string> done;
  for (const auto& item : missing) {
    if (std::find(done.begin(), done.end(), item.name) != done.end()) continue;
    done.push_back(item.name);
    std::vector<std::string> needed_by;
    for (const auto& other : missing) {
      if (other.name == item.name &&
          std::find(needed_by.begin(), needed_by.end(), other.needed_by) == needed_by.end()) {
        needed_by.push_back(other.needed_by);
      }
    }
    std::string who;
    for (std::size_t i = 0; i < needed_by.size(); ++i) {
      who += (i == 0 ? "" : i + 1 == needed_by.size() ? " and " : ", ") + needed_by[i];
    }
    lines.push_back(who + (needed_by.size() == 1 ? " needs " : " need ") + item.name + ": not in " + item.looked_in +
                    (hint && !item.hint.empty() ? " (" + item.hint + ")" : ""));
  }
  return lines;
}

std::string distinct_hints(const std::vector<MissingDependency>& missing) {
  std::vector<std::string> hints;
  std::string text;
  for (const auto& item : missing) {
    if (item.hint.empty() || std::find(hints.begin(), hints.end(), item.hint) != hints.end()) continue;
    hints.push_back(item.hint);
    text += (text.empty() ? "" : "; ") + item.hint;
  }
  return text;
}

std::vector<MissingDependency> find_missing_dependencies(const fs::path& library, const DiscoverContext& context,
                                                         const std::vector<std::string>& loaded_at_run_time) {
  const bool windows = context.os == Os::windows;
  auto key = [&](const std::string& name) { return windows ? util::to_lower(name) : name; };
  std::vector<MissingDependency> missing;
  std::set<std::string> seen = {key(util::to_utf8(library.filename()))};
  std::deque<fs::path> pending = {library};
  const std::string default_search = describe_default_search(context);

  while (!pending.empty()) {
    const fs::path current = pending.front();
    pending.pop_front();
    auto links = read_link_info(current);
    if (!links) {
      continue;
    }
    std::vector<std::string> needed = links->needed;
    if (current == library) {
      needed.insert(needed.end(), loaded_at_run_time.begin(), loaded_at_run_time.end());
    }
    // The library's own folder first (cuDNN's folder holds its siblings; on
    // Windows the probe loads with LOAD_WITH_ALTERED_SEARCH_PATH), then
    // RPATH, or RUNPATH, then the default search.
    std::vector<fs::path> own = {current.parent_path()};
    std::string own_words = "its folder";
    const auto& extra = links->runpath.empty() ? links->rpath : links->runpath;
    for (const auto& entry : extra) {
      own.push_back(expand_origin(entry, current.parent_path()));
    }
    if (!extra.empty()) {
      own_words += links->runpath.empty() ? ", its RPATH" : ", its RUNPATH";
    }
    for (const auto& name : needed) {
      const std::string lower = util::to_lower(name);
      if ((windows && is_api_set(lower)) || !seen.insert(key(name)).second) {
        continue;
      }
      std::error_code ec;
      std::optional<Found> found;
      for (const auto& folder : own) {
        if (fs::is_regular_file(folder / util::path_from_utf8(name), ec)) {
          found = Found{folder / util::path_from_utf8(name), false};
          break;
        }
      }
      if (!found) {
        if (fs::path path = default_resolution(context, name); !path.empty()) {
          const std::string folder = util::to_lower(util::to_utf8(path.parent_path()));
          const bool system =
              windows ? folder.find("\\windows\\") != std::string::npos || util::ends_with(folder, "\\windows")
                      : util::starts_with(folder, "/lib") || util::starts_with(folder, "/usr/lib");
          found = Found{path, system};
        }
      }
      if (!found) {
        missing.push_back({util::to_utf8(current.filename()), name, own_words + ", " + default_search, hint_for(name)});
      } else if (!found->system) {
        pending.push_back(found->path);
      }
    }
  }
  return missing;
}

}  // namespace cudnnenv
