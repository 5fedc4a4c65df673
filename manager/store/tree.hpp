// A tree's description of itself: <tree>/.cudnnenv/tree.toml. There is no
// central index; `list` reads these records.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/platform.hpp"
#include "formats/version.hpp"
#include "store/layout.hpp"
#include "util/result.hpp"

#include "components.inc"

namespace cudnnenv {

struct FileRecord {
  std::string path;  // relative to the tree's location, '/'-separated (absolute for adopted headers elsewhere)
  std::uint64_t size = 0;
  std::string sha256;
  std::string link;  // symbolic link text; then size and sha256 are those of its target
};

struct SourceRecord {
  std::string kind;    // "zip", "tar", "wheel", "folder", "adopted"
  std::string path;    // absolute, as given
  std::string sha256;  // of the archive; empty for folders
  std::uint64_t size = 0;
  std::string official;  // the official archive's file name when the hash is a known one
  // adopt --heal: the store tree (same release and CUDA) whose files filled
  // what the adopted folder lacked; empty otherwise.
  std::string healed_from;
};

// What a tree holds: a cuDNN release, or the CUDA runtime libraries of one
// CUDA release (cudart, cuBLAS, cuFFT, ...) that a framework opens beside it;
// a value per row of components.inc (store/component.hpp is the table).
#define CUDNNENV_TREE_KIND(kind, noun, short_noun, json_key, folder_words, report_label, pin_variable, \
                           active_variable, every_name)                                                \
  kind,
enum class TreeKind { CUDNNENV_COMPONENTS(CUDNNENV_TREE_KIND) };
#undef CUDNNENV_TREE_KIND

std::string to_string(TreeKind kind);  // "cudnn", "cuda": the word a tree record's `kind =` holds
std::optional<TreeKind> parse_tree_kind(std::string_view word);

// One CUDA component of a runtime tree, as NVIDIA's manifest names it.
struct ComponentRecord {
  std::string name;     // "libcublas"
  std::string version;  // "13.1.0.3"
};

struct TreeRecord {
  static constexpr int k_format = 1;

  TreeKind kind = TreeKind::cudnn;
  std::string name;  // the store folder's name
  // cuDNN: its version, the build number from the archive name when known;
  // a runtime tree: the CUDA release (13.0.2).
  Version version;
  std::string version_from;  // "header" or "library"
  // The CUDA the tree is shown with: the cudart it was built with when the
  // library could be asked, else its variant (below).
  std::optional<CudaVersion> cuda;
  std::string cuda_from;  // "name", "metadata", "library", or empty when unknown
  // Both facts behind it: the variant the archive's name or the wheel's
  // metadata says ("cuda13", "cuda11.2"), and cudnnGetCudartVersion's answer.
  std::optional<CudaVersion> cuda_variant;
  std::optional<CudaVersion> cudart;
  Platform platform;
  // Where its files are, relative to `root` (include_dir may be absolute for
  // an adopted tree's headers elsewhere). Of the layout, `major` and
  // `version_header` are what install found; the record file keeps the four
  // folders and the main library.
  TreeLayout layout;
  std::string installed_at;  // UTC, ISO 8601
  // Adopted trees stay where they are: their files live under `location`.
  std::optional<std::string> location;
  SourceRecord source;
  // A runtime tree's, from its manifest or folder; a cuDNN tree's libraries the
  // package carried into it (InstallOptions::carried: zlibwapi).
  std::vector<ComponentRecord> components;
  std::vector<FileRecord> files;

  // Where the tree's files are: the store folder, or the adopted location.
  std::filesystem::path root;
  // Listed from this user's personal store over a shared one (Store::open); not recorded.
  bool personal = false;

  std::uint64_t total_size() const;
  std::filesystem::path resolve(const std::string& relative) const;
  std::filesystem::path library_path() const { return resolve(layout.main_library); }
};

// Whether `tree` serves a program built for CUDA `asked` (NVIDIA's
// minor-version compatibility, one build per CUDA major since cuDNN 8.1):
// the same major, and for a variant that names a minor ("cuda11.2") that
// minor or a newer one; a variant of the major alone ("cuda13"), or a tree
// whose variant is unknown (adopted, a folder: its cudart's major), serves
// every minor. A request of the major alone ("12") asks for any minor.
bool serves_cuda(const TreeRecord& tree, const CudaVersion& asked);

// What `serves_cuda` accepts, for messages: "CUDA 13.x (built with 13.1)",
// "CUDA 11.2 and newer 11.x", "an unknown CUDA".
std::string describe_served_cuda(const TreeRecord& tree);

// The record file of the tree stored at `tree_dir`.
std::filesystem::path record_path(const std::filesystem::path& tree_dir);

std::string serialize(const TreeRecord& record);

// Parses a record; `tree_dir` is the store folder it was read from.
Result<TreeRecord> parse_record(std::string_view text, const std::filesystem::path& tree_dir,
                                const std::filesystem::path& record_file);

enum class RecordPart { everything, identity };

// `RecordPart::identity` stops before the per-file list: what selection
// needs, read on every launch, is the record's first few lines.
Result<TreeRecord> read_record(const std::filesystem::path& tree_dir, RecordPart part = RecordPart::everything);

std::string utc_timestamp();

// The manifest's files that are missing or have another size now (stat
// only, no hashing: cheap enough for `list`); '/'-separated as recorded.
std::vector<std::string> changed_files(const TreeRecord& record);

// The manifest's files of the recorded size written after the tree was
// installed (their modification time past `installed_at`) whose SHA-256 is
// no longer the recorded one: a same-size replacement that changed_files cannot see,
// hashing only what was touched. '/'-separated as recorded.
std::vector<std::string> modified_files(const TreeRecord& record);

// Why someone other than this user and root could change what `record`
// loads (util::changeable_by_others of its folder, the folders above it, and
// each file of its manifest, links followed), in words; nothing when no one
// can. A tree of such files loaded or mounted by root runs that user's code
// as root: adopt, the root-run doors and export cdi ask this first.
std::optional<std::string> changeable_by_others(const TreeRecord& record);

// "2026-12-01T15:19:50Z" (utc_timestamp's form); nothing for anything else.
std::optional<std::chrono::system_clock::time_point> parse_utc_timestamp(std::string_view text);

}  // namespace cudnnenv
