// What a framework profile opens beyond cuDNN: TensorFlow 2.5 on Windows
// opens cudart64_110.dll before anything else, then cuBLAS, cuFFT, ... (the
// profile's `windows_libraries` / `linux_libraries`). With no CUDA runtime
// tree selected, the ones a program would not find are what the framework
// fails on first, ahead of anything cuDNN's own imports say.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "select/resolve.hpp"
#include "util/environment.hpp"

namespace cudnnenv {

struct UnprovidedLibraries {
  std::string framework;           // "TensorFlow 2.5"
  std::string profile;             // "tf2.5"
  std::vector<std::string> names;  // in the profile's order: the first is the one the framework opens first
  std::string looked_in;           // the plain search, in words
  std::string fix;                 // one command, in words

  // "TensorFlow 2.5 (tf2.5) opens cudart64_110.dll first, then ...: no CUDA
  // runtime tree is selected and none of them is in <looked_in>"
  std::string describe() const;
};

// The profile's runtime libraries for `os` that a program started with
// `environment` would find nowhere, when the selection has a profile that
// names them and no CUDA runtime tree; empty otherwise (a toolkit's folder on
// the search path that has them all is as good). The fix names the release
// `install PROFILE` would install (pinned, or CUDNNENV_CUDA_INDEX's).
std::optional<UnprovidedLibraries> unprovided_framework_libraries(const Selection& selection,
                                                                  const util::Environment& environment, Os os);

}  // namespace cudnnenv
