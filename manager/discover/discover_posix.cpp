#include <cstring>
#include <system_error>

#include "discover/discover.hpp"
#include "formats/binfmt.hpp"
#include "store/layout.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

// LD_LIBRARY_PATH's folders as ld.so reads them: an empty entry (a leading,
// trailing or doubled ':') is the working folder.
std::vector<std::string> ld_library_path(const DiscoverContext& context) {
  const std::string value = context.environment.get("LD_LIBRARY_PATH").value_or("");
  std::vector<std::string> folders;
  if (value.empty()) return folders;
  std::error_code ec;
  for (auto& entry : util::split(value, ':')) {
    folders.push_back(entry.empty() ? util::to_utf8(fs::current_path(ec)) : std::move(entry));
  }
  return folders;
}

struct CacheEntry {
  std::string name;
  fs::path path;
};

// /etc/ld.so.cache in glibc's "glibc-ld.so.cache1.1" format (the only one
// since glibc 2.32; older files carry it after the old-format table).
// String offsets count from the start of that header.
std::vector<CacheEntry> read_ld_so_cache() {
  std::vector<CacheEntry> entries;
  auto content = util::read_file("/etc/ld.so.cache");
  if (!content) {
    return entries;
  }
  const std::string& data = *content;
  static const char magic[] = "glibc-ld.so.cache1.1";
  const std::size_t start = data.find(magic);
  if (start == std::string::npos || start + 48 > data.size()) {
    return entries;
  }
  std::uint32_t count = 0;
  std::memcpy(&count, data.data() + start + 20, 4);
  const std::size_t table = start + 48;
  for (std::uint32_t i = 0; i < count && table + (i + 1) * 24 <= data.size(); ++i) {
    std::int32_t flags = 0;
    std::uint32_t key = 0;
    std::uint32_t value = 0;
    std::memcpy(&flags, data.data() + table + i * 24, 4);
    std::memcpy(&key, data.data() + table + i * 24 + 4, 4);
    std::memcpy(&value, data.data() + table + i * 24 + 8, 4);
#if defined(__x86_64__)
    if ((flags & 0xff00) != 0x0300) {  // FLAG_X8664_LIB64: skip 32-bit and x32 entries
      continue;
    }
#endif
    if (start + key >= data.size() || start + value >= data.size()) {
      continue;
    }
    entries.push_back({std::string(data.c_str() + start + key), fs::path(data.c_str() + start + value)});
  }
  return entries;
}

const std::vector<fs::path>& trusted_directories() {
  static const std::vector<fs::path> directories = {
      "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"};
  return directories;
}

}  // namespace

std::vector<SearchDirectory> candidate_directories(const DiscoverContext& context) {
  std::vector<SearchDirectory> directories;
  auto add = [&](const fs::path& directory, const std::string& via) {
    std::error_code ec;
    if (fs::is_directory(directory, ec)) {
      directories.push_back({directory, via});
    }
  };
  for (const auto& entry : ld_library_path(context)) {
    add(entry, "LD_LIBRARY_PATH");
  }
  for (const auto& entry : read_ld_so_cache()) {
    if (util::starts_with(entry.name, "libcudnn")) {
      add(entry.path.parent_path(), "ld.so cache");
    }
  }
  for (const auto& directory : trusted_directories()) {
    add(directory, "system folder");
  }
  for (const char* pattern :
       {"/usr/local/cuda*/lib", "/usr/local/cuda*/lib64", "/usr/local/cuda*/targets/*/lib", "/opt/nvidia/cudnn*/lib"}) {
    for (const auto& directory : expand_glob(pattern)) {
      add(directory, "CUDA toolkit");
    }
  }
  const std::string home = context.environment.get("HOME").value_or("");
  std::vector<std::string> site_patterns = {
      "/usr/lib/python3*/dist-packages",         "/usr/local/lib/python3*/dist-packages",
      "/usr/local/lib/python3*/site-packages",   "/opt/*/lib/python3*/site-packages",
      "/opt/*/.venv/lib/python3*/site-packages", "/opt/*/*/lib/python3*/site-packages"};
  std::vector<std::string> conda_patterns = {"/opt/conda", "/opt/conda/envs/*"};
  if (!home.empty()) {
    site_patterns.push_back(home + "/.local/lib/python3*/site-packages");
    site_patterns.push_back(home + "/.pyenv/versions/*/lib/python3*/site-packages");
    site_patterns.push_back(home + "/.virtualenvs/*/lib/python3*/site-packages");
    for (const char* conda : {"/miniconda3", "/anaconda3", "/miniforge3"}) {
      conda_patterns.push_back(home + conda);
      conda_patterns.push_back(home + conda + "/envs/*");
    }
  }
  for (const char* variable : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    if (auto prefix = context.environment.get(variable); prefix && !prefix->empty()) {
      site_patterns.push_back(*prefix + "/lib/python3*/site-packages");
      conda_patterns.push_back(*prefix);
    }
  }
  for (const auto& pattern : conda_patterns) {
    for (const auto& prefix : expand_glob(pattern)) {
      add(prefix / "lib", "conda environment");
      for (const auto& site : expand_glob(prefix / "lib" / "python3*" / "site-packages")) {
        site_patterns.push_back(util::to_utf8(site));
      }
    }
  }
  std::vector<fs::path> sites = context.site_packages;
  for (const auto& pattern : site_patterns) {
    for (const auto& site : expand_glob(pattern)) sites.push_back(site);
  }
  for (const auto& site : sites) {
    add(site / "nvidia" / "cudnn" / "lib", "site-packages (nvidia-cudnn wheel)");
    add(site / "torch" / "lib", "site-packages (torch)");
  }
  return directories;
}

fs::path default_resolution(const DiscoverContext& context, const std::string& file_name) {
  std::error_code ec;
  for (const auto& entry : ld_library_path(context)) {
    if (fs::is_regular_file(fs::path(entry) / file_name, ec)) {
      return fs::path(entry) / file_name;
    }
  }
  for (const auto& entry : read_ld_so_cache()) {
    if (entry.name == file_name) {
      return entry.path;
    }
  }
  for (const auto& directory : trusted_directories()) {
    if (fs::is_regular_file(directory / file_name, ec)) {
      return directory / file_name;
    }
  }
  return {};
}

std::string describe_default_search(const DiscoverContext& context) {
  const auto entries = ld_library_path(context);
  std::string text = entries.empty() ? std::string("LD_LIBRARY_PATH (unset)")
                                     : "LD_LIBRARY_PATH (" + std::to_string(entries.size()) +
                                           (entries.size() == 1 ? " folder)" : " folders)");
  text += ", the ld.so cache";
  for (const auto& directory : trusted_directories()) {
    text += ", " + directory.string();
  }
  return text;
}

std::vector<SearchDirectory> folders_before_path(const DiscoverContext&, const fs::path&) {
  return {};
}

std::vector<LoaderCandidate> loader_candidates(const DiscoverContext& context, const fs::path& program,
                                               const std::string& file_name) {
  std::vector<LoaderCandidate> candidates;
  std::error_code ec;
  auto consider = [&](const fs::path& file, const std::string& via) {
    if (!fs::is_regular_file(file, ec)) {
      return;
    }
    for (const auto& seen : candidates) {
      if (fs::equivalent(seen.file, file, ec)) {
        return;
      }
    }
    candidates.push_back({file, via});
  };
  std::vector<std::string> rpath;
  std::vector<std::string> runpath;
  const std::string program_name = util::to_utf8(program.filename());
  if (!program.empty()) {
    if (auto info = read_link_info(program)) {
      rpath = info->rpath;
      runpath = info->runpath;
    }
  }
  auto expand = [&](const std::string& entry) {
    std::string text = entry;
    for (const char* origin : {"$ORIGIN", "${ORIGIN}"}) {
      if (auto at = text.find(origin); at != std::string::npos) {
        text.replace(at, std::string(origin).size(), util::to_utf8(program.parent_path()));
      }
    }
    return fs::path(text).lexically_normal();
  };
  if (runpath.empty()) {
    for (const auto& entry : rpath) {
      consider(expand(entry) / file_name, "DT_RPATH of " + program_name);
    }
  }
  for (const auto& entry : ld_library_path(context)) {
    consider(fs::path(entry) / file_name, "LD_LIBRARY_PATH");
  }
  for (const auto& entry : runpath) {
    consider(expand(entry) / file_name, "DT_RUNPATH of " + program_name);
  }
  for (const auto& entry : read_ld_so_cache()) {
    if (entry.name == file_name) {
      consider(entry.path, "ld.so cache");
    }
  }
  for (const auto& directory : trusted_directories()) {
    consider(directory / file_name, "default folder");
  }
  return candidates;
}

}  // namespace cudnnenv
