// What an official archive's or wheel's file name says: version with build
// number, CUDA version, OS and architecture.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "formats/platform.hpp"
#include "formats/version.hpp"

namespace cudnnenv {

struct ArchiveName {
  std::string stem;  // the name without .zip / .tar.xz / .tgz / .whl
  std::optional<Version> version;
  std::optional<CudaVersion> cuda;
  std::optional<Platform> platform;
  bool wheel = false;
};

// Recognises, for example:
//   cudnn-11.2-windows-x64-v8.1.0.77.zip
//   cudnn-10.2-linux-x64-v7.6.5.32.tgz
//   cudnn-windows-x86_64-8.9.7.29_cuda12-archive.zip
//   cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz
//   nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl
// Any other name yields only the stem.
ArchiveName parse_archive_name(std::string_view file_name);

// The archive extensions cudnnenv reads, the one list (longest first where
// one ends another): a name ending so is an archive, never a version.
inline constexpr std::string_view k_tar_extensions[] = {".tar.xz", ".tar.gz", ".tgz", ".txz", ".tar"};
inline constexpr std::string_view k_zip_extensions[] = {".zip", ".whl"};

// Whether `file_name` ends with one of them (any case); which kind.
bool has_tar_extension(std::string_view file_name);
bool has_zip_extension(std::string_view file_name);

// The name without its archive extension.
std::string archive_stem(std::string_view file_name);

// From a wheel's METADATA text ("Name: nvidia-cudnn-cu12", "Version: 9.1.0.70").
void apply_wheel_metadata(std::string_view metadata, ArchiveName& name);

}  // namespace cudnnenv
