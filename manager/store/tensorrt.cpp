// TensorRT trees: the inference libraries TensorFlow (libnvinfer.so.7 for
// 2.4 and 2.5), ONNX Runtime's TensorRT provider and torch-tensorrt open by
// name beside cuDNN: libnvinfer.so.N and its family (libnvinfer_plugin,
// _lean, _dispatch, _builder_resource), libnvonnxparser.so.N; on Windows
// nvinfer_10.dll (nvinfer.dll up to 8.x) and the same family. From NVIDIA's
// tarball or zip (TensorRT-10.13.3.9/lib), a wheel (tensorrt_libs/) or an
// adopted folder. Its row of the component table (store/component.hpp).
#include <algorithm>
#include <cctype>

#include "store/component.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_stems[] = {"nvinfer", "nvonnxparser"};

// After a stem: its family's parts ("_plugin", "_builder_resource"), letters only.
std::string_view skip_parts(std::string_view rest) {
  while (rest.size() > 1 && rest[0] == '_' && std::isalpha(static_cast<unsigned char>(rest[1]))) {
    rest.remove_prefix(1);
    while (!rest.empty() && (std::isalpha(static_cast<unsigned char>(rest[0])) || rest[0] == '_') &&
           !(rest[0] == '_' && rest.size() > 1 && std::isdigit(static_cast<unsigned char>(rest[1]))))
      rest.remove_prefix(1);
  }
  return rest;
}

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Linux lib<stem>[_part].so[.N...]; Windows <stem>[_part][_N|64_N].dll, any case.
bool is_tensorrt_name(std::string_view file_name, Os os, bool family) {
  const std::string name = os == Os::windows ? util::to_lower(file_name) : std::string(file_name);
  for (const std::string_view stem : k_stems) {
    const std::string head = (os == Os::windows ? "" : "lib") + std::string(stem);
    if (!util::starts_with(name, head)) continue;
    std::string_view rest = std::string_view(name).substr(head.size());
    if (family) rest = skip_parts(rest);
    if (os == Os::windows) {
      if (!util::ends_with(rest, ".dll")) continue;
      rest.remove_suffix(4);
      if (rest.empty() || (util::starts_with(rest, "_") && all_digits(rest.substr(1))) ||
          (util::starts_with(rest, "64_") && all_digits(rest.substr(3))))
        return true;
    } else if (rest == ".so" || (util::starts_with(rest, ".so.") && rest.size() > 4 &&
                                 std::isdigit(static_cast<unsigned char>(rest[4])))) {
      return true;
    }
  }
  return false;
}

// The main library: libnvinfer.so.N, nvinfer_N.dll or nvinfer.dll.
bool is_main(std::string_view file_name, Os os) {
  return is_tensorrt_name(file_name, os, false) &&
         util::starts_with(util::to_lower(file_name), os == Os::windows ? "nvinfer" : "libnvinfer.so.");
}

std::string default_tensorrt_name(const Version& release, bool major_only) {
  return "tensorrt-" + (major_only ? std::to_string(release.major) : release.str());
}

std::vector<std::string> tensorrt_library_files(const fs::path& folder, Os os) {
  return component_library_files(folder, os, &is_tensorrt_library);
}

std::vector<fs::path> tensorrt_library_folders(const fs::path& root, Os os) {
  return component_library_folders(root, os, &is_tensorrt_library);
}

// Of NVIDIA's tarball (TensorRT-10.13.3.9/lib/libnvinfer.so.10.13.3), zip
// (TensorRT-10.13.3.9/lib/nvinfer_10.dll) and a wheel (tensorrt_libs/...):
// the libraries, as lib/<name> (Linux) or bin/<name> (Windows).
std::optional<std::string> tensorrt_entry_path(std::string_view inside, Os os) {
  const auto parts = util::split(inside, '/');
  if (parts.size() < 2 || parts.size() > 3 || !is_tensorrt_library(parts.back(), os)) return std::nullopt;
  const std::string& folder = parts[parts.size() - 2];
  if (folder != "lib" && folder != "bin" && folder != "tensorrt_libs") return std::nullopt;
  return (os == Os::windows ? "bin/" : "lib/") + parts.back();
}

std::unique_ptr<ArchiveSource> tensorrt_entries(std::unique_ptr<ArchiveSource> inner, std::string, Os os) {
  return renamed_entries(std::move(inner), [os](std::string_view name) { return tensorrt_entry_path(name, os); });
}

Result<TreeLayout> locate_tensorrt_layout(const fs::path& root, Os os) {
  std::vector<std::pair<fs::path, std::string>> found;  // folder, main library
  for (const auto& folder : tensorrt_library_folders(root, os)) {
    std::string main;
    for (const auto& name : tensorrt_library_files(folder, os)) {
      if (is_main(name, os) && (main.empty() || name.size() < main.size())) main = name;
    }
    if (!main.empty()) found.push_back({folder, main});
  }
  if (found.empty()) {
    return make_error("'" + util::to_utf8(root) + "' holds no TensorRT (no " +
                          std::string(os == Os::windows ? "nvinfer*.dll" : "libnvinfer.so.*") + ")",
                      "name the lib folder of NVIDIA's TensorRT archive, or the tensorrt_libs folder of a Python "
                      "environment",
                      ExitCode::not_found);
  }
  if (found.size() > 1) {
    return make_error("'" + util::to_utf8(root) + "' holds more than one TensorRT ('" + util::to_utf8(found[0].first) +
                          "', '" + util::to_utf8(found[1].first) + "')",
                      "name the one folder to use");
  }
  TreeLayout layout;
  const fs::path relative = found[0].first.lexically_relative(root);
  layout.library_dir = relative == "." ? std::string() : util::generic_utf8(relative);
  layout.main_library = (layout.library_dir.empty() ? "" : layout.library_dir + "/") + found[0].second;
  // libnvinfer.so.10 and nvinfer_10.dll: 10; nvinfer.dll (8.x and older): unknown.
  const std::string& name = found[0].second;
  const auto digits = os == Os::windows ? name.rfind('_') : name.find(".so.");
  if (digits != std::string::npos) layout.major = std::atoi(name.c_str() + digits + (os == Os::windows ? 1 : 4));
  return layout;
}

std::optional<Version> release_in_tensorrt_name(std::string_view file_name, int major) {
  if (!util::starts_with(file_name, "libnvinfer.so.")) return std::nullopt;
  const auto full = parse_version(file_name.substr(14));
  if (!full || full->major != major || std::count(file_name.begin(), file_name.end(), '.') < 4) return std::nullopt;
  return full;
}

TreeRecord tensorrt_record(std::string name, const TreeLayout& layout, const Version& release, bool,
                           const Platform& platform) {
  TreeRecord record;
  record.kind = TreeKind::tensorrt;
  record.name = std::move(name);
  record.version = release;
  record.platform = platform;
  record.layout = layout;
  record.installed_at = utc_timestamp();
  return record;
}

Result<void> check_installed_tensorrt(const fs::path&, const TreeLayout& layout,
                                      const ComponentInstallOptions& options) {
  if (layout.major != 0 && layout.major != options.release.major) {
    return make_error("the archive of TensorRT " + options.release.str() + " holds '" + layout.main_library +
                          "', a TensorRT " + std::to_string(layout.major) + " library",
                      "name the archive of the release you mean");
  }
  return {};
}

}  // namespace

bool is_tensorrt_library(std::string_view file_name, Os os) {
  return is_tensorrt_name(file_name, os, true);
}

const ComponentTrees* trees_of_tensorrt() {
  static const ComponentTrees trees{&default_tensorrt_name,
                                    &tensorrt_entries,
                                    &locate_tensorrt_layout,
                                    &tensorrt_library_files,
                                    &tensorrt_library_folders,
                                    &release_in_tensorrt_name,
                                    &tensorrt_record,
                                    &check_installed_tensorrt,
                                    &newest_of_cuda_major,
                                    nullptr,
                                    nullptr};
  return &trees;
}

}  // namespace cudnnenv
