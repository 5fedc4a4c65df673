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
#include <string>
#include <string_view>
#include <vector>

#include "integrate/change.hpp"
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
