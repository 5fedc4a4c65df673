#include "discover/discover.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <regex>
#include <system_error>

#include "store/layout.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

std::vector<fs::path> expand_glob(const fs::path& pattern) {
  std::vector<fs::path> current = {pattern.root_path()};
  std::error_code ec;
  for (const auto& part : pattern.relative_path()) {
    const std::string text = util::to_utf8(part);
    std::vector<fs::path> next;
    for (const auto& base : current) {
      if (text.find('*') == std::string::npos) {
        if (fs::exists(base / part, ec)) {
          next.push_back(base / part);
        }
        continue;
      }
      std::string expression;
      for (const char c : text) {
        expression += c == '*' ? std::string(".*") : std::string(std::strchr(".+?^$()[]{}|\\", c) ? "\\" : "") + c;
      }
      const std::regex matcher(expression);
      std::vector<fs::path> matches;
      for (const auto& entry : fs::directory_iterator(base, ec)) {
        if (std::regex_match(util::to_utf8(entry.path().filename()), matcher)) {
          matches.push_back(entry.path());
        }
      }
      std::sort(matches.begin(), matches.end());
      next.insert(next.end(), matches.begin(), matches.end());
    }
    current = std::move(next);
  }
  return current;
}

namespace {

std::optional<Version> version_from_headers(const fs::path& library_dir, int major) {
  const fs::path header = find_version_header_near(library_dir, major);
  if (header.empty()) {
    return std::nullopt;
  }
  auto text = util::read_file(header);
  if (!text) {
    return std::nullopt;
  }
  auto version = parse_version_header(*text);
  return version && version->major == major ? version : std::nullopt;
}

// libcudnn.so.9.1.0 -> 9.1.0 (Linux names carry the release; Windows' do not).
std::optional<Version> version_from_file_name(const fs::path& library) {
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(library, ec);  // libcudnn.so.9 -> libcudnn.so.9.1.0
  const std::string name = util::to_utf8((ec ? library : target).filename());
  const auto at = name.find(".so.");
  if (at == std::string::npos) return std::nullopt;
  auto version = parse_version(name.substr(at + 4));
  if (!version || util::split(name.substr(at + 4), '.').size() < 3) return std::nullopt;
  return version;
}

}  // namespace

std::vector<FoundCopy> discover(const DiscoverContext& context) {
  std::vector<FoundCopy> copies;
  std::map<fs::path, std::size_t> by_library;
  std::error_code ec;
  for (const auto& [directory, via] : candidate_directories(context)) {
    for (const auto& entry : fs::directory_iterator(directory, ec)) {
      const std::string name = util::to_utf8(entry.path().filename());
      const auto major = main_library_major(name, context.os);
      if (!major || !entry.is_regular_file(ec)) {
        continue;
      }
      // One copy per real file: /usr/lib/x86_64-linux-gnu and a link to it are the same copy.
      fs::path key = fs::weakly_canonical(entry.path(), ec).parent_path() / entry.path().filename();
      if (auto found = by_library.find(key); found != by_library.end()) {
        auto& vias = copies[found->second].found_via;
        if (std::find(vias.begin(), vias.end(), via) == vias.end()) {
          vias.push_back(via);
        }
        continue;
      }
      FoundCopy copy;
      copy.library = key;
      copy.major = *major;
      copy.found_via.push_back(via);
      by_library[key] = copies.size();
      copies.push_back(std::move(copy));
    }
  }
  for (auto& copy : copies) {
    if (auto version = version_from_headers(copy.library.parent_path(), copy.major)) {
      copy.version = version;
      copy.version_from = "header";
    }
    // Loading runs the file's code: only a copy no one else could have put there.
    std::optional<std::string> unsafe = context.probe ? util::changeable_by_others(copy.library) : std::nullopt;
    if ((unsafe || !context.probe) && !copy.version) {
      if (auto named = version_from_file_name(copy.library)) {
        copy.version = named;
        copy.version_from = "file name";
      }
    }
    if (unsafe) {
      copy.note = "not loaded: " + *unsafe +
                  ", so loading it could run another user's code; its version is read "
                  "from its files";
    } else if (context.probe) {
      if (auto report = context.probe(copy.library)) {
        const Version loaded = decode_cudnn_version(report->version_raw);
        if (report->cudart_raw) {
          copy.cuda = decode_cudart_version(*report->cudart_raw);
        }
        if (!copy.version) {
          copy.version = loaded;
          copy.version_from = "library";
        } else if (!copy.version->same_release(loaded)) {
          copy.note = "headers say " + copy.version->str() + " but the library reports " + loaded.str();
          copy.version = loaded;
          copy.version_from = "library";
        }
      } else if (copy.note.empty()) {
        copy.note = "cannot be loaded here: " + report.error().message;
      }
    }
    const std::string path_text = util::generic_utf8(copy.library);
    if (context.os == Os::windows && path_text.find("/torch/lib/") != std::string::npos) {
      copy.note = "PyTorch loads these DLLs by full path: no PATH change replaces them";
    }
  }
  std::map<int, bool> majors;
  for (const auto& copy : copies) {
    majors[copy.major] = true;
  }
  for (const auto& [major, unused] : majors) {
    const fs::path winner = default_resolution(context, main_library_name(major, context.os));
    if (winner.empty()) {
      continue;
    }
    const fs::path key = fs::weakly_canonical(winner, ec).parent_path() / winner.filename();
    for (auto& copy : copies) {
      if (copy.library == key) {
        copy.loaded_by_name = true;
      }
    }
  }
  return copies;
}

}  // namespace cudnnenv
