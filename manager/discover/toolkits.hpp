// CUDA toolkits on this machine, found one way for every command: activate
// and exec (the toolkit's bin for a tree's or a profile's CUDA), install's
// choice of an archive's CUDA variant, and doctor's list (#23). Read as
// files: nothing is run.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "formats/platform.hpp"
#include "formats/version.hpp"
#include "util/environment.hpp"

namespace cudnnenv {

struct Toolkit {
  std::filesystem::path root;
  std::optional<CudaVersion> version;  // major.minor
  std::string version_text;            // "12.4.131" as the toolkit says, else empty
  std::string via;                     // "CUDA_PATH", "CUDA_PATH_V12_4", "nvcc on PATH", "/usr/local/cuda-*", ...
};

// Every toolkit, once each, in this order: CUDA_PATH, CUDA_HOME, CUDA_ROOT,
// CUDA_PATH_VX_Y (the installer's, Windows), nvcc's folder on PATH, then the
// installer's folders (C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v*;
// /usr/local/cuda, /usr/local/cuda-*). A folder is a toolkit when it has
// version.json, version.txt or include/cuda.h (its version read from those),
// or a bin folder and a version in how it was found (CUDA_PATH_V12_4,
// cuda-12.4, v12.4).
std::vector<Toolkit> find_toolkits(const util::Environment& environment, Os os);

// The toolkit of `cuda` (major.minor) with a bin folder: CUDA_PATH_VX_Y of
// that version, else the installer's folder of it, else the first of
// find_toolkits' of that version; none for a major alone ("cuda 12" names no
// one toolkit).
std::optional<std::filesystem::path> find_toolkit(const CudaVersion& cuda, const util::Environment& environment);

// Whether a toolkit of `cuda` is here: that one, or for a major alone any of its minors.
bool toolkit_installed(const CudaVersion& cuda, const util::Environment& environment);

}  // namespace cudnnenv
