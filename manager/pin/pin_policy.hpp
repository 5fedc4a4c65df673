// The check before a pinned program starts (exec, shims): `none`, `load`
// (every file of the tree's manifest present with its size, the libraries
// cuDNN opens by name later found, and the main library loads by absolute
// path in a child, from that file, with the tree's version) or `conv` (the
// same, then verify up to the GPU check). A pass is remembered by the
// identity (size, modification time) of every file of the set, the main
// library's path and, for `conv`, the driver's, so a repeated launch costs a
// stat per file and a small file read.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "store/tree.hpp"
#include "util/environment.hpp"
#include "util/names.hpp"
#include "util/result.hpp"

namespace cudnnenv {

enum class LaunchPolicy { none, load, conv };

// --verify's, CUDNNENV_VERIFY's and [verify] on_launch's words: parsing, the
// CLI's check, the error's hint and completion read this table.
inline constexpr util::Named<LaunchPolicy> k_launch_policies[] = {
    {LaunchPolicy::none, "none"}, {LaunchPolicy::load, "load"}, {LaunchPolicy::conv, "conv"}};
static_assert(util::covers_each_once(k_launch_policies, 3));

std::string to_string(LaunchPolicy policy);

// First found wins: `option` (--verify), CUDNNENV_VERIFY, the project file's
// [verify] on_launch, else `load`. An unknown value is an error.
Result<LaunchPolicy> choose_launch_policy(const std::optional<std::string>& option,
                                          const util::Environment& environment,
                                          const std::optional<std::string>& project_value);

struct PinCheckOptions {
  LaunchPolicy policy = LaunchPolicy::load;
  std::filesystem::path probe_program;  // cudnnenv-probe
  std::filesystem::path cache_file;     // <root>/.cudnnenv/cache/pin-checks
  int device = 0;
  std::filesystem::path runtime_dir;  // the CUDA runtime tree selected with the tree: searched after its folder
  // The environment the program gets (LaunchPlan::environment): the search
  // for what each library needs looks where the program's loader will.
  util::Environment environment;
  // That runtime tree's full record, read only when the cached check does not
  // hold (the cache's key has the identity of each entry of `runtime_dir`):
  // its files are checked as the tree's are (a wheel uninstalled after
  // `adopt --runtime` leaves a dangling entry). Empty: no runtime.
  std::function<std::optional<TreeRecord>()> runtime;
  // The store's runtime trees, read only when that runtime is incomplete:
  // the fix heals it from one of its release when one is there.
  std::function<std::vector<TreeRecord>()> store_runtimes;
  // How the user who started it skips the check, or asks for the lighter
  // one, as the hints say it (a Slurm task: srun's --cudnn-verify).
  std::string skip_check = "--verify none";
  std::string load_check = "--verify load (or [verify] on_launch = \"load\")";
};

// The driver, by its library file's path and identity: a driver update
// replaces the file. What a cached `conv` pass depends on.
std::string driver_identity();

// Passes, or fails with exit code 4 saying what is wrong and how to see more.
// `tree` is the full record (Store::full_record): its manifest is the set.
Result<void> check_pin(const TreeRecord& tree, const PinCheckOptions& options);

class Store;
struct Selection;

// The check before a start of `selection` from `store`: `verify` (none, load,
// conv; empty: CUDNNENV_VERIFY in `process_environment`, else the project
// file's [verify] on_launch, else load) of `tree` as the program would load
// it with `environment` (the child's), on GPU `device`. `tree` gets its full
// record when a check reads its files. `slurm_task`: the hints name srun's
// --cudnn-verify rather than exec's --verify.
Result<void> check_before_start(const std::string& verify, int device, const Store& store, const Selection& selection,
                                const util::Environment& process_environment, const util::Environment& environment,
                                TreeRecord& tree, bool slurm_task = false);

}  // namespace cudnnenv
