#include "formats/archive_name.hpp"

#include <span>

#include <regex>

#include "util/text.hpp"

namespace cudnnenv {

namespace {

std::optional<Platform> platform_from(std::string_view os, std::string_view arch) {
  Platform platform;
  if (util::starts_with(os, "windows") || os == "win") {
    platform.os = Os::windows;
  } else if (os == "linux" || util::starts_with(os, "manylinux")) {
    platform.os = Os::linux;
  } else {
    return std::nullopt;
  }
  if (arch == "x64" || arch == "x86_64" || arch == "amd64") {
    platform.arch = Arch::x86_64;
  } else if (arch == "sbsa" || arch == "aarch64" || arch == "aarch64sbsa" || arch == "arm64") {
    platform.arch = Arch::arm64;
  } else if (arch == "ppc64le") {
    platform.arch = Arch::ppc64le;
  } else {
    return std::nullopt;
  }
  return platform;
}

}  // namespace

namespace {

std::optional<std::size_t> extension_length(std::string_view file_name, std::span<const std::string_view> list) {
  const std::string lower = util::to_lower(file_name);
  for (const std::string_view extension : list) {
    if (util::ends_with(lower, extension)) return extension.size();
  }
  return std::nullopt;
}

}  // namespace

bool has_tar_extension(std::string_view file_name) {
  return extension_length(file_name, k_tar_extensions).has_value();
}

bool has_zip_extension(std::string_view file_name) {
  return extension_length(file_name, k_zip_extensions).has_value();
}

std::string archive_stem(std::string_view file_name) {
  auto length = extension_length(file_name, k_tar_extensions);
  if (!length) length = extension_length(file_name, k_zip_extensions);
  return std::string(file_name.substr(0, file_name.size() - length.value_or(0)));
}

ArchiveName parse_archive_name(std::string_view file_name) {
  ArchiveName name;
  name.stem = archive_stem(file_name);
  name.wheel = util::ends_with(util::to_lower(file_name), ".whl");
  const std::string& stem = name.stem;
  std::smatch match;

  static const std::regex legacy(
      R"(^cudnn-(\d+\.\d+)-(linux|windows|windows10|windows7)-(x64|ppc64le|aarch64sbsa)-v(\d+\.\d+\.\d+(?:\.\d+)?)$)");
  static const std::regex archive(
      R"(^cudnn-(linux|windows)-(x86_64|sbsa|ppc64le|aarch64|arm64)-(\d+\.\d+\.\d+\.\d+)_cuda(\d+(?:\.\d+)?)-archive$)");
  static const std::regex wheel(R"(^nvidia_cudnn_cu(\d+)-(\d+\.\d+\.\d+(?:\.\d+)?)-[^-]+-[^-]+-(.+)$)");

  if (std::regex_match(stem, match, legacy)) {
    name.cuda = parse_cuda_version(match[1].str());
    name.platform = platform_from(match[2].str(), match[3].str());
    name.version = parse_version(match[4].str());
  } else if (std::regex_match(stem, match, archive)) {
    name.platform = platform_from(match[1].str(), match[2].str());
    name.version = parse_version(match[3].str());
    name.cuda = parse_cuda_version(match[4].str());
  } else if (name.wheel && std::regex_match(stem, match, wheel)) {
    name.cuda = parse_cuda_version(match[1].str());
    name.version = parse_version(match[2].str());
    // The platform tag: "manylinux2014_x86_64", "manylinux_2_27_aarch64", "win_amd64".
    const std::string tag = match[3].str();
    const auto underscore = tag.rfind('_');
    if (util::starts_with(tag, "win_")) {
      name.platform = platform_from("windows", tag.substr(4));
    } else if (underscore != std::string::npos) {
      std::string arch = tag.substr(underscore + 1);
      if (arch == "64" && util::ends_with(tag, "x86_64")) {
        arch = "x86_64";
      }
      name.platform = platform_from("linux", arch);
    }
  }
  return name;
}

void apply_wheel_metadata(std::string_view metadata, ArchiveName& name) {
  for (const auto& raw_line : util::split(metadata, '\n')) {
    const std::string_view line = util::trim(raw_line);
    if (line.empty()) {
      break;  // the body (long description) follows the first blank line
    }
    if (util::starts_with(line, "Name:")) {
      const std::string value = util::to_lower(util::trim(line.substr(5)));
      const std::string prefix = "nvidia-cudnn-cu";
      if (util::starts_with(value, prefix) && !name.cuda) {
        name.cuda = parse_cuda_version(value.substr(prefix.size()));
      }
    } else if (util::starts_with(line, "Version:") && !name.version) {
      name.version = parse_version(util::trim(line.substr(8)));
    }
  }
}

}  // namespace cudnnenv
