// Containers' door: a Container Device Interface spec (`export cdi`), one
// device per tree and per profile, read by podman, containerd, CRI-O, Docker
// and SingularityCE. A device's edits bind-mount its trees read-only at
// /opt/cudnnenv/<tree> and the audit module at /opt/cudnnenv/lib, and set the
// pin's variables (CUDNNENV_PIN_DIR, CUDNNENV_RUNTIME_DIR, LD_AUDIT) with the
// tree's CUDNN_* variables: the launch environment exec gives a program, with
// container paths. Never LD_LIBRARY_PATH or PATH: a CDI variable replaces the
// container's own, and the audit module alone sends every cuDNN name (and a
// runtime name its folder holds) to the tree. A musl image ignores LD_AUDIT.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "integrate/change.hpp"
#include "select/resolve.hpp"
#include "store/store.hpp"
#include "store/tree.hpp"
#include "util/result.hpp"

namespace cudnnenv {

inline constexpr std::string_view k_cdi_kind = "cudnnenv.dev/cudnn";
inline constexpr std::string_view k_cdi_version = "0.5.0";  // what podman 4.3 (Debian 12) reads
inline constexpr std::string_view k_cdi_file = "cudnnenv.dev-cudnn.json";
// In a device's environment: each tree it mounts, "name@installed_at", joined
// by ','; what doctor compares with the store.
inline constexpr std::string_view k_cdi_trees_variable = "CUDNNENV_CDI_TREES";

// One device: its name (a tree's or a profile's), the cuDNN tree and the
// trees beside it (Selection::beside: the CUDA runtime).
struct CdiDevice {
  std::string name;
  TreeRecord tree;
  std::vector<TreeRecord> beside;
  std::vector<std::pair<std::string, std::string>> variables;  // a profile's (selection_variables)
};

// Whether CDI takes `name` as a device name (a letter or digit, then letters,
// digits, '_', '-', '.', ':'); cudnnenv also requires it of the names of the
// trees it mounts, which become container paths.
bool is_cdi_name(std::string_view name);

// The spec's JSON text for `devices`, mounting `audit_module`. Fails (exit
// code 2) for a device or tree name CDI or a container path cannot take, and
// for two devices of one name.
Result<std::string> cdi_spec(const std::vector<CdiDevice>& devices, const std::filesystem::path& audit_module);

// Writes the spec into `folder` (k_cdi_file), replacing the one an earlier
// export wrote there.
Result<FileChanges> write_cdi_spec(const std::filesystem::path& folder, const std::string& text);

// The folders container engines read specs from (podman, containerd, CRI-O).
std::vector<std::filesystem::path> cdi_folders();

// The JSON spec files in `folders`, sorted, up to 1 MiB each: what doctor
// checks and a refresh reads.
std::vector<std::pair<std::filesystem::path, std::string>> find_cdi_specs(
    const std::vector<std::filesystem::path>& folders = cdi_folders());

// The selection of a spec as `exec --cudnn SPEC` pins it.
using SelectSpec = std::function<Result<Selection>(const std::string& spec)>;

// The device of `spec`: named by the profile it names, else by the tree it chose.
Result<CdiDevice> cdi_device(const std::string& spec, const SelectSpec& select);

// What `export cdi` exports: the devices of `specs`, or with `all` each tree
// of the store (with its trees beside it) and each profile an installed tree
// runs (a tree whose name CDI cannot take is left out, said to `warn`).
// Refuses a tree another user can change: the engine (root) would mount
// whatever they put there.
Result<std::vector<CdiDevice>> cdi_devices(const Store& store, const std::vector<std::string>& specs, bool all,
                                           const SelectSpec& select, const WarningSink& warn);

// A spec of ours that mounted a tree that is gone or was installed again
// (`remove`, then `install` of the name), written again as NVIDIA's
// nvidia-cdi-refresh does: each device that mounted the tree named again as
// it resolves now (a profile may now pin another tree), one that no longer
// resolves dropped, every other device kept as written (another store's); a
// spec left with no device is removed. Where the file cannot be written
// (another user's /etc/cdi), `refused` says why and `command` is what writes it.
struct CdiRefresh {
  std::filesystem::path file;
  std::vector<std::string> dropped;  // device names
  FileChanges changes;
  std::optional<std::string> refused;
  std::string command;  // cudnnenv export cdi NAME... -o FOLDER, or rm FILE
  // For the terminal: what the refresh did to the devices, or, refused, what
  // fails now and the command that mends it.
  std::optional<std::string> note;
  std::optional<std::string> warning;
};

// The specs of ours in `folders` with a device that mounts `tree_root` (the
// real path of the tree `name`, removed or installed again), each refreshed.
std::vector<CdiRefresh> refresh_cdi_specs(const std::filesystem::path& tree_root, const std::string& name,
                                          const SelectSpec& select, const std::filesystem::path& audit_module,
                                          const std::vector<std::filesystem::path>& folders = cdi_folders());

// A device of our kind read back from a spec file: what doctor checks.
struct CdiDeviceRecord {
  std::string name;
  std::vector<std::string> host_paths;                     // each mount's hostPath
  std::vector<std::pair<std::string, std::string>> trees;  // name, installed_at (k_cdi_trees_variable)
};

// The devices of `text` when it is a spec of our kind; an empty list for a
// spec of another kind; an error for text that is no spec.
Result<std::vector<CdiDeviceRecord>> read_cdi_spec(std::string_view text);

}  // namespace cudnnenv
