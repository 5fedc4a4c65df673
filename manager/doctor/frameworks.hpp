// What each framework in an environment needs of cuDNN, and the one cuDNN
// that runs them all. A need comes from the framework's files (facts.hpp,
// never imported) or, probed, from the framework itself: each imported in a
// child of the Python that runs, under the launch environment, with a
// timeout, asked what its binary was built with (PyTorch's compile version,
// TensorFlow's build info, JAX's cuda_versions, ONNX Runtime's build info,
// CuPy's build version). Metadata (a wheel's Requires-Dist) can say less than
// the binary needs; a probe says what the binary needs.
//
// `cudnnenv frameworks` and doctor's `frameworks` check share this code.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/facts.hpp"
#include "doctor/node.hpp"
#include "store/official.hpp"
#include "util/environment.hpp"
#include "util/json.hpp"

namespace cudnnenv {

// How a framework compares the cuDNN it loads with the one it was built with.
enum class CudnnRule {
  minor_at_least,  // same major, the minor not older (TensorFlow, JAX/XLA, PyTorch on cuDNN 7+)
  same_minor,      // same major and minor (PyTorch before cuDNN 7)
};

struct CudnnNeed {
  std::string framework;  // "PyTorch", "TensorFlow", "JAX", "ONNX Runtime", "CuPy"
  std::string module;     // what a probe imports: "torch", "tensorflow", "jax", "onnxruntime", "cupy"
  std::string version;    // the framework's; empty when unknown
  std::filesystem::path location;
  // The cuDNN the binary was built with: `major` 0 when unknown (the need
  // then constrains nothing); no minor: any of the major (TensorFlow's build
  // info says "9").
  int major = 0;
  std::optional<int> minor;
  std::optional<int> patch;
  std::optional<int> cuda_major;  // the CUDA it was built for
  std::string cuda;               // as it says it ("12.5.1")
  CudnnRule rule = CudnnRule::minor_at_least;
  // Whether the framework checks at load and refuses with its own message;
  // false: it loads and fails at the first call cuDNN lacks (ONNX Runtime).
  bool checked_at_load = true;
  // False where the framework loads its own copy by full path whatever is
  // selected (PyTorch on Windows: torch\lib): it needs nothing of the selection.
  bool binds_selection = true;
  std::string source;  // where the need was read: "probe: torch._C._cudnn.getCompileVersion()", "files: ..."
  std::string
      metadata;  // its metadata's requirement, when that says other than the binary ("nvidia-cudnn-cu12>=9.1,<10")
  // Probed: the cuDNN that loaded in the child, and the framework's own words
  // when it refused it.
  std::optional<Version> loaded;
  std::string load_error;
  // Probed and failed: what happened ("timed out after 30 s", "killed by
  // signal 11 (SIGSEGV)", "exit code 1: ModuleNotFoundError: ..."); the need
  // is then the files'.
  std::string probe_failure;

  bool known() const { return major > 0; }
  std::string built_with() const;  // "9.8", "9.19.0", "9" (as known)
  // "cuDNN 9.8 or a newer 9.x", "cuDNN 9.x", "cuDNN 7.1 exactly (7.1.x)"; with the CUDA major when known.
  std::string wants() const;
  // "JAX 0.6.2", "PyTorch 2.11.0+cu130", "ONNX Runtime ?"
  std::string label() const;
};

// Whether a cuDNN `cudnn` built for `cuda` (absent: unknown) runs `need`;
// else why not, in words ("needs cuDNN 9.8 or a newer 9.x; 9.5.1 is older").
bool runs(const CudnnNeed& need, const Version& cudnn, const std::optional<CudaVersion>& cuda,
          std::string* why = nullptr);

// The needs the frameworks' files say (find_frameworks), TensorFlow's minor
// from its profile (tfX.Y: the tested pair its binary was built with).
std::vector<CudnnNeed> needs_from_files(const std::vector<FrameworkInfo>& frameworks,
                                        const std::vector<Profile>& profiles, Os os);

// TensorFlow `version`'s profile (tf2.18 for 2.18.0) among `profiles` for `os`.
std::optional<Profile> tensorflow_profile(const std::vector<Profile>& profiles, Os os, const std::string& version);

struct ProbeRequest {
  std::filesystem::path python;   // the program that runs (facts.program.target)
  util::Environment environment;  // the launch environment the frameworks load under
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
};

// Probes each need (one child per framework) and puts what the framework
// said in its place; a child that hangs, crashes or says nothing readable
// leaves the files' need with `probe_failure` set.
void probe_needs(std::vector<CudnnNeed>& needs, const ProbeRequest& request);

// What the frameworks of `facts` need of cuDNN: from their files, and with
// `probe` from each framework in a child of the Python that runs, under the
// selection's launch environment (from `environment`, this process's),
// `timeout_seconds` each.
std::vector<CudnnNeed> framework_needs(const Facts& facts, const util::Environment& environment, bool probe,
                                       double timeout_seconds);

// Reads a probe child's stdout into `need` (the last "cudnnenv-probe:" line);
// an error for output without one, or one that is not the JSON it writes.
Result<void> apply_probe_output(std::string_view out, CudnnNeed& need);

// One cuDNN the needs could run on: an installed tree or an archive of the
// official list (or CUDNNENV_INDEX's).
struct CudnnCandidate {
  std::string name;  // the tree's name; for an archive its spec ("9.19.0+cuda13")
  Version version;
  std::optional<CudaVersion> cuda;
  bool installed = false;
};

struct Solution {
  std::vector<const CudnnNeed*> needs;  // those that constrain (known, binding the selection)
  std::optional<CudnnCandidate> pick;
  std::string command;  // what selects it: "cudnnenv use c919", "cudnnenv install 9.19.0+cuda13 && cudnnenv use ..."
  // No single cuDNN: why, naming the two that part ("PyTorch 2.11.0 needs
  // cuDNN 9.19 or a newer 9.x for CUDA 13; TensorFlow 2.18.0 needs ... for CUDA 12").
  std::string conflict;
  // The split: per framework, the cuDNN that runs it alone and the command
  // that runs a program with it.
  struct Part {
    const CudnnNeed* need = nullptr;
    std::optional<CudnnCandidate> pick;
    std::string command;
  };
  std::vector<Part> split;
};

// The one cuDNN that runs every need: installed trees first (the newest that
// fits), then the newest archive of `archives` that fits. With `node`, only
// what runs there (doctor/node.hpp: its platform, driver and GPUs).
Solution solve(const std::vector<CudnnNeed>& needs, const std::vector<TreeRecord>& installed,
               const std::vector<const OfficialArchive*>& archives, Os os, const NodeFacts* node = nullptr);

Json need_json(const CudnnNeed& need);
Json solution_json(const Solution& solution);

}  // namespace cudnnenv
