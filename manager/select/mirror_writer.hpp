// Filling a mirror (`mirror create`): each file at its path on NVIDIA's host
// under the mirror's folder (download/mirror.hpp is its layout and index),
// fetched and checked as an install fetches it; a lock's NCCL and TensorRT
// files copied from the files their trees here came from.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "download/download.hpp"
#include "download/mirror.hpp"
#include "select/lock.hpp"
#include "store/tree.hpp"
#include "util/environment.hpp"
#include "util/result.hpp"

namespace cudnnenv {

// Fills the mirror and its index, one file at a time: the index is written
// after each, so a create that stops keeps what it finished.
class MirrorWriter {
 public:
  // `options`: how to fetch (its folder, the store's downloads folder, holds
  // the locks on each file's name: the mirror holds no lock files);
  // `starting`: told each file's name before it is fetched or checked.
  MirrorWriter(std::filesystem::path folder, MirrorIndex index, DownloadOptions options,
               std::function<void(const std::string& file)> starting);

  const DownloadOptions& options() const { return m_options; }
  const MirrorIndex& index() const { return m_index; }
  std::size_t fetched() const { return m_fetched; }
  std::size_t kept() const { return m_kept; }

  // An official cuDNN archive.
  Result<void> cudnn(const OfficialArchive& archive);
  // The CUDA runtime of `asked` for `platform`: its manifest and the archive of every component a runtime tree
  // takes (runtime_components). With `locked`, the manifest and archives must be the ones a lock names.
  Result<void> runtime(const std::string& asked, const std::string& platform, const util::Environment& environment,
                       const LockedRuntime* locked = nullptr);
  // A lock's NCCL or TensorRT file, at mirror_path: copied from the file a tree of `installed` came from (the
  // same SHA-256) where it is still there, else fetched from the lock's URL.
  Result<void> tree(const LockedTree& locked, const std::vector<TreeRecord>& installed);

 private:
  std::string path_in_mirror(const std::filesystem::path& file) const;
  bool indexed(const std::filesystem::path& file, const std::string& sha256) const;
  Result<void> record(const std::filesystem::path& file, const std::string& sha256, bool fetched, std::string what,
                      std::string platform, std::string release);

  std::filesystem::path m_folder;
  MirrorIndex m_index;
  DownloadOptions m_options;
  std::function<void(const std::string& file)> m_starting;
  std::size_t m_fetched = 0;
  std::size_t m_kept = 0;
};

}  // namespace cudnnenv
