#include "store/nccl.hpp"

#include <algorithm>
#include <fstream>

#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

bool is_versioned(std::string_view file_name) {
  constexpr std::string_view head = "libnccl.so.";
  return util::starts_with(file_name, head) && file_name.size() > head.size() &&
         std::isdigit(static_cast<unsigned char>(file_name[head.size()]));
}

}  // namespace

bool is_nccl_library_name(std::string_view file_name, Os os) {
  return os != Os::windows && (file_name == "libnccl.so" || is_versioned(file_name));
}

std::optional<NcclBuild> parse_nccl_build(std::string_view text) {
  const auto plus = text.find("+cuda");
  if (plus == std::string_view::npos) return std::nullopt;
  const auto release = parse_version(text.substr(0, plus));
  std::string_view cuda = text.substr(plus + 5);
  cuda = cuda.substr(0, std::min(cuda.size(), cuda.find_first_not_of("0123456789.")));
  const auto built_for = parse_cuda_version(cuda);
  if (!release || release->build || !built_for) return std::nullopt;
  return NcclBuild{*release, *built_for};
}

std::optional<NcclBuild> read_nccl_build(const fs::path& library) {
  constexpr std::string_view marker = "NCCL version ";
  constexpr std::size_t piece = 1 << 20, keep = 64;  // a piece read, and what of it the next one sees again
  std::ifstream in(library, std::ios::binary);
  std::string window;
  std::vector<char> buffer(piece);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    window.append(buffer.data(), static_cast<std::size_t>(in.gcount()));
    for (auto at = window.find(marker); at != std::string::npos; at = window.find(marker, at + 1)) {
      const std::size_t end = window.find('\0', at);
      if (end == std::string::npos) break;  // the rest comes with the next piece
      if (auto build = parse_nccl_build(std::string_view(window).substr(at + marker.size(), end - at - marker.size())))
        return build;
    }
    if (window.size() > keep) window.erase(0, window.size() - keep);
  }
  return std::nullopt;
}

namespace {

std::string default_nccl_name(const Version& release, bool major_only) {
  return "nccl-" + (major_only ? std::to_string(release.major) : release.str());
}

// Of NVIDIA's archive (nccl_2.27.5-1+cuda12.9_x86_64/lib/libnccl.so.2.27.5)
// and a wheel (nvidia/nccl/lib/libnccl.so.2): the shared library and its
// links under lib/, the licence as licenses/nccl.txt.
std::optional<std::string> nccl_entry_path(std::string_view inside) {
  const auto parts = util::split(inside, '/');
  if (parts.empty()) return std::nullopt;
  const std::string& base = parts.back();
  if (base == "LICENSE.txt" && parts.size() <= 3) return std::string("licenses/nccl.txt");
  if (parts.size() >= 2 && parts[parts.size() - 2] == "lib" && is_nccl_library_name(base, Os::linux)) {
    return "lib/" + base;
  }
  return std::nullopt;
}

std::unique_ptr<ArchiveSource> nccl_entries(std::unique_ptr<ArchiveSource> inner, std::string, Os) {
  return renamed_entries(std::move(inner), &nccl_entry_path);
}

Result<TreeLayout> locate_nccl_layout(const fs::path& root, Os os) {
  if (os == Os::windows) return make_error(std::string(k_nccl_windows), "", ExitCode::not_found);
  const auto folders = component_library_folders(root, os, &is_nccl_library_name);
  if (folders.empty()) {
    return make_error("'" + util::to_utf8(root) + "' holds no NCCL (no libnccl.so.*)",
                      "name NVIDIA's NCCL archive folder, or the nvidia/nccl/lib folder of a Python environment",
                      ExitCode::not_found);
  }
  if (folders.size() > 1) {
    return make_error("'" + util::to_utf8(root) + "' holds more than one NCCL ('" + util::to_utf8(folders[0]) + "', '" +
                          util::to_utf8(folders[1]) + "')",
                      "name the one folder to use");
  }
  auto files = component_library_files(folders[0], os, &is_nccl_library_name);
  std::erase_if(files, [](const std::string& name) { return !is_versioned(name); });
  if (files.empty()) {
    return make_error("'" + util::to_utf8(folders[0]) + "' holds libnccl.so alone, no libnccl.so.N",
                      "name the folder of NCCL's shared library", ExitCode::not_found);
  }
  const std::string& main = *std::min_element(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return a.size() < b.size();  // libnccl.so.2 before libnccl.so.2.27.5
  });
  TreeLayout layout;
  const fs::path relative = folders[0].lexically_relative(root);
  layout.library_dir = relative == "." ? std::string() : util::generic_utf8(relative);
  layout.main_library = (layout.library_dir.empty() ? "" : layout.library_dir + "/") + main;
  layout.major = std::atoi(main.substr(std::string_view("libnccl.so.").size()).c_str());
  if (const auto build = read_nccl_build(folders[0] / util::path_from_utf8(main))) {
    layout.release = build->release;
    layout.built_for = build->cuda;
  }
  return layout;
}

std::vector<std::string> nccl_library_files(const fs::path& folder, Os os) {
  return component_library_files(folder, os, &is_nccl_library_name);
}

std::vector<fs::path> nccl_library_folders(const fs::path& root, Os os) {
  return component_library_folders(root, os, &is_nccl_library_name);
}

std::optional<Version> release_in_nccl_name(std::string_view file_name, int major) {
  if (!util::starts_with(file_name, "libnccl.so.")) return std::nullopt;
  const auto full = parse_version(file_name.substr(11));
  if (!full || full->major != major || std::count(file_name.begin(), file_name.end(), '.') < 4) return std::nullopt;
  return full;
}

TreeRecord nccl_record(std::string name, const TreeLayout& layout, const Version& release, bool,
                       const Platform& platform) {
  TreeRecord record;
  record.kind = TreeKind::nccl;
  record.name = std::move(name);
  record.version = layout.release.value_or(release);
  record.cuda = layout.built_for;
  record.platform = platform;
  record.layout = layout;
  record.installed_at = utc_timestamp();
  return record;
}

Result<void> check_installed_nccl(const fs::path&, const TreeLayout& layout, const ComponentInstallOptions& options) {
  if (layout.release && !layout.release->same_release(options.release)) {
    return make_error("the archive of NCCL " + options.release.str() + " holds NCCL " + layout.release->str(),
                      "name the archive of the release you mean");
  }
  return {};
}

}  // namespace

// NCCL's row of the component table (store/component.hpp).
bool is_nccl_library(std::string_view file_name, Os os) {
  return is_nccl_library_name(file_name, os);
}

std::string nccl_archive_url(std::string_view file_name) {
  // nccl_2.27.5-1+cuda12.9_x86_64.txz: compute/redist/nccl/v2.27.5/ on NVIDIA's host.
  if (!util::starts_with(file_name, "nccl_") || !util::ends_with(file_name, ".txz") ||
      file_name.find('/') != std::string_view::npos || file_name.find('\\') != std::string_view::npos) {
    return {};
  }
  const auto release = release_in_archive_name(file_name);
  if (!release || file_name.substr(5, release->str().size()) != release->str()) return {};
  return "https://developer.download.nvidia.com/compute/redist/nccl/v" + release->str() + "/" + std::string(file_name);
}

const ComponentTrees* trees_of_nccl() {
  static const ComponentTrees trees{&default_nccl_name,    &nccl_entries,         &locate_nccl_layout,
                                    &nccl_library_files,   &nccl_library_folders, &release_in_nccl_name,
                                    &nccl_record,          &check_installed_nccl, &newest_of_cuda_major,
                                    k_nccl_windows.data(), &nccl_archive_url};
  return &trees;
}

}  // namespace cudnnenv
