#include "store/layout.hpp"

#include <charconv>

#include <algorithm>
#include <regex>
#include <set>
#include <system_error>
#include <tuple>

#include "util/fs.hpp"
#include "util/text.hpp"

#include "cudnn_libraries.inc"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

// The cuDNN 8 libraries' stems: their import libraries (cudnn.lib, cudnn64_8.lib, ...).
const std::vector<std::string> k_bases_8 = {"cudnn",           "cudnn_ops_infer", "cudnn_ops_train", "cudnn_cnn_infer",
                                            "cudnn_cnn_train", "cudnn_adv_infer", "cudnn_adv_train"};
// The cuDNN 9 libraries that have import libraries in the official zips.
const std::vector<std::string> k_bases_9 = {"cudnn",
                                            "cudnn_graph",
                                            "cudnn_ops",
                                            "cudnn_cnn",
                                            "cudnn_adv",
                                            "cudnn_heuristic",
                                            "cudnn_engines_precompiled",
                                            "cudnn_engines_runtime_compiled"};

const std::vector<std::string>& bases_for(int major) {
  static const std::vector<std::string> single = {"cudnn"};
  return major >= 9 ? k_bases_9 : major == 8 ? k_bases_8 : single;
}

// A row of data/cudnn-libraries.tsv.
struct ReleaseLibrary {
  std::string name;
  Os os = Os::linux;
  Version first;
  std::optional<Version> last;
};

struct LibraryTable {
  std::vector<ReleaseLibrary> rows;
  Version checked_through;
};

const LibraryTable& library_table() {
  static const LibraryTable table = [] {
    LibraryTable parsed;
    bool header = true;
    for (const auto& line : util::split(k_cudnn_libraries_tsv, '\n')) {
      if (util::starts_with(line, "# checked through: ")) {
        parsed.checked_through = parse_version(line.substr(19)).value_or(Version{});
        continue;
      }
      if (line.empty() || line[0] == '#') continue;
      if (header) {
        header = false;
        continue;
      }
      // library, os, first, last, source
      const auto fields = util::split(line, '\t');
      if (fields.size() < 4) continue;
      const auto first = parse_version(fields[2]);
      if (!first) continue;
      parsed.rows.push_back({fields[0], fields[1] == "windows" ? Os::windows : Os::linux, *first,
                             fields[3].empty() ? std::nullopt : parse_version(fields[3])});
    }
    return parsed;
  }();
  return table;
}

bool same_or_before(const Version& a, const Version& b) {
  return std::tie(a.major, a.minor, a.patch) <= std::tie(b.major, b.minor, b.patch);
}

std::string dll_name(const std::string& base, int major) {
  return base + "64_" + std::to_string(major) + ".dll";
}
std::string so_name(const std::string& base, int major) {
  return "lib" + base + ".so." + std::to_string(major);
}

bool file_exists(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);  // follows links: a dangling link is missing
}

std::string relative_dir(const fs::path& root, const fs::path& dir) {
  const std::string text = util::generic_utf8(dir.lexically_relative(root));
  return text == "." ? std::string() : text;
}

fs::path join(const fs::path& root, const std::string& relative) {
  return relative.empty() ? root : root / util::path_from_utf8(relative);
}

}  // namespace

ExpectedSet expected_set(const Version& release, Os os) {
  ExpectedSet set;
  const int major = release.major;
  const LibraryTable& table = library_table();
  Version checked = release;
  if (table.checked_through.major == major && !same_or_before(release, table.checked_through)) {
    checked = table.checked_through;
    set.note = "cuDNN " + release.str() + " is newer than the releases whose files cudnnenv knows (through " +
               table.checked_through.str() + "): " + table.checked_through.str() + "'s libraries are expected";
  }
  for (const auto& row : table.rows) {
    if (row.os != os || row.first.major != major || !same_or_before(row.first, checked)) continue;
    if (row.last && !same_or_before(checked, *row.last)) continue;
    set.libraries.push_back(row.name);
  }
  if (set.libraries.empty()) {  // a major the table does not know: its main library
    set.libraries.push_back(main_library_name(major, os));
    if (major > table.checked_through.major) {
      set.note = "cuDNN " + std::to_string(major) + " is newer than the releases whose files cudnnenv knows (through " +
                 table.checked_through.str() + "): only " + set.libraries.front() + " is expected";
    }
  }
  for (const auto& base : bases_for(major)) {
    if (os == Os::windows) {
      set.import_libs.push_back(base + ".lib");
      if (major >= 8) {
        set.import_libs.push_back(base + "64_" + std::to_string(major) + ".lib");
      }
    }
  }
  if (major >= 9) {
    set.headers = {"cudnn.h",     "cudnn_version.h", "cudnn_graph.h",  "cudnn_ops.h",
                   "cudnn_cnn.h", "cudnn_adv.h",     "cudnn_backend.h"};
  } else if (major == 8) {
    set.headers = {"cudnn.h",           "cudnn_version.h",   "cudnn_ops_infer.h",
                   "cudnn_ops_train.h", "cudnn_cnn_infer.h", "cudnn_cnn_train.h",
                   "cudnn_adv_infer.h", "cudnn_adv_train.h", "cudnn_backend.h"};
  } else {
    set.headers = {"cudnn.h"};
  }
  return set;
}

std::vector<std::string> family_libraries(int major, Os os) {
  std::vector<std::string> names;
  for (const auto& row : library_table().rows) {
    if (row.os == os && row.first.major == major) names.push_back(row.name);
  }
  return names;
}

std::vector<std::string> family_libraries_lacking(const fs::path& folder, int major, Os os) {
  std::vector<std::string> lacking;
  for (const auto& name : family_libraries(major, os)) {
    if (!file_exists(folder / util::path_from_utf8(name))) lacking.push_back(name);
  }
  return lacking;
}

std::optional<Version> first_release_of(const std::string& name, Os os) {
  for (const auto& row : library_table().rows) {
    if (row.os == os && (os == Os::windows ? util::iequals(row.name, name) : row.name == name)) return row.first;
  }
  return std::nullopt;
}

std::string main_library_name(int major, Os os) {
  return os == Os::windows ? dll_name("cudnn", major) : so_name("cudnn", major);
}

std::optional<int> main_library_major(const std::string& file_name, Os os) {
  static const std::regex windows(R"(^cudnn64_(\d+)\.dll$)", std::regex::icase);
  static const std::regex linux(R"(^libcudnn\.so\.(\d+)$)");
  std::smatch match;
  if (std::regex_match(file_name, match, os == Os::windows ? windows : linux)) {
    int major = 0;
    const std::string digits = match[1].str();
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), major);
    if (error == std::errc() && end == digits.data() + digits.size()) {
      return major;  // a name like cudnn64_99999999999.dll is no cuDNN
    }
  }
  return std::nullopt;
}

std::vector<std::string> loaded_at_run_time(const Version& version, Os os) {
  if (os == Os::windows && version.major == 8 && version.minor >= 3) {
    return {"zlibwapi.dll"};
  }
  return {};
}

bool is_cudnn_library_name(const std::string& file_name, Os os) {
  static const std::regex windows(R"(^cudnn[a-z_]*64_\d+\.dll$)", std::regex::icase);
  static const std::regex linux(R"(^libcudnn[a-z_]*\.so(\.\d+)*$)");
  return std::regex_match(file_name, os == Os::windows ? windows : linux);
}

Result<TreeLayout> locate_layout(const fs::path& root, Os os) {
  std::set<int> majors;
  std::vector<fs::path> library_dirs;
  std::vector<fs::path> header_dirs;
  std::vector<fs::path> import_dirs;
  util::walk_directory(root, [&](const util::DirectoryEntry& entry, int depth) {
    const std::string name = util::to_utf8(entry.path.filename());
    if (depth == 0 && name == ".cudnnenv") {
      return false;
    }
    if (entry.is_regular_file) {
      if (const auto major = main_library_major(name, os)) {
        majors.insert(*major);
        library_dirs.push_back(entry.path.parent_path());
      } else if (name == "cudnn_version.h" || (name == "cudnn.h")) {
        header_dirs.push_back(entry.path.parent_path());
      } else if (os == Os::windows && util::iequals(name, "cudnn.lib")) {
        import_dirs.push_back(entry.path.parent_path());
      }
    }
    return depth < 5;
  });
  std::error_code ec;
  if (majors.empty()) {
    return make_error(
        "no cuDNN library in '" + util::to_utf8(root) + "' (looked for " +
            (os == Os::windows ? std::string("cudnn64_N.dll") : std::string("libcudnn.so.N")) + ")",
        std::string("pass a cuDNN archive, wheel or folder for ") + (os == Os::windows ? "Windows" : "Linux"));
  }
  if (majors.size() > 1) {
    return make_error("'" + util::to_utf8(root) + "' holds cuDNN libraries of several major versions",
                      "install each release from its own archive or folder");
  }
  // Folder links (a CUDA toolkit's lib64 -> targets/x86_64-linux/lib) reach
  // one folder by several names: keep the shortest name of each.
  std::sort(library_dirs.begin(), library_dirs.end(), [](const fs::path& a, const fs::path& b) {
    return a.native().size() != b.native().size() ? a.native().size() < b.native().size() : a < b;
  });
  std::vector<fs::path> seen;
  std::erase_if(library_dirs, [&](const fs::path& dir) {
    const fs::path real = fs::weakly_canonical(dir, ec);
    if (std::find(seen.begin(), seen.end(), real) != seen.end()) {
      return true;
    }
    seen.push_back(real);
    return false;
  });
  if (library_dirs.size() > 1) {
    return make_error("'" + util::to_utf8(root) + "' holds two copies of " + main_library_name(*majors.begin(), os) +
                          ": '" + relative_dir(root, library_dirs[0]) + "' and '" +
                          relative_dir(root, library_dirs[1]) + "'",
                      "install each copy from its own folder");
  }
  TreeLayout layout;
  layout.major = *majors.begin();
  layout.library_dir = relative_dir(root, library_dirs.front());
  layout.main_library =
      util::generic_utf8(join(root, layout.library_dir).lexically_relative(root) / main_library_name(layout.major, os));
  if (util::starts_with(layout.main_library, "./")) {
    layout.main_library = layout.main_library.substr(2);
  }
  // Prefer the folder with cudnn_version.h (8.x and later) over a stray cudnn.h.
  for (const auto& dir : header_dirs) {
    const bool has_version_header = file_exists(dir / "cudnn_version.h");
    if (layout.include_dir.empty() || has_version_header) {
      layout.include_dir = relative_dir(root, dir);
      layout.version_header =
          util::generic_utf8((dir / (has_version_header ? "cudnn_version.h" : "cudnn.h")).lexically_relative(root));
      if (has_version_header) {
        break;
      }
    }
  }
  if (!import_dirs.empty()) {
    layout.import_lib_dir = relative_dir(root, import_dirs.front());
  }
  return layout;
}

fs::path find_version_header_near(const fs::path& library_dir, int major) {
  std::error_code ec;
  const fs::path folder = library_dir.has_filename() ? library_dir : library_dir.parent_path();
  const fs::path parent = folder.parent_path();
  const std::string versioned = "cudnn_version_v" + std::to_string(major) + ".h";
  for (const fs::path& dir :
       {parent / "include", parent.parent_path() / "include", parent.parent_path() / "include" / folder.filename()}) {
    for (const std::string& header : {std::string("cudnn_version.h"), versioned, std::string("cudnn.h")}) {
      if (fs::is_regular_file(dir / header, ec)) {
        return dir / header;
      }
    }
  }
  return {};
}

std::vector<std::string> missing_files(const fs::path& root, const TreeLayout& layout, const Version& release, Os os,
                                       RequireImportLibs import_libs) {
  const ExpectedSet set = expected_set(release, os);
  std::vector<std::string> missing;
  auto check = [&](const std::string& dir, const std::string& name) {
    if (!file_exists(join(join(root, dir), name))) {
      missing.push_back(dir.empty() ? name : dir + "/" + name);
    }
  };
  for (const auto& name : set.libraries) {
    check(layout.library_dir, name);
  }
  const std::string include_dir = layout.include_dir.empty() ? std::string("include") : layout.include_dir;
  for (const auto& name : set.headers) {
    check(include_dir, name);
  }
  if (import_libs == RequireImportLibs::yes) {
    const std::string lib_dir = layout.import_lib_dir.empty() ? std::string("lib/x64") : layout.import_lib_dir;
    for (const auto& name : set.import_libs) {
      check(lib_dir, name);
    }
  }
  return missing;
}

}  // namespace cudnnenv
