// cuDNN and CUDA version numbers: parsing, the header macros, and the
// integer encodings the libraries report.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace cudnnenv {

struct Version {
  int major = 0;
  int minor = 0;
  int patch = 0;
  std::optional<int> build;  // the 4th field (8.1.0.77): only in file names

  std::string str() const;  // "8.1.0" or "8.1.0.77"
  // Equal in major, minor and patch (the build is not in the headers).
  bool same_release(const Version& other) const;
  std::strong_ordering operator<=>(const Version& other) const;
  bool operator==(const Version& other) const = default;
};

// "8.1", "8.1.0", "8.1.0.77" (2 to 4 numeric fields).
std::optional<Version> parse_version(std::string_view text);

// Reads CUDNN_MAJOR, CUDNN_MINOR and CUDNN_PATCHLEVEL from the text of
// cudnn_version.h (8.x, 9.x) or cudnn.h (7.x and older).
std::optional<Version> parse_version_header(std::string_view header_text);

// cudnnGetVersion() encodings: 7.x and 8.x M*1000+m*100+p, 9.x and later
// M*10000+m*100+p.
std::size_t encode_cudnn_version(const Version& version);
Version decode_cudnn_version(std::size_t raw);

struct CudaVersion {
  int major = 0;
  std::optional<int> minor;  // archives name only the major since 8.5 ("cuda12")

  std::string str() const;  // "11.2" or "12"
  bool operator==(const CudaVersion&) const = default;
};

std::optional<CudaVersion> parse_cuda_version(std::string_view text);

// cudnnGetCudartVersion() / CUDART_VERSION encoding: major*1000 + minor*10.
CudaVersion decode_cudart_version(std::size_t raw);

}  // namespace cudnnenv
