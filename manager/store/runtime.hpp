// CUDA runtime trees: the libraries of one CUDA release (cudart, cuBLAS and
// cuBLASLt, cuFFT, cuRAND, cuSOLVER, cuSPARSE, NVRTC, nvJitLink from 12 on)
// that frameworks open by name beside cuDNN. What a runtime tree holds, how
// NVIDIA's component archives become one, and which manifests are pinned.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/archive.hpp"
#include "formats/platform.hpp"
#include "formats/redist.hpp"
#include "formats/version.hpp"
#include "store/component.hpp"
#include "store/layout.hpp"
#include "store/tree.hpp"
#include "util/result.hpp"

namespace cudnnenv {

// Where NVIDIA publishes the manifests and the component archives.
inline constexpr std::string_view k_cuda_redist_url = "https://developer.download.nvidia.com/compute/cuda/redist/";

// A manifest whose SHA-256 is embedded (data/cuda-manifests.tsv).
struct PinnedManifest {
  std::string release;  // "11.8.0"
  std::string sha256;
};
const std::vector<PinnedManifest>& pinned_manifests();

// "redistrib_11.8.0.json"
std::string manifest_file_name(const std::string& release);

// The runtime archives of a pinned release as its manifest lists them
// (data/cuda-archives.tsv), for `platform` (redist_platform's form), in the
// table's order; empty when the table does not hold that release there.
// What an offline hint names before the manifest is here.
std::vector<RedistArchive> pinned_runtime_archives(const std::string& release, std::string_view platform);

// The components a runtime tree of CUDA `major` is made of, in install order;
// cuda_cupti is optional (the profiler) and not among them.
std::vector<std::string> runtime_components(int major);

// Whether `file_name` is a CUDA runtime library a framework opens by name:
// libcudart.so.13, libcublasLt.so.12, cublas64_11.dll, cudart64_110.dll,
// nvrtc64_120_0.dll, nvJitLink_120_0.dll, cupti64_2023.1.1.dll...
bool is_runtime_library_name(std::string_view file_name, Os os);

// The CUDA major a runtime library's file name belongs to, of those that
// ship it: libcublas.so.12 -> 12, cudart64_110.dll -> 11, libcufft.so.11 ->
// 12; a name several majors ship (libcurand.so.10: 11, 12 and 13) gives
// `prefer` when it is one of them, else the newest. Empty for a name that is
// no runtime library's.
std::optional<int> cuda_major_of_library(std::string_view file_name, std::optional<int> prefer = std::nullopt);

// The path an entry of a component archive keeps in the runtime tree, after
// the archive's top folder: Linux `lib/<name>` for a shared library (or a
// link to one) directly in lib/ (never lib/stubs/: a stub libcuda.so there
// would hide the driver); Windows `bin/<name>` for a DLL anywhere under bin/;
// `licenses/<component>.txt` for the LICENSE. Nothing else is kept.
std::optional<std::string> runtime_entry_path(std::string_view inside, const std::string& component, Os os);

// An archive source that yields only what runtime_entry_path keeps, under
// its new name (hard-link targets renamed alike).
std::unique_ptr<ArchiveSource> runtime_entries(std::unique_ptr<ArchiveSource> inner, std::string component, Os os);

// The layout of a runtime tree at `root` (a store tree, or a folder to adopt:
// a toolkit's lib64/ or bin/, a pip nvidia/cu13/lib, a conda Library/bin):
// the folder that holds libcudart (searched no deeper than 3 levels), the
// CUDA major its name says. Fails when there is no cudart, or two folders
// with one.
Result<TreeLayout> locate_runtime_layout(const std::filesystem::path& root, Os os);

// The runtime library files directly in `library_dir`, sorted.
std::vector<std::string> runtime_library_files(const std::filesystem::path& library_dir, Os os);

// The folders under `root` (itself and up to three levels down, never
// `stubs`) that hold runtime library files, sorted: one for a toolkit's lib64
// or NVIDIA's CUDA 13 wheel (nvidia/cu13/lib); one per component for the
// CUDA 12 wheels (nvidia/cublas/lib, nvidia/cuda_runtime/lib, ...).
std::vector<std::filesystem::path> runtime_library_folders(const std::filesystem::path& root, Os os);

// A runtime library a runtime folder lacks while one of its libraries needs
// it (ELF DT_NEEDED, PE import): libcublas.so.13 needs libcublasLt.so.13.
struct UnmetNeed {
  std::string name;                    // the library lacked
  std::vector<std::string> needed_by;  // the folder's libraries that need it, sorted
};

// What the runtime libraries directly in `library_dir` need of the runtime's
// own libraries (is_runtime_library_name) that the folder does not hold, by
// name, sorted; empty for a whole runtime. A program started with such a
// folder pinned would load that library from elsewhere (a mixed runtime) or
// fail. Reads the libraries' tables; a file that cannot be read adds nothing.
std::vector<UnmetNeed> unmet_runtime_needs(const std::filesystem::path& library_dir, Os os);

// The same for the runtime library files `files` (name -> path) taken as
// one folder.
std::vector<UnmetNeed> unmet_runtime_needs(const std::map<std::string, std::filesystem::path>& files, Os os);

// "libcublasLt.so.13 (needed by libcublas.so.13)", joined with ", ".
std::string describe_unmet(const std::vector<UnmetNeed>& unmet);

// What a start without the check does with those loads: on Linux the audit
// module's fence fails them; Windows has no fence for the runtime, and its
// loader takes the file from wherever it finds one.
std::string unmet_loads_unchecked(const std::vector<UnmetNeed>& unmet, Os os);

// Whether a runtime in `runtimes` other than `tree`, of its release (the
// major, and the minor where it is known), holds every file
// of `unmet`: the donor `adopt --heal` completes `tree` from.
bool has_heal_donor(const TreeRecord& tree, const std::vector<UnmetNeed>& unmet,
                    const std::vector<TreeRecord>& runtimes);

// The commands that make runtime tree `tree` whole again: an adopted one
// re-adopted with --heal under its name (the missing files from a whole
// runtime of the same release in the store; without such a `donor`, that
// release installed first), an installed one installed again.
std::string runtime_heal_hint(const TreeRecord& tree, bool donor);
// The command of that hint alone.
std::string runtime_heal_command(const TreeRecord& tree, bool donor);

// "cuda-13.0.2"; for a release known only by its major, "cuda-13".
std::string default_runtime_name(const Version& release, bool major_only);

// Whether runtime tree `tree` is what `asked` names ("11.8" matches 11.8.0
// and 11.8.89, "13" any 13.x; whole components).
bool runtime_matches(const TreeRecord& tree, const CudaVersion& asked);

// The runtime tree `text` names, of `runtimes`: a tree's name, a full
// release ("13.0.2": that one), or a CUDA version ("13.0", "13": the newest
// that matches).
std::optional<TreeRecord> find_runtime(const std::vector<TreeRecord>& runtimes, std::string_view text);

// Whether `text` is a full CUDA release, three numbers ("13.0.2").
bool is_cuda_release(std::string_view text);

// The runtime tree for a selection: of `runtimes`, the newest that matches
// `asked` when given, else the newest of CUDA major `major`.
std::optional<TreeRecord> choose_runtime(const std::vector<TreeRecord>& runtimes,
                                         const std::optional<CudaVersion>& asked, std::optional<int> major);

}  // namespace cudnnenv
