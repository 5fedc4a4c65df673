// The store: side-by-side cuDNN trees under one root, each described by its
// own record. Installs are staged, checked, then renamed into place, under a
// lock per tree name, so that a killed install leaves no visible tree and
// concurrent installs of one archive end with one tree.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "formats/platform.hpp"
#include "probe/probe.hpp"
#include "store/component.hpp"
#include "store/extract.hpp"
#include "store/state.hpp"
#include "store/tree.hpp"
#include "util/environment.hpp"
#include "util/fs.hpp"
#include "util/result.hpp"

namespace cudnnenv {

namespace store_detail {
struct AdoptedFolders;
struct VersionFacts;
}  // namespace store_detail

enum class RequireOfficial { no, yes };

using WarningSink = std::function<void(const std::string& message)>;

// A library the package carries for releases that open it by name but do
// not ship it (loaded_at_run_time): zlibwapi.dll for cuDNN 8.3-8.9 on Windows.
struct CarriedLibrary {
  std::filesystem::path file;
  std::string component;  // the name a tree's record gives it: "zlibwapi"
  std::string version;    // "zlib 1.2.13"
};

// What the package carries beside `program` (cudnnenv's own executable):
// on Windows `zlib/zlibwapi.dll`, Debian's zlib (libz-mingw-w64) linked into
// a DLL of that name by the build (cmake/zlibwapi.c), when it is there.
std::vector<CarriedLibrary> carried_libraries_beside(const std::filesystem::path& program);

struct InstallOptions {
  std::optional<std::string> name;  // the tree's folder name; default: the archive's name
  // Copied into a tree's library folder that lacks one of these names its
  // release opens by name, hashed with the tree's files and named in its
  // record's components.
  std::vector<CarriedLibrary> carried;
  RequireOfficial require_official = RequireOfficial::no;
  // The SHA-256 the caller checked the file against (a download): the bytes
  // unpacked must have it, or nothing is installed.
  std::string expected_sha256;
  Platform platform = host_platform();  // what the tree must be built for
  ProbeFunction probe;                  // reads a library's version; empty: never load anything
  WarningSink warn;                     // may be empty
  ExtractLimits limits;                 // source_size is filled in by install
  UnpackProgress unpack_progress;       // may be empty
};

enum class InstallStatus { installed, already_installed };

struct InstallOutcome {
  InstallStatus status = InstallStatus::installed;
  TreeRecord record;
};

struct AdoptOptions {
  std::optional<std::string> name;
  // A folder lacking libraries of its release: a store folder of links to
  // its files plus the missing ones from a store tree of the same release and
  // CUDA (hard links, else copies), never another build's.
  bool heal = false;
  Platform platform = host_platform();
  ProbeFunction probe;
  WarningSink warn;
};

struct Listing {
  std::vector<TreeRecord> trees;  // cuDNN trees, newest version first
  // The other components' trees (CUDA runtime trees), in the component
  // table's order, each component's newest release first.
  std::vector<TreeRecord> beside;
  std::vector<TreeRecord> of(TreeKind kind) const;  // beside's of one component: runtimes()
  std::vector<TreeRecord> runtimes() const { return of(TreeKind::cuda); }
  std::vector<Error> damaged;          // folders with a record that cannot be read
  std::vector<std::string> unmanaged;  // folders without a record
};

class Store {
 public:
  // `state`: this user's state folder; default <root>/.cudnnenv. `personal`:
  // this user's own store over `root`, which this user cannot write.
  explicit Store(std::filesystem::path root, std::optional<std::filesystem::path> state = std::nullopt,
                 std::optional<std::filesystem::path> personal = std::nullopt);

  // The store at `root` with this user's state folder (state_folder_for) and,
  // when this user cannot write it (a cluster's shared store), the user's
  // personal store over it (personal_root_for), as pyenv has system and user
  // versions: list and every lookup see the user's trees first, each marked
  // (TreeRecord::personal), a tree of the user's shadowing one of the same
  // name; install and adopt go there, and remove of the user's trees works.
  static Result<Store> open(std::filesystem::path root, const util::Environment& environment, Os os);

  // This user's own store: $XDG_DATA_HOME/cudnnenv, else ~/.local/share/cudnnenv
  // (%LOCALAPPDATA%\cudnnenv\trees on Windows); nothing without an absolute folder.
  static std::optional<std::filesystem::path> personal_root_for(const util::Environment& environment, Os os);
  // The personal store over this one, if any.
  const std::optional<std::filesystem::path>& personal_root() const { return m_personal; }

  // CUDNNENV_ROOT, else C:\libs on Windows, else $XDG_DATA_HOME/cudnnenv,
  // else ~/.local/share/cudnnenv.
  static std::filesystem::path default_root(const util::Environment& environment, Os os);

  const std::filesystem::path& root() const { return m_root; }

  // Installs an official archive (.zip, .tar.xz, .tgz), a wheel or a folder.
  Result<InstallOutcome> install(const std::filesystem::path& source, const InstallOptions& options);

  // Registers a tree that stays where it is.
  Result<TreeRecord> adopt(const std::filesystem::path& directory, const AdoptOptions& options);

  // A tree of a component beside cuDNN (options.kind, as the component
  // table's ComponentTrees says: a CUDA runtime tree) from its release's
  // archives: only what each keeps (the shared libraries and each LICENSE)
  // in one folder (lib/ on Linux, bin/ on Windows), each file hashed in the
  // record. The same manifest installed again is "already installed".
  Result<InstallOutcome> install_component(const std::vector<ComponentArchive>& archives,
                                           const ComponentInstallOptions& options);

  // Registers a tree of `kind` that stays where it is (a CUDA runtime: a
  // toolkit's lib64/ or bin/, a Python environment's nvidia/cu13/lib; split
  // wheels, one folder per part, become one folder of links); its libraries hashed.
  Result<TreeRecord> adopt_component(TreeKind kind, const std::filesystem::path& directory,
                                     const AdoptOptions& options);

  // Every tree's record. The identity listing (what selection reads) is
  // read once per Store and kept until this Store adds or removes a tree.
  Listing list(RecordPart part = RecordPart::everything) const;

  // Where this user's state lives: config.toml (use --global), trusted/,
  // caches, shims, downloads, the cmd and profile scripts. <root>/.cudnnenv,
  // or, for a store this user cannot write (a shared one on a cluster), a
  // folder of the user's own (state_folder_for).
  const StatePaths& state() const { return m_state; }

  // <root>/.cudnnenv, the store's own: its config.toml (a shared store's
  // default for every user), staging, locks, trash.
  StatePaths own() const { return StatePaths{state_dir()}; }
  // Whether this user's state is the store's own folder (not a shared store's user).
  bool state_is_own() const { return m_state.folder == state_dir(); }

  // A tree by folder name, or by version prefix matched on whole components
  // ("8.1" matches 8.1.0.77, never 8.10.0); errors list what is installed.
  // A runtime tree by its name ("cuda-11.8.0"), or "cuda-11.8" / "cuda 11.8"
  // for the one of that release.
  Result<TreeRecord> find(const std::string& spec) const;

  // The whole record (file manifest included) of `tree`, a tree of this
  // store found by any lookup: read from the store's folder of that name,
  // also for an adopted tree, whose files live elsewhere. Fails for a tree
  // that is not in the store (a trusted `path = ...`).
  Result<TreeRecord> full_record(const TreeRecord& tree) const;

  // Deletes what killed installs and removes left in the store (a staging
  // folder no install holds, the trash); returns the bytes freed.
  std::uint64_t clean_leftovers() const;

  // Deletes a store tree, or forgets an adopted one (its files stay).
  Result<void> remove(const TreeRecord& record);
  // Whether this user can change the store (its root and its state folder):
  // an error naming the store and `what` could not be done (e.g. "remove
  // 't91'") when not.
  Result<void> check_writable(const std::string& what) const;

 private:
  // install's and install_component's work; their errors are read again when the store's folder went meanwhile.
  Result<InstallOutcome> install_source(const std::filesystem::path& source, const InstallOptions& options);
  Result<InstallOutcome> install_component_archives(const std::vector<ComponentArchive>& archives,
                                                    const ComponentInstallOptions& options);
  std::filesystem::path state_dir() const;
  Result<void> prepare() const;
  // An error when another user can change the store's own folder
  // (own_folder_changeable_by_others): `what` is what cannot be done.
  Result<void> check_own_folder(const std::string& what) const;
  // Held by an adopt from its "already adopted" check to its publishing.
  Result<util::FileLock> adoption_lock() const;
  // The last steps of every adopt: under the name's lock, the next free name
  // unless the user `named` it, the record published in the store; the
  // tree's files stay in `location`.
  // A component's libraries in several folders (a Python environment's
  // split CUDA wheels: nvidia/cublas/lib, nvidia/cuda_runtime/lib, ...) as
  // one tree: a store folder of links to each library where it is; `found`
  // is the layout of its main library's folder.
  Result<TreeRecord> adopt_component_folders(TreeKind kind, const std::filesystem::path& location,
                                             const TreeLayout& found, const AdoptOptions& options);
  Result<TreeRecord> publish_adopted(TreeRecord record, bool named, const std::filesystem::path& location);
  // A store folder of links for `record`: under the name's lock, the next
  // free name unless the user `named` it, `fill` given the library folder
  // of a staging tree, then published; record.root is the new folder.
  Result<void> publish_links(TreeRecord& record, bool named,
                             const std::function<Result<void>(const std::filesystem::path& links)>& fill);
  // adopt --heal of a runtime folder (or split wheels' folders) at
  // `location`, whose libraries are `own` (name -> file): a store folder of
  // links to them plus those they need and it lacks, from a store runtime of
  // the same release.
  Result<TreeRecord> heal_component(TreeKind kind, const std::filesystem::path& location, const TreeLayout& found,
                                    const std::map<std::string, std::filesystem::path>& own,
                                    const AdoptOptions& options);
  // adopt --heal of `found` (release `versions`), which lacks `missing`.
  Result<TreeRecord> heal_adopted(const store_detail::AdoptedFolders& found, const store_detail::VersionFacts& versions,
                                  const std::vector<std::string>& missing, const AdoptOptions& options);
  // `base`, else `base-2`, `base-3`...: the first no folder of the store has.
  std::string free_tree_name(const std::string& base) const;

  // The store that takes this user's writes: the personal one when there is one.
  Store personal_store() const;
  // The trees of the folder `root` (this store's, or the personal one's).
  Listing list_folder(const std::filesystem::path& root, RecordPart part) const;

  std::filesystem::path m_root;
  StatePaths m_state;
  std::optional<std::filesystem::path> m_personal;
  mutable std::optional<Listing> m_identities;
};

// Whether `name` can be a tree folder's name on every OS.
Result<void> check_tree_name(const std::string& name);

// A tree's default name, one scheme for install, wheels and adopt: its
// version and the CUDA it was built for, "9.19.0.56-cuda13", "8.1.0.77-cuda11.2"
// (the variant the archive's or wheel's name says, else the major of the
// cudart its library reports); without a known CUDA, the version alone.
// A second tree of the same name gets "-2", "-3".
std::string default_tree_name(const Version& version, const std::optional<CudaVersion>& cuda);

// What the tree would have been named before that scheme (the archive's or
// folder's stem; "cudnn-9.14.0-cuda-13.0" for an adopted tree): specs that
// name it so still select it.
std::vector<std::string> former_names(const TreeRecord& tree);

}  // namespace cudnnenv
