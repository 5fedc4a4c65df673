// Proving a tree works, in levels, each including the one before:
//   files  expected set present, every file as installed (size, SHA-256),
//          binaries built for the tree's platform, header version as recorded;
//   load   in a child: the main library loads by absolute path and reports the
//          recorded version and CUDA major; every sub-library loads;
//   conv   in a child: a convolution on the GPU matches a CPU reference.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "probe/probe.hpp"
#include "probe/protocol.hpp"
#include "store/tree.hpp"
#include "util/environment.hpp"
#include "util/fs.hpp"
#include "util/names.hpp"

namespace cudnnenv {

enum class VerifyLevel { files, load, conv };

// --level's words, lowest first: parsing, the CLI's check, completion and
// JSON read this table.
inline constexpr util::Named<VerifyLevel> k_verify_levels[] = {
    {VerifyLevel::files, "files"}, {VerifyLevel::load, "load"}, {VerifyLevel::conv, "conv"}};
static_assert(util::covers_each_once(k_verify_levels, 3));

enum class CheckStatus { ok, failed, skipped };

struct VerifyCheck {
  std::string name;
  CheckStatus status = CheckStatus::ok;
  std::string detail;
};

// One GPU's part of a check of several (`--device all`, `--device 0,2`).
struct DeviceResult {
  int index = 0;
  probe_protocol::GpuReport gpu;         // its lines: name, compute capability, times, errors
  CheckStatus status = CheckStatus::ok;  // skipped: busy (held by another process) or not usable
  std::string detail;                    // why it failed or was skipped
};

struct VerifyReport {
  std::vector<VerifyCheck> checks;
  probe_protocol::GpuReport gpu;      // what the GPU check reported (with several GPUs: the run's lines)
  bool gpu_unavailable = false;       // the conv level was skipped: no GPU or driver
  std::vector<DeviceResult> devices;  // several GPUs asked for: one each, in the order asked
  // When the tree's files are gone or changed: the commands that put it back
  // from the source its record names, and what that source is.
  std::string fix;
  std::string fix_source;

  bool passed() const;
};

struct VerifyOptions {
  VerifyLevel level = VerifyLevel::load;
  std::filesystem::path probe_program;  // cudnnenv-probe
  // The GPUs of the conv level: an index, `all` or a list (`0,2,5`), as
  // probe_protocol::parse_device_choice reads it; a list or `all` fills
  // VerifyReport::devices.
  std::string devices = "0";
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  util::Environment environment = util::Environment::current();  // for the dependency search (PATH, LD_LIBRARY_PATH)
  // The CUDA runtime tree selected with a cuDNN tree (empty: none): its
  // folder is searched right after the tree's, by the loads and by the
  // dependency search, as exec runs a program (cuDNN 8's libraries import
  // cuBLAS).
  std::filesystem::path runtime_dir;
  // Whether a tree another user could change (changeable_by_others of the
  // tree, or of runtime_dir) is never loaded: its load check fails saying
  // why. On for root, whose doors (slurm health, the task prolog, verify,
  // doctor) would otherwise run that user's code as root.
  bool load_only_unchangeable = util::running_as_root();
  // The store's runtime trees: an incomplete runtime's fix heals it from one
  // of its release when one is there (empty: it installs that release first).
  std::vector<TreeRecord> store_runtimes;
};

VerifyReport verify_tree(const TreeRecord& tree, const VerifyOptions& options);

// What the libraries of `tree` need (their import tables: ELF DT_NEEDED,
// PE imports) that the loader would find nowhere: the library's folder,
// `runtime_dir`, then the search path of `environment`. One line per missing
// name, the libraries that need it together, as verify words it
// ("cudnn_ops_infer64_8.dll and cudnn_cnn_infer64_8.dll need cublas64_11.dll:
// not in ..."), the hints once, on the first; empty when every one is found. Reads files, starts nothing:
// exec's check before a start runs it, where a load of each would cost a
// process.
std::vector<std::string> missing_dependencies_of_set(const TreeRecord& tree, const util::Environment& environment,
                                                     const std::filesystem::path& runtime_dir);

// `environment` with `runtime_dir` (when not empty) in front of the loader's
// search path (PATH, LD_LIBRARY_PATH): where a dependency search looks when
// the tree's folder is searched first and the runtime's next, as exec runs
// a program.
util::Environment with_runtime_folder(util::Environment environment, const std::filesystem::path& runtime_dir);

// The one load check of a tree's main library (`verify --level load`, and the
// check `exec` and the shims' slow path run before a start): in a child, it
// loads by absolute path, the loader maps the tree's own file, and it reports
// the tree's release. `probed` is what the child reported, when it loaded.
struct MainLoadCheck {
  VerifyCheck check;
  std::optional<ProbeReport> probed;
};
MainLoadCheck check_main_library(const TreeRecord& tree, const std::filesystem::path& probe_program,
                                 std::chrono::milliseconds timeout, const std::filesystem::path& runtime_dir = {});

// Plain words for a known cause in the GPU check's error text (cuDNN status
// names, CUDA driver messages), or empty: an architecture the build lacks,
// a driver older than the CUDA runtime, no memory left.
std::string plain_cause(std::string_view error_text);

std::string to_string(VerifyLevel level);
std::string to_string(CheckStatus status);

}  // namespace cudnnenv
