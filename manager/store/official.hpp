// Official cuDNN archives, their URLs and SHA-256, from data/cudnn-archives.tsv
// (compiled in at build time), or from a file of the same format named by
// CUDNNENV_INDEX (tests, and sites with an internal copy of the archives).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/platform.hpp"
#include "store/spec.hpp"
#include "util/result.hpp"

namespace cudnnenv {

struct OfficialArchive {
  std::string_view version;       // "8.1.0.77"
  std::string_view platform;      // "windows-x86_64", "linux-sbsa", ...
  std::string_view cuda_variant;  // "cuda11.2", "cuda12"
  std::string_view file_name;
  std::string_view sha256;
  std::uint64_t size;  // 0 when the source did not record it
  std::string_view url;
  // What said the SHA-256 and size, for messages: "the official list", or
  // the CUDA manifest an archive of a runtime came from.
  std::string_view listed_by = "the official list";
};

// The embedded list, or the one use_index_file() read.
std::span<const OfficialArchive> official_archives();

// The file use_index_file() read (CUDNNENV_INDEX), or empty: the embedded list.
std::string site_index();

// Reads a list in the TSV format of data/cudnn-archives.tsv (a header row,
// then version, platform, CUDA variant, file name, SHA-256 (64 hex digits, or
// empty: an archive only --allow-unverified installs), size in bytes or '?',
// URL (http, https, or file:// for a file on this machine), and any further columns, ignored). Errors name the
// file and line. Not thread-safe: called once, before any other function here.
Result<void> use_index_file(const std::filesystem::path& file);
Result<std::vector<OfficialArchive>> parse_index(std::string_view text, const std::string& origin);

// The official list's name for `platform`: "windows-x86_64", "linux-x86_64",
// "linux-sbsa" (Arm64 servers); empty where NVIDIA ships no archive.
std::string official_platform(const Platform& platform);

// The archives for `platform` that fit `spec` (the one matcher: whole
// components, +cuda), and `cuda` when given, newest first (by version, then
// CUDA). No spec: all of them.
std::vector<const OfficialArchive*> available_archives(const Platform& platform, const Spec* spec,
                                                       const std::optional<CudaVersion>& cuda);

// The archive's version and CUDA variant, as a spec compares them.
TreeRecord as_record(const OfficialArchive& archive);

const OfficialArchive* find_official_by_sha256(std::string_view sha256);
const OfficialArchive* find_official_by_name(std::string_view file_name);

}  // namespace cudnnenv
