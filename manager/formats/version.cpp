#include "formats/version.hpp"

#include <charconv>
#include <vector>

#include "util/text.hpp"

namespace cudnnenv {

namespace {

std::optional<int> parse_int(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return value;
}

std::optional<int> find_define(std::string_view text, std::string_view name) {
  std::size_t pos = 0;
  while ((pos = text.find("#define", pos)) != std::string_view::npos) {
    pos += 7;
    std::size_t cursor = text.find_first_not_of(" \t", pos);
    if (cursor == std::string_view::npos || text.substr(cursor, name.size()) != name) {
      continue;
    }
    cursor += name.size();
    if (cursor >= text.size() || (text[cursor] != ' ' && text[cursor] != '\t')) {
      continue;  // CUDNN_MAJOR_X, not CUDNN_MAJOR
    }
    cursor = text.find_first_not_of(" \t", cursor);
    if (cursor == std::string_view::npos) {
      return std::nullopt;  // '#define CUDNN_MAJOR ' at the very end: no value
    }
    const std::size_t end = text.find_first_not_of("0123456789", cursor);
    return parse_int(text.substr(cursor, end - cursor));
  }
  return std::nullopt;
}

}  // namespace

std::string Version::str() const {
  std::string text = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  if (build) {
    text += "." + std::to_string(*build);
  }
  return text;
}

bool Version::same_release(const Version& other) const {
  return major == other.major && minor == other.minor && patch == other.patch;
}

std::strong_ordering Version::operator<=>(const Version& other) const {
  if (auto c = major <=> other.major; c != 0) return c;
  if (auto c = minor <=> other.minor; c != 0) return c;
  if (auto c = patch <=> other.patch; c != 0) return c;
  return build.value_or(-1) <=> other.build.value_or(-1);
}

std::optional<Version> parse_version(std::string_view text) {
  const auto parts = util::split(text, '.');
  if (parts.size() < 2 || parts.size() > 4) {
    return std::nullopt;
  }
  std::vector<int> numbers;
  for (const auto& part : parts) {
    const auto number = parse_int(part);
    if (!number || *number < 0) {
      return std::nullopt;
    }
    numbers.push_back(*number);
  }
  Version version{numbers[0], numbers[1], numbers.size() > 2 ? numbers[2] : 0, std::nullopt};
  if (numbers.size() == 4) {
    version.build = numbers[3];
  }
  return version;
}

std::optional<Version> parse_version_header(std::string_view header_text) {
  const auto major = find_define(header_text, "CUDNN_MAJOR");
  const auto minor = find_define(header_text, "CUDNN_MINOR");
  const auto patch = find_define(header_text, "CUDNN_PATCHLEVEL");
  if (!major || !minor || !patch) {
    return std::nullopt;
  }
  return Version{*major, *minor, *patch, std::nullopt};
}

std::size_t encode_cudnn_version(const Version& version) {
  const std::size_t major_scale = version.major >= 9 ? 10000 : 1000;
  return static_cast<std::size_t>(version.major) * major_scale + static_cast<std::size_t>(version.minor) * 100 +
         static_cast<std::size_t>(version.patch);
}

Version decode_cudnn_version(std::size_t raw) {
  // 9.0.0 is 90000; the largest 8.x value, 8.9.7, is 8907, so the ranges
  // never overlap.
  const std::size_t major_scale = raw >= 90000 ? 10000 : 1000;
  return Version{static_cast<int>(raw / major_scale), static_cast<int>((raw % major_scale) / 100),
                 static_cast<int>(raw % 100), std::nullopt};
}

std::string CudaVersion::str() const {
  return minor ? std::to_string(major) + "." + std::to_string(*minor) : std::to_string(major);
}

std::optional<CudaVersion> parse_cuda_version(std::string_view text) {
  const auto parts = util::split(text, '.');
  if (parts.empty() || parts.size() > 2) {
    return std::nullopt;
  }
  const auto major = parse_int(parts[0]);
  if (!major) {
    return std::nullopt;
  }
  CudaVersion version{*major, std::nullopt};
  if (parts.size() == 2) {
    version.minor = parse_int(parts[1]);
    if (!version.minor) {
      return std::nullopt;
    }
  }
  return version;
}

CudaVersion decode_cudart_version(std::size_t raw) {
  return CudaVersion{static_cast<int>(raw / 1000), static_cast<int>((raw % 1000) / 10)};
}

}  // namespace cudnnenv
