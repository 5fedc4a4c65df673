#include "discover/toolkits.hpp"

#include <algorithm>
#include <cstdlib>
#include <system_error>

#include "discover/discover.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

// The string after `key` and a ':' in version.json's text ("version": "12.4.131").
std::string json_string_after(std::string_view text, std::string_view key) {
  const auto at = text.find(key);
  if (at == std::string_view::npos) return {};
  std::size_t position = at + key.size();
  while (position < text.size() && (text[position] == ' ' || text[position] == ':')) ++position;
  if (position >= text.size() || text[position] != '"') return {};
  const auto end = text.find('"', position + 1);
  if (end == std::string_view::npos || end - position - 1 > 64) return {};
  return std::string(text.substr(position + 1, end - position - 1));
}

// version.json (11.1 and later), version.txt (older), else cuda.h's CUDA_VERSION.
std::optional<std::string> toolkit_version_text(const fs::path& root) {
  if (auto json = util::read_file(root / "version.json")) {
    if (const auto cuda = json->find("\"cuda\""); cuda != std::string::npos) {
      if (std::string value = json_string_after(std::string_view(*json).substr(cuda), "\"version\""); !value.empty()) {
        return value;
      }
    }
  }
  if (auto text = util::read_file(root / "version.txt")) {
    if (const auto at = text->find("CUDA Version "); at != std::string::npos) {
      return std::string(util::trim(util::split(text->substr(at + 13), '\n').front()));
    }
  }
  if (auto header = util::read_file(root / "include" / "cuda.h")) {
    if (const auto at = header->find("#define CUDA_VERSION "); at != std::string::npos) {
      const long raw = std::strtol(header->c_str() + at + 21, nullptr, 10);
      if (raw > 0) return std::to_string(raw / 1000) + "." + std::to_string(raw % 1000 / 10);
    }
  }
  return std::nullopt;
}

// "12.4.131" -> 12.4
std::optional<CudaVersion> major_minor(const std::string& text) {
  const auto fields = util::split(text, '.');
  if (fields.size() < 2) return parse_cuda_version(text);
  return parse_cuda_version(fields[0] + "." + fields[1]);
}

// find_toolkits' places; with `only`, a place whose name says another
// version is passed over unread (activation asks after every cd).
std::vector<Toolkit> collect_toolkits(const util::Environment& environment, Os os, const CudaVersion* only) {
  std::vector<Toolkit> toolkits;
  std::error_code ec;
  // "cuda-12.4", "v12.4" -> 12.4
  auto from_folder_name = [](const fs::path& root, std::string_view prefix) -> std::optional<CudaVersion> {
    const std::string name = util::to_utf8(root.filename());
    return util::starts_with(name, prefix) ? parse_cuda_version(name.substr(prefix.size())) : std::nullopt;
  };
  // `named`: the version how it was found says (CUDA_PATH_V12_4, cuda-12.4, v12.4), else the name of the
  // folder it leads to (/usr/local/cuda -> cuda-13.0).
  auto add = [&](const fs::path& root, const std::string& via, std::optional<CudaVersion> named) {
    if (root.empty()) return;
    if (!named) {
      const fs::path real = fs::weakly_canonical(root, ec);
      named = from_folder_name(real, os == Os::windows ? "v" : "cuda-");
    }
    if (only && named && !(*named == *only)) return;
    const bool has_files = fs::is_regular_file(root / "version.json", ec) ||
                           fs::is_regular_file(root / "version.txt", ec) ||
                           fs::is_regular_file(root / "include" / "cuda.h", ec);
    if (!has_files && !(named && fs::is_directory(root / "bin", ec))) return;
    for (const auto& known : toolkits) {
      if (util::same_file(known.root, root)) return;
    }
    Toolkit toolkit{root, named, {}, via};
    if (auto text = has_files ? toolkit_version_text(root) : std::nullopt) {
      toolkit.version_text = *text;
      if (auto read = major_minor(*text)) toolkit.version = read;
    }
    toolkits.push_back(std::move(toolkit));
  };
  for (const char* variable : {"CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"}) {
    if (auto value = environment.get(variable); value && !value->empty()) {
      add(util::path_from_utf8(*value), variable, std::nullopt);
    }
  }
  for (const auto& [name, value] : environment.variables()) {
    const std::string lower = util::to_lower(name);
    if (util::starts_with(lower, "cuda_path_v") && !value.empty()) {
      // CUDA_PATH_V12_4: 12.4
      std::string digits = name.substr(11);
      std::replace(digits.begin(), digits.end(), '_', '.');
      add(util::path_from_utf8(value), name, parse_cuda_version(digits));
    }
  }
  const char* nvcc = os == Os::windows ? "nvcc.exe" : "nvcc";
  for (const auto& entry : util::split_path_list(environment.get("PATH").value_or(""))) {
    if (!entry.empty() && fs::is_regular_file(util::path_from_utf8(entry) / nvcc, ec)) {
      add(util::path_from_utf8(entry).parent_path(), "nvcc on PATH", std::nullopt);
    }
  }
  if (os == Os::windows) {
    const std::string program_files = environment.get("ProgramFiles").value_or("C:\\Program Files");
    for (const auto& root :
         expand_glob(util::path_from_utf8(program_files) / "NVIDIA GPU Computing Toolkit" / "CUDA" / "v*")) {
      add(root, "the CUDA installer's folder", from_folder_name(root, "v"));
    }
  } else {
    add("/usr/local/cuda", "/usr/local/cuda", std::nullopt);
    for (const auto& root : expand_glob("/usr/local/cuda-*")) {
      add(root, "/usr/local/cuda-*", from_folder_name(root, "cuda-"));
    }
  }
  return toolkits;
}

}  // namespace

std::vector<Toolkit> find_toolkits(const util::Environment& environment, Os os) {
  return collect_toolkits(environment, os, nullptr);
}

std::optional<fs::path> find_toolkit(const CudaVersion& cuda, const util::Environment& environment) {
  if (!cuda.minor) return std::nullopt;
  // Activation asks this after every cd: the places named by the version come
  // first (a stat each, no file read), then the rest of find_toolkits' places,
  // each read for its version only when it is there.
  std::error_code ec;
  const std::string dotted = cuda.str();
  const auto has_bin = [&](const fs::path& root) { return !root.empty() && fs::is_directory(root / "bin", ec); };
  if (auto variable = environment.get("CUDA_PATH_V" + std::to_string(cuda.major) + "_" + std::to_string(*cuda.minor));
      variable && has_bin(util::path_from_utf8(*variable))) {
    return util::path_from_utf8(*variable);
  }
  const fs::path installer = windows_host()
                                 ? util::path_from_utf8(environment.get("ProgramFiles").value_or("C:\\Program Files")) /
                                       "NVIDIA GPU Computing Toolkit" / "CUDA" / util::path_from_utf8("v" + dotted)
                                 : fs::path("/usr/local/cuda-" + dotted);
  if (has_bin(installer)) return installer;
  for (const auto& toolkit : collect_toolkits(environment, host_platform().os, &cuda)) {
    if (toolkit.version && *toolkit.version == cuda && has_bin(toolkit.root)) return toolkit.root;
  }
  return std::nullopt;
}

bool toolkit_installed(const CudaVersion& cuda, const util::Environment& environment) {
  for (const auto& toolkit : find_toolkits(environment, host_platform().os)) {
    if (toolkit.version && toolkit.version->major == cuda.major && (!cuda.minor || toolkit.version == cuda)) {
      return true;
    }
  }
  return false;
}

}  // namespace cudnnenv
