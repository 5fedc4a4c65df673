#include <windows.h>

#include <system_error>

#include "discover/discover.hpp"
#include "util/text.hpp"
#include "util/win.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

fs::path windows_directory(const DiscoverContext& context) {
  if (auto root = context.environment.get("SystemRoot"); root && !root->empty()) {
    return util::path_from_utf8(*root);
  }
  wchar_t buffer[MAX_PATH];
  const UINT length = ::GetWindowsDirectoryW(buffer, MAX_PATH);
  return fs::path(std::wstring(buffer, length));
}

fs::path variable_path(const DiscoverContext& context, const char* name) {
  auto value = context.environment.get(name);
  return value && !value->empty() ? util::path_from_utf8(*value) : fs::path();
}

}  // namespace

std::vector<SearchDirectory> candidate_directories(const DiscoverContext& context) {
  std::vector<SearchDirectory> directories;
  auto add = [&](const fs::path& directory, const std::string& via) {
    std::error_code ec;
    if (!directory.empty() && fs::is_directory(directory, ec)) {
      directories.push_back({directory, via});
    }
  };
  const fs::path windows = windows_directory(context);
  add(windows / "System32", "System32");
  add(windows / "SysWOW64", "SysWOW64");
  for (const auto& entry : util::split_path_list(context.environment.get("PATH").value_or(""))) {
    add(util::path_from_utf8(entry), "PATH");
  }
  for (const auto& [name, value] : context.environment.variables()) {
    if (util::starts_with(util::to_lower(name), "cuda_path")) {
      add(util::path_from_utf8(value) / "bin", name);
      add(util::path_from_utf8(value) / "bin" / "x64", name);
    }
  }
  const fs::path program_files = variable_path(context, "ProgramFiles").empty()
                                     ? fs::path(L"C:\\Program Files")
                                     : variable_path(context, "ProgramFiles");
  for (const auto& toolkit : expand_glob(program_files / "NVIDIA GPU Computing Toolkit" / "CUDA" / "v*")) {
    add(toolkit / "bin", "CUDA toolkit");
    add(toolkit / "bin" / "x64", "CUDA toolkit");
  }
  // The graphical cuDNN 9 installer: CUDNN\v9.x\bin\<cuda>\ (and \x64 below it from 9.2x).
  for (const auto& bin : expand_glob(program_files / "NVIDIA" / "CUDNN" / "v*" / "bin")) {
    add(bin, "cuDNN installer");
    for (const auto& per_cuda : expand_glob(bin / "*")) {
      add(per_cuda, "cuDNN installer");
      add(per_cuda / "x64", "cuDNN installer");
    }
  }
  std::vector<fs::path> sites = context.site_packages;
  for (const char* base : {"LOCALAPPDATA", "APPDATA"}) {
    const fs::path root = variable_path(context, base);
    if (root.empty()) {
      continue;
    }
    for (const auto& site : expand_glob(root / "Programs" / "Python" / "Python3*" / "Lib" / "site-packages")) {
      sites.push_back(site);
    }
    for (const auto& site : expand_glob(root / "Python" / "Python3*" / "site-packages")) {
      sites.push_back(site);
    }
  }
  std::vector<fs::path> prefixes;
  for (const char* variable : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    if (auto prefix = variable_path(context, variable); !prefix.empty()) {
      prefixes.push_back(prefix);
    }
  }
  if (auto profile = variable_path(context, "USERPROFILE"); !profile.empty()) {
    for (const char* conda : {"miniconda3", "anaconda3", "miniforge3"}) {
      prefixes.push_back(profile / conda);
      for (const auto& environment : expand_glob(profile / conda / "envs" / "*")) {
        prefixes.push_back(environment);
      }
    }
  }
  for (const auto& prefix : prefixes) {
    add(prefix / "Library" / "bin", "conda environment");
    sites.push_back(prefix / "Lib" / "site-packages");
  }
  for (const auto& site : sites) {
    add(site / "nvidia" / "cudnn" / "bin", "site-packages (nvidia-cudnn wheel)");
    add(site / "torch" / "lib", "site-packages (torch)");
  }
  return directories;
}

fs::path default_resolution(const DiscoverContext& context, const std::string& file_name) {
  // Safe DLL search mode, for a program whose own folder lacks the DLL:
  // System32, the 16-bit system folder, the Windows folder, the current
  // folder, then PATH (loader-facts.md, section 1).
  std::error_code ec;
  const fs::path windows = windows_directory(context);
  std::vector<fs::path> order = {windows / "System32", windows / "System", windows, fs::current_path(ec)};
  for (const auto& entry : util::split_path_list(context.environment.get("PATH").value_or(""))) {
    order.push_back(util::path_from_utf8(entry));
  }
  for (const auto& directory : order) {
    if (fs::is_regular_file(directory / util::path_from_utf8(file_name), ec)) {
      return directory / util::path_from_utf8(file_name);
    }
  }
  return {};
}

std::string describe_default_search(const DiscoverContext& context) {
  const fs::path windows = windows_directory(context);
  const auto entries = util::split_path_list(context.environment.get("PATH").value_or(""));
  return util::to_utf8(windows / "System32") + ", " + util::to_utf8(windows / "System") + ", " +
         util::to_utf8(windows) + ", the current folder, PATH (" + std::to_string(entries.size()) +
         (entries.size() == 1 ? " folder)" : " folders)");
}

std::vector<SearchDirectory> folders_before_path(const DiscoverContext& context, const fs::path& program) {
  std::error_code ec;
  const fs::path windows = windows_directory(context);
  std::vector<SearchDirectory> folders;
  if (!program.empty()) folders.push_back({program.parent_path(), "the program's folder"});
  folders.push_back({windows / "System32", "System32"});
  folders.push_back({windows / "System", "the 16-bit System folder"});
  folders.push_back({windows, "the Windows folder"});
  folders.push_back({fs::current_path(ec), "the working folder"});
  return folders;
}

std::vector<LoaderCandidate> loader_candidates(const DiscoverContext& context, const fs::path& program,
                                               const std::string& file_name) {
  std::vector<LoaderCandidate> candidates;
  std::error_code ec;
  const fs::path name = util::path_from_utf8(file_name);
  auto consider = [&](const fs::path& directory, const std::string& via) {
    const fs::path file = directory / name;
    if (directory.empty() || !fs::is_regular_file(file, ec)) {
      return;
    }
    for (const auto& seen : candidates) {
      if (fs::equivalent(seen.file, file, ec)) {
        return;
      }
    }
    candidates.push_back({file, via});
  };
  for (const auto& folder : folders_before_path(context, program)) {
    consider(folder.directory, folder.via);
  }
  for (const auto& entry : util::split_path_list(context.environment.get("PATH").value_or(""))) {
    consider(util::path_from_utf8(entry), "PATH");
  }
  return candidates;
}

}  // namespace cudnnenv
