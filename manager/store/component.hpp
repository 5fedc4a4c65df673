// The components a selection pins, as one table: cuDNN and the CUDA runtime.
// A row says which trees are the component's (TreeKind), which library names
// are its, how a message names its folder, the variable that names that
// folder to the pin (the audit module on Linux, the launch on Windows) and
// the one that names its active tree. A selection's trees (pinned_trees)
// come in the table's order, the order of the loader's list: cuDNN's folder
// first, the runtime's right after. activation_for and plan_launch render
// every row alike; how a selection picks each tree is select/resolve's
// (resolve_runtime for the runtime). ARCHITECTURE.md, "A new component",
// lists the files a third one (NCCL) touches.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/archive.hpp"
#include "formats/platform.hpp"
#include "store/extract.hpp"
#include "store/layout.hpp"
#include "store/tree.hpp"

namespace cudnnenv {

// One archive of a component's release (a CUDA release's libcublas, ...),
// fetched and checked against its manifest (download/), to install as part
// of one tree.
struct ComponentArchive {
  std::filesystem::path file;
  std::string component;  // "libcublas"
  std::string version;    // the component's, "13.1.0.3"
  std::string sha256;     // the manifest's, which the file was checked against
};

struct ComponentInstallOptions {
  TreeKind kind = TreeKind::cuda;
  Version release;                  // the release, CUDA 13.0.2
  std::string manifest;             // where the manifest came from (URL or file)
  std::string manifest_sha256;      // of the manifest's bytes
  std::optional<std::string> name;  // default: the component's default_name (cuda-<release>)
  Platform platform = host_platform();
  ExtractLimits limits;
  UnpackProgress unpack_progress;
  // Library names the tree must ship (a profile's), checked before the
  // tree becomes visible: one missing fails the install, naming it, who
  // needs it (`required_by`: "TensorFlow 2.4") and `required_hint`.
  std::vector<std::string> required_libraries;
  std::string required_by;
  std::string required_hint;
  // The CUDA the archive's name says it was built for (cuda_in_archive_name),
  // kept where the tree's library does not say it.
  std::optional<CudaVersion> built_for;
};

// What the store needs of a component beside cuDNN to install and adopt its
// trees (Store::install_component, adopt_component), from store/<kind>.*
// (store/runtime.* for the CUDA runtime). cuDNN's trees are Store::install's.
struct ComponentTrees {
  // The tree's name when none is given: "cuda-13.0.2", "cuda-13" for a release known by its major.
  std::string (*default_name)(const Version& release, bool major_only);
  // What of one of its release's archives the tree keeps, under the name it keeps it.
  std::unique_ptr<ArchiveSource> (*kept_entries)(std::unique_ptr<ArchiveSource> archive, std::string component, Os os);
  // Its library folder and main library under `root` (a store tree, or a folder to adopt).
  Result<TreeLayout> (*locate_layout)(const std::filesystem::path& root, Os os);
  // Its library files directly in a folder, sorted.
  std::vector<std::string> (*library_files)(const std::filesystem::path& folder, Os os);
  // The folders under `root` that hold its library files (a split wheel: one per part).
  std::vector<std::filesystem::path> (*library_folders)(const std::filesystem::path& root, Os os);
  // The release a library file's name says, of major `major` (libcudart.so.13.0.96: 13.0), when it does.
  std::optional<Version> (*release_in_name)(std::string_view file_name, int major);
  // A record of its tree, but for its files.
  TreeRecord (*record)(std::string name, const TreeLayout& layout, const Version& release, bool minor_known,
                       const Platform& platform);
  // Checks a tree's installed folder against the install's release and the libraries asked for.
  Result<void> (*check_installed)(const std::filesystem::path& content, const TreeLayout& layout,
                                  const ComponentInstallOptions& options);
  // Its pairing rule: of `trees` (its own), the one a cuDNN tree is selected with when nothing names one.
  std::optional<TreeRecord> (*paired_with)(const TreeRecord& cudnn, const std::vector<TreeRecord>& trees);
  // Where it has no Windows build, the words that say so (NCCL); null where it has one.
  const char* no_windows_build;
  // Where NVIDIA serves one of its archives, from the archive's file name
  // (a lock's `url`); empty for a name of no known place (a wheel). Null for
  // a row whose archives a manifest names (the CUDA runtime's) or whose
  // downloads sit behind a login (TensorRT's): a lock of it names the file,
  // which a mirror or `install <kind> FILE` provides.
  std::string (*archive_url)(std::string_view file_name);
};

// Each component's own functions, declared here for every row of
// components.inc and defined with what its tree holds (store/<kind>.cpp:
// the CUDA runtime's in store/runtime.cpp; cuDNN's in store/component.cpp):
// whether a file is one of its libraries, and how the store makes its trees.
#define CUDNNENV_COMPONENT_FUNCTIONS(kind, ...)                \
  bool is_##kind##_library(std::string_view file_name, Os os); \
  const ComponentTrees* trees_of_##kind();
CUDNNENV_COMPONENTS(CUDNNENV_COMPONENT_FUNCTIONS)
#undef CUDNNENV_COMPONENT_FUNCTIONS

struct ComponentRow {
  TreeKind kind;
  std::string_view noun;             // "cuDNN", "CUDA runtime"
  std::string_view short_noun;       // "cuDNN", "CUDA": before its version
  std::string_view json_key;         // "runtime": current's and which's JSON
  std::string_view folder_words;     // "the tree's library folder": how a message names it
  std::string_view report_label;     // "in the runtime": how exec --report marks a loaded file of its tree
  std::string_view pin_variable;     // the folder its library names are sent to (shim/components.inc)
  std::string_view active_variable;  // the active tree's name, for shells and programs
  bool (*library_name)(std::string_view file_name, Os os);  // whether a file of that name is one of its libraries
  const ComponentTrees* trees;  // how the store makes its trees; null for cuDNN (Store::install)
};

// The files directly in `folder` that `is_library` names, sorted.
std::vector<std::string> component_library_files(const std::filesystem::path& folder, Os os,
                                                 bool (*is_library)(std::string_view file_name, Os os));
// The folders under `root` (itself and up to three levels down, never
// `stubs` or a hidden one) that hold such a file, sorted.
std::vector<std::filesystem::path> component_library_folders(const std::filesystem::path& root, Os os,
                                                             bool (*is_library)(std::string_view file_name, Os os));

// In the loader list's order.
std::span<const ComponentRow> components();
const ComponentRow& component(TreeKind kind);
// Its row's place in the table: what orders a selection's trees and the store's listing.
std::ptrdiff_t component_order(TreeKind kind);
// The rows beside cuDNN that a release names (nccl = "2.28", tensorrt = "10":
// a project file, a flag, a profile, a lock): each with trees of its own but
// the CUDA runtime (whose release its own rules name), in the table's order.
std::vector<const ComponentRow*> named_rows();

// Of `trees` (component `kind`'s), the one its row pairs with cuDNN tree
// `cudnn` when nothing names one (ComponentTrees::paired_with): the one rule
// that resolve, verify's targets and the modulefiles follow.
std::optional<TreeRecord> paired_tree(TreeKind kind, const TreeRecord& cudnn, const std::vector<TreeRecord>& trees);

// The tree `text` names, of `trees` (one component's): a tree's name, else
// the newest whose release starts with it ("2.27" matches 2.27.5, "2" any 2.x).
std::optional<TreeRecord> find_component(const std::vector<TreeRecord>& trees, std::string_view text);

// A pairing rule (ComponentTrees::paired_with) for a row whose trees are
// built for one CUDA major: of `trees`, the newest built for the CUDA major of
// `cudnn`; none while either CUDA is unknown.
std::optional<TreeRecord> newest_of_cuda_major(const TreeRecord& cudnn, const std::vector<TreeRecord>& trees);

// The CUDA an archive's or a wheel's file name says it was built for:
// "+cuda12.9" (NCCL's archives), ".cuda-12.9" (TensorRT's), "_cu12"/"-cu12" (a wheel's, the major alone).
std::optional<CudaVersion> cuda_in_archive_name(std::string_view file_name);

// The release an archive's or a wheel's file name says: the first dotted
// number after a '-' or '_' (nccl_2.27.5-1+cuda12.9_x86_64.txz,
// nvidia_nccl_cu12-2.27.5-py3-none-manylinux2014_x86_64.whl: 2.27.5).
std::optional<Version> release_in_archive_name(std::string_view file_name);

// An archive source that yields only the entries `rename` keeps, each under
// the name it returns (hard-link targets renamed alike; a hard link to an
// entry not kept is an error); folders are made as files need them. What a
// row's ComponentTrees::kept_entries is made of.
std::unique_ptr<ArchiveSource> renamed_entries(std::unique_ptr<ArchiveSource> inner,
                                               std::function<std::optional<std::string>(std::string_view name)> rename);

// The trees named beside a cuDNN tree, by row (the runtime's, NCCL's): what
// a launcher, a kernel or a shim pins with it.
using BesideNames = std::map<TreeKind, std::string>;
// Those as `cudnnenv exec` takes them, in the table's order: {"--runtime",
// "cuda-12.4.1", "--nccl", "nccl-2.26.2"} (each row's flag is its JSON key).
std::vector<std::string> beside_flags(const BesideNames& names);

// A selection's trees in the table's order: `cudnn`, then those beside it
// (the CUDA runtime's, when one is selected).
std::vector<const TreeRecord*> pinned_trees(const TreeRecord& cudnn, const std::vector<TreeRecord>& beside);

}  // namespace cudnnenv
