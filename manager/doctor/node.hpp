// Another machine's facts, from a snapshot taken there (`cudnnenv snapshot
// -o FILE` on the compute node): its platform, driver, GPUs and toolkits.
// With `--facts FILE`, a login node or a CI runner plans for that node:
// doctor checks the driver and the GPUs there, install picks the archive
// that runs there, frameworks --solve picks among those. Snapshots are files
// anyone may hand over: one is read as a snapshot (its depth counted before
// parsing) and its values are kept printable.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/facts.hpp"
#include "store/official.hpp"
#include "store/spec.hpp"
#include "util/result.hpp"

namespace cudnnenv {

struct NodeFacts {
  std::string origin;    // the file, as given
  std::string taken_at;  // the snapshot's
  Platform platform;
  DriverInfo driver;
  std::vector<ToolkitInfo> toolkits;

  // "the node of 'h100.json' (Linux x86_64, driver 580.159.04 running CUDA 13.0, NVIDIA H100 80GB HBM3 9.0)"
  std::string describe() const;
};

// A snapshot's node facts; an error (exit 2) for text that is not a
// snapshot, or one for a platform cudnnenv does not know.
Result<NodeFacts> read_node_facts(std::string_view snapshot, const std::string& origin);

// The same, from the file `file` (as given on the command line).
Result<NodeFacts> read_node_facts_file(const std::string& file);

// `facts` with the node's platform, driver, GPUs and toolkits in place of
// this machine's; Facts::node names it.
void apply_node_facts(Facts& facts, const NodeFacts& node);

// Why `tree` (a cuDNN of `tree.platform`, or an archive's record for the
// node's platform with `check_platform` false) would not run on the node:
// another platform, a driver too old for its CUDA major, a GPU it has no
// code for; empty when it runs there (or nothing says otherwise).
std::string fails_on_node(const TreeRecord& tree, const NodeFacts& node, bool check_platform = true);

// The archive `spec` (with `cuda`) names for the node: the newest release
// and CUDA variant that runs there (of a release's variants, the one whose
// CUDA major the node's first toolkit has, else the newest its driver runs).
// `passed` says each newer archive left aside and why.
struct NodeChoice {
  const OfficialArchive* archive = nullptr;
  std::vector<std::string> passed;
};
Result<NodeChoice> choose_archive_for_node(const Spec& spec, const std::optional<CudaVersion>& cuda,
                                           const NodeFacts& node);

}  // namespace cudnnenv
