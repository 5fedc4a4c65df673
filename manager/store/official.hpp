// Official cuDNN archives and their SHA-256, from data/cudnn-archives.tsv
// (compiled in at build time).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace cudnnenv {

struct OfficialArchive {
  std::string_view version;       // "8.1.0.77"
  std::string_view platform;      // "windows-x86_64", "linux-sbsa", ...
  std::string_view cuda_variant;  // "cuda11.2", "cuda12"
  std::string_view file_name;
  std::string_view sha256;
  std::uint64_t size;  // 0 when the source did not record it
};

std::span<const OfficialArchive> official_archives();

const OfficialArchive* find_official_by_sha256(std::string_view sha256);
const OfficialArchive* find_official_by_name(std::string_view file_name);

}  // namespace cudnnenv
