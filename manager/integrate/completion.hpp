// The candidates tab completion offers for a value, read from the store, the
// official list, the pinned CUDA manifests, the profiles and PATH: each with
// what the shells that show one (zsh, fish, PowerShell) say beside it. The
// CLI's `__complete` walks the half-typed command line and asks for one kind.
#pragma once

#include <string>
#include <vector>

#include "store/store.hpp"
#include "util/environment.hpp"

namespace cudnnenv {

struct Candidate {
  std::string value;
  std::string description;
};
using Candidates = std::vector<Candidate>;

// What a spec can be here: the installed cuDNN trees (newest first), their
// versions ("9.1", then "9.1.0"), then this platform's profiles, first those
// an installed tree runs.
Candidates spec_candidates(const Store& store);
// The trees of a row beside cuDNN (--runtime, --nccl): their names, then their releases.
Candidates component_candidates(TreeKind kind, const Store& store);
// What `remove` takes: cuDNN trees and their versions, then every other row's trees.
Candidates removable_candidates(const Store& store);
// The official list's versions for this platform, oldest first: "9.1" (what
// `install 9.1` fetches), then each release.
Candidates official_version_candidates();
// The CUDA versions archives are built for (official list, installed trees), oldest first.
Candidates cuda_candidates(const Store& store);
// The CUDA releases `install cuda` and `mirror create --runtime` fetch (pinned manifests).
Candidates cuda_release_candidates();
// The profiles, those an installed tree runs first.
Candidates profile_name_candidates(const Store& store);
// The programs on PATH whose names start with `prefix`.
Candidates program_candidates(const std::string& prefix, const util::Environment& environment);
// The shims of the store, each with what it starts.
Candidates shim_candidates(const Store& store);

}  // namespace cudnnenv
