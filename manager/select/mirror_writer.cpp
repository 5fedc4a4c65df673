#include "select/mirror_writer.hpp"

#include <algorithm>

#include "download/runtime.hpp"
#include "store/component.hpp"
#include "store/runtime.hpp"
#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

MirrorWriter::MirrorWriter(fs::path folder, MirrorIndex index, DownloadOptions options,
                           std::function<void(const std::string& file)> starting)
    : m_folder(std::move(folder)),
      m_index(std::move(index)),
      m_options(std::move(options)),
      m_starting(std::move(starting)) {
  m_options.lock_folder = m_options.folder;  // the store's downloads folder: the mirror holds no lock files
  m_options.folder = m_folder;
  m_options.nvidia_layout = true;
}

Result<void> MirrorWriter::cudnn(const OfficialArchive& archive) {
  m_starting(std::string(archive.file_name));
  CUDNNENV_TRY_ASSIGN(downloaded, fetch_archive(archive, m_options));
  return record(downloaded->file, downloaded->sha256, !downloaded->url.empty(),
                "cuDNN " + std::string(archive.version) + " (" + std::string(archive.cuda_variant) + ") for " +
                    std::string(archive.platform),
                std::string(archive.platform), {});
}

Result<void> MirrorWriter::runtime(const std::string& asked, const std::string& platform,
                                   const util::Environment& environment, const LockedRuntime* locked) {
  const auto index = cuda_index(environment);
  CUDNNENV_TRY_ASSIGN(release, find_cuda_release(asked, lock_platform(platform), index, m_options));
  if (locked) CUDNNENV_TRY(check_locked_runtime(*locked, *release));
  const std::string name = "redistrib_" + release->release.str() + ".json";
  const fs::path manifest = m_folder / "compute" / "cuda" / "redist" / util::path_from_utf8(name);
  if (index) {
    // Read from CUDNNENV_CUDA_INDEX, not fetched: copied where a mirror holds it.
    CUDNNENV_TRY_ASSIGN(text, util::read_file(util::path_from_utf8(release->manifest_source), k_max_manifest_bytes));
    CUDNNENV_TRY(util::create_directories_below(m_folder, manifest.parent_path()));
    CUDNNENV_TRY(util::write_file_atomic(manifest, *text));
  }
  const std::string release_name = release->release.str();
  CUDNNENV_TRY(record(manifest, release->manifest_sha256, !indexed(manifest, release->manifest_sha256),
                      "the manifest of CUDA " + release_name, {}, release_name));
  CUDNNENV_TRY_ASSIGN(
      archives, fetch_runtime_archives(*release, runtime_components(release->release.major), m_options, m_starting));
  for (const auto& archive : *archives) {
    // The runtime's fetch does not say which it found in place: those the index named with these bytes were.
    CUDNNENV_TRY(record(archive.file, archive.sha256, !indexed(archive.file, archive.sha256),
                        archive.component + " " + archive.version + " (CUDA " + release_name + ") for " + platform,
                        platform, release_name));
  }
  return {};
}

Result<void> MirrorWriter::tree(const LockedTree& locked, const std::vector<TreeRecord>& installed) {
  std::optional<fs::path> local;
  for (const auto& each : installed) {
    const fs::path source = util::path_from_utf8(each.source.path);
    if (std::error_code ec; each.source.sha256 == locked.sha256 && fs::is_regular_file(source, ec)) local = source;
  }
  m_starting(locked.file);
  CUDNNENV_TRY_ASSIGN(file, fetch_locked_tree(locked, local, m_options));
  const ComponentRow& row = component(locked.kind);
  return record(file->file, file->sha256, !local && !file->url.empty(),
                std::string(row.noun) + " " + locked.release + " for " + locked.platform, locked.platform,
                locked.release);
}

// "compute/cudnn/redist/...": `file`'s path under the mirror, '/'-separated on every system.
std::string MirrorWriter::path_in_mirror(const fs::path& file) const {
  std::string path = util::to_utf8(file.lexically_relative(m_folder));
  std::replace(path.begin(), path.end(), '\\', '/');
  return path;
}

// Whether the index already names `file` with these bytes.
bool MirrorWriter::indexed(const fs::path& file, const std::string& sha256) const {
  const std::string path = path_in_mirror(file);
  return std::any_of(m_index.files.begin(), m_index.files.end(),
                     [&](const MirrorFile& each) { return each.path == path && each.sha256 == sha256; });
}

// `fetched`: this create wrote the file (else it was there, checked).
Result<void> MirrorWriter::record(const fs::path& file, const std::string& sha256, bool fetched, std::string what,
                                  std::string platform, std::string release) {
  std::error_code ec;
  const std::uint64_t size = fs::file_size(file, ec);
  if (ec) return make_error("cannot read '" + util::to_utf8(file) + "': " + ec.message(), "run this again");
  std::string path = path_in_mirror(file);
  (fetched ? m_fetched : m_kept) += 1;
  // One writer of the index at a time, by a lock in the store's downloads folder (as each file's, named by
  // the index's path: the mirror holds no lock files); what another create added meanwhile is read back
  // and kept.
  util::Sha256 path_hash;
  const std::string index_path = util::to_utf8(fs::absolute(m_folder / k_mirror_index, ec));
  path_hash.update(index_path.data(), index_path.size());
  fs::create_directories(m_options.lock_folder, ec);
  CUDNNENV_TRY_ASSIGN(
      held, util::FileLock::acquire(m_options.lock_folder / ("." + std::string(k_mirror_index) + "." +
                                                             path_hash.hex_digest().substr(0, 16) + ".lock")));
  if (std::error_code missing; fs::exists(m_folder / k_mirror_index, missing)) {
    if (auto on_disk = read_mirror_index(m_folder)) {
      for (auto& each : on_disk->files) {
        if (!std::any_of(m_index.files.begin(), m_index.files.end(),
                         [&](const MirrorFile& mine) { return mine.path == each.path; })) {
          m_index.add(std::move(each));
        }
      }
    }
  }
  m_index.add(MirrorFile{path, size, sha256, std::move(what), std::move(platform), std::move(release)});
  return util::write_file_atomic(m_folder / k_mirror_index, serialize_mirror_index(m_index));
}

}  // namespace cudnnenv
