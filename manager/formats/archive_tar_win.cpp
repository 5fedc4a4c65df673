#include "formats/archive.hpp"
#include "util/text.hpp"

namespace cudnnenv {

Result<std::unique_ptr<ArchiveSource>> open_tar_source(const std::filesystem::path& path, std::FILE*) {
  return make_error("'" + util::to_utf8(path) + "' is a tarball: Linux cuDNN archives are tarballs",
                    "on Windows, install the Windows archive (cudnn-windows-x86_64-*-archive.zip)", ExitCode::usage);
}

}  // namespace cudnnenv
