// NCCL trees: the collective communication library that torch.distributed,
// JAX and Horovod open by name (libnccl.so.2) beside cuDNN. What an NCCL
// tree holds, which entries of NVIDIA's archive it keeps, and what the
// library says of itself. NCCL has no Windows build: its row names no
// Windows library, and the tool says so (k_nccl_windows).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "formats/platform.hpp"
#include "formats/version.hpp"
#include "store/component.hpp"

namespace cudnnenv {

inline constexpr std::string_view k_nccl_windows = "NCCL has no Windows build: NVIDIA ships it for Linux only";

// Whether `file_name` is NCCL's library (libnccl.so.2, libnccl.so.2.27.5, and
// the libnccl.so link a build links against, which the audit module sends to
// the tree too); never on Windows.
bool is_nccl_library_name(std::string_view file_name, Os os);

// What NCCL's library says of itself in the version string it prints
// ("NCCL version 2.27.5+cuda12.9"): its release and the CUDA it was built
// for. Reads the file in pieces; empty when the string is not there.
struct NcclBuild {
  Version release;
  CudaVersion cuda;
};
std::optional<NcclBuild> read_nccl_build(const std::filesystem::path& library);

// Where NVIDIA serves an NCCL archive of that file name
// (nccl_2.27.5-1+cuda12.9_x86_64.txz: .../compute/redist/nccl/v2.27.5/FILE);
// empty for any other name (a wheel).
std::string nccl_archive_url(std::string_view file_name);

// "2.27.5+cuda12.9" -> that build; what read_nccl_build parses after "NCCL version ".
std::optional<NcclBuild> parse_nccl_build(std::string_view text);

}  // namespace cudnnenv
