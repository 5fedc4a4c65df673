// Version specs: "8", "8.1", "8.1.0", "8.1.0.77", each optionally
// "+cuda11.2", or a tree's folder name. A spec picks the newest installed
// tree that fits, matching whole components: "8.1" never selects 8.10.x.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/version.hpp"
#include "store/tree.hpp"
#include "util/result.hpp"

namespace cudnnenv {

struct Spec {
  std::string text;             // as given
  std::vector<int> components;  // 1 to 4 numbers; empty when the spec can only be a name
  std::optional<CudaVersion> cuda;
};

// Parses `text`; `cuda` (from --cuda or a file's cuda key) adds a CUDA
// qualifier, and must agree with one written in the spec itself.
// "v9.19", "cudnn9", "cuDNN-9.1.0+cuda12", a version as a tag or a package
// name writes it: the spec meant ("9.19", "9", "9.1.0+cuda12"); else none.
std::optional<std::string> version_without_prefix(std::string_view text);

Result<Spec> parse_spec(std::string_view text, std::optional<std::string_view> cuda = std::nullopt);

// The hint for a store with nothing that fits: the command that fetches the
// newest official release for this host, as it runs ("'cudnnenv install 9.19
// --cuda 13.0' fetches cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz
// from NVIDIA"), with `cuda` major ("12") the newest release for it.
std::string install_suggestion(const std::optional<int>& cuda_major = std::nullopt);

// The command that fetches `release`'s official archive for this host, as
// install_suggestion words it (the newest release when the list has none of
// `release`).
std::string release_suggestion(const Version& release);

// "cudnnenv install 9.21.0 --cuda 13": the command that fetches `release`'s
// official archive for this host (for CUDA `cuda_major` when given); empty
// when the list has none.
std::optional<std::string> release_install_command(const Version& release,
                                                   std::optional<int> cuda_major = std::nullopt);

// Whether `tree` fits `spec` by version and CUDA (not by name).
bool fits(const Spec& spec, const TreeRecord& tree);

// The tree named exactly `spec.text`, else the newest that fits. Errors: none
// fits (exit 3, listing what is installed and how to install what was
// asked), or the newest fits come from two CUDA majors (naming both).
// newest: the newest tree that fits (use, exec, current...); strict: exactly
// one tree must fit (remove). An ambiguous spec exits 2 either way.
enum class Match { newest, strict };
Result<TreeRecord> select_tree(const std::vector<TreeRecord>& trees, const Spec& spec, Match match = Match::newest);

}  // namespace cudnnenv
