// What `doctor` and `snapshot` know about this machine, gathered once: the
// driver and its GPUs (in a child, `cudnnenv-probe --gpus`, with a timeout),
// CUDA toolkits, cuDNN headers, every cuDNN copy, the selection, the program
// whose loader is walked (python by default), the frameworks in its
// site-packages (read from files, never imported), the CPU, and on Windows
// the PATH stored in the registry and the VC++ runtime. Nothing here judges:
// the checks (doctor.hpp) read these facts.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "discover/discover.hpp"
#include "discover/toolkits.hpp"
#include "formats/binfmt.hpp"
#include "formats/platform.hpp"
#include "formats/version.hpp"
#include "pin/shims.hpp"
#include "select/profile.hpp"
#include "select/resolve.hpp"
#include "store/store.hpp"
#include "util/environment.hpp"
#include "util/result.hpp"

namespace cudnnenv {

struct GpuInfo {
  int index = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  std::string compute_capability() const;  // "9.0"
};

struct DriverInfo {
  std::string version;              // "580.95.05"; empty when unknown
  std::string version_from;         // "/proc/driver/nvidia/version", "NVML"
  std::optional<CudaVersion> cuda;  // the newest CUDA the driver runs (cuDriverGetVersion)
  std::vector<GpuInfo> gpus;
  std::string error;  // why there is no driver or GPU, in the driver's words
  bool found() const { return !version.empty() || cuda.has_value(); }
};

using ToolkitInfo = Toolkit;  // discover/toolkits, found the one way every command finds them

struct HeaderInfo {
  std::filesystem::path file;  // cudnn_version.h (or cudnn.h before 8)
  std::optional<Version> version;
  std::string via;  // "CUDNN_INCLUDE_DIR", "CUDA_PATH", "the system include folder", ...
};

struct FrameworkInfo {
  std::string name;                // "TensorFlow", "PyTorch", "JAX", "ONNX Runtime", "CuPy"
  std::string version;             // "2.5.0", "2.11.0+cu130"; empty when unknown
  std::filesystem::path location;  // the package's folder
  std::string cuda;                // what it was built for, as its files say
  // The cuDNN as its files say: TensorFlow's build_info ("8"); PyTorch: its
  // own copy's version; JAX: the lowest its CUDA plugin's metadata accepts;
  // ONNX Runtime: its build info ("9.1").
  std::string cudnn;
  std::string
      package;  // the distribution that says so: "jax-cuda12-plugin", "onnxruntime-gpu"; empty: the folder's name
  // Its metadata's requirement on NVIDIA's cuDNN wheel, as written
  // ("nvidia-cudnn-cu12<10.0,>=9.8"); empty when it names none.
  std::string requires_cudnn;
  std::vector<std::filesystem::path> own_copies;  // cuDNN main libraries it carries (torch/lib, nvidia/cudnn)
};

struct RuntimeFile {
  std::filesystem::path file;
  std::string version;  // the file's version resource, "14.40.33810.0"
};

struct ProgramInfo {
  std::string requested;         // "python" as asked (--for)
  std::filesystem::path path;    // first on PATH; empty when not found
  std::filesystem::path target;  // the program behind a shim, else `path`
  bool is_shim = false;          // `path` is a cudnnenv shim of this store
  // `path`, or the program behind cudnnenv's shim, is a version manager's
  // shim ("pyenv", "asdf", "mise"), `target` what its own `which` names
  // here; empty otherwise.
  std::string manager;
  std::optional<BinaryInfo> binary;  // of `target`
};

// A Jupyter kernelspec found where jupyter_client looks (the user's kernels
// folder, then the system's).
struct KernelInfo {
  std::string name;
  std::filesystem::path file;     // its kernel.json
  std::vector<std::string> argv;  // as written
  bool by_cudnnenv = false;       // written by `export jupyter` (its metadata says so)
};

// The VS Code workspace around the working folder: the nearest
// .vscode/settings.json here or above, and the interpreter it names.
struct VscodeInfo {
  std::filesystem::path settings;
  std::string problem;                // why it could not be read (not plain JSON, ...); empty when read
  std::string interpreter;            // python.defaultInterpreterPath as written; empty: none
  std::filesystem::path program;      // it, ${workspaceFolder} put in, relative to the workspace
  std::optional<LauncherPin> pinned;  // when it is a cudnnenv launcher
};

struct Facts {
  // --facts: the node whose platform, driver, GPUs and toolkits these are
  // (doctor/node.hpp's words for it); empty: this machine's.
  std::string node;
  std::string node_file;  // its snapshot, as given
  Platform platform;
  util::Environment environment;
  std::filesystem::path store_root;
  std::vector<TreeRecord> trees;   // whole records (manifests)
  std::vector<TreeRecord> beside;  // the store's trees of the other components (CUDA runtimes), full records
  std::vector<Error> damaged_trees;
  std::optional<Selection> selection;  // with the whole record
  std::optional<Error> selection_error;
  std::vector<Profile> profiles;
  DriverInfo driver;
  std::vector<ToolkitInfo> toolkits;
  std::vector<HeaderInfo> headers;  // in the order a build would search
  std::vector<FoundCopy> copies;    // discover()
  ProgramInfo program;
  std::vector<std::filesystem::path> site_packages;  // the program's, then the active environment's
  std::vector<FrameworkInfo> frameworks;
  std::optional<bool> cpu_avx;  // x86 only
  // Windows: the PATH entries a new terminal would get (user and machine,
  // from the registry, expanded); absent elsewhere or when unreadable.
  std::optional<std::vector<std::string>> registry_path;
  std::vector<RuntimeFile> vc_runtime;  // Windows: msvcp140.dll, vcruntime140.dll in System32
  std::vector<KernelInfo> kernels;      // Jupyter's kernelspecs
  std::optional<VscodeInfo> vscode;     // the VS Code workspace here, if any
  // Linux: the CDI spec files where container engines look (/etc/cdi,
  // /var/run/cdi), each with its text; those of cudnnenv's kind are checked.
  std::vector<std::pair<std::filesystem::path, std::string>> cdi_specs;
};

struct FactsRequest {
  util::Environment environment;
  Platform platform = host_platform();
  const Store* store = nullptr;
  SelectionRequest selection;
  std::string program = "python";  // --for; "python" also tries python3
  std::filesystem::path probe_program;
  std::chrono::milliseconds timeout{std::chrono::seconds(10)};
  bool load_copies = true;                          // load each copy in a child for its real version
  std::vector<std::filesystem::path> config_files;  // whose [profiles] apply (config_files)
};

Facts collect_facts(const FactsRequest& request);

// The request of doctor and frameworks: `store` (and its config files),
// `environment`, the selection `selection` asks for, the program `program`
// (--for), the probe beside the installed cudnnenv.
FactsRequest facts_request(const Store& store, const util::Environment& environment, SelectionRequest selection,
                           const std::string& program, bool load_copies);

// Parts, for tests and for other commands.
DriverInfo read_driver(const std::filesystem::path& probe_program, std::chrono::milliseconds timeout);
// Parses `cudnnenv-probe --gpus` output, and /proc/driver/nvidia/version's
// "NVRM version: ... Kernel Module  580.95.05  ..." line.
DriverInfo parse_gpu_probe(std::string_view text);
std::string parse_proc_driver_version(std::string_view text);
std::vector<HeaderInfo> find_headers(const util::Environment& environment, const std::vector<ToolkitInfo>& toolkits,
                                     Os os);
// The program `program` ("python" also tries python3) that runs here: first
// on PATH, through cudnnenv's shims (`shims_dir`, empty: none) and, with
// `run_managers`, a version manager's shim (its `which`, in a child).
ProgramInfo find_program_that_runs(const std::string& program, const util::Environment& environment,
                                   const std::filesystem::path& shims_dir, Os os, bool run_managers);
// The site-packages folders of `program` (a venv's or conda's Python), of
// VIRTUAL_ENV and CONDA_PREFIX, and of the working folder's ./.venv.
std::vector<std::filesystem::path> site_packages_of(const std::filesystem::path& program,
                                                    const util::Environment& environment, Os os);
std::vector<FrameworkInfo> find_frameworks(const std::vector<std::filesystem::path>& site_packages,
                                           const std::vector<FoundCopy>& copies, Os os);
// The first quoted value after `key` in Python source ('cuda_version': '11.2'); empty when none.
std::string python_value_after(std::string_view text, std::string_view key);
// A wheel's METADATA text: its first Requires-Dist on nvidia-cudnn-cuNN,
// without the environment marker ("nvidia-cudnn-cu12<10.0,>=9.8"); empty when none.
std::string cudnn_requirement(std::string_view metadata);
// The lowest version a requirement's specifiers accept (">=9.8", "==9.1.0.70",
// "~=9.0"), or nothing when none bounds it from below.
std::optional<Version> requirement_floor(std::string_view requirement);

// What a version manager's shim script names to run: pyenv's (`exec
// "/root/.pyenv/libexec/pyenv" exec "$program"`) or asdf's (`exec
// /home/u/.asdf/bin/asdf exec "python"`, or a bare `asdf`); text that is not
// a script (no "#!") names nothing. The tool is a path from the file, which
// anyone who can write the shim chose: the caller decides whether to run it.
struct ManagerShim {
  std::string name;  // "pyenv", "asdf"
  std::string tool;  // the path as written ("asdf" when bare)
};
std::optional<ManagerShim> manager_in_shim_text(std::string_view text);
// "1.2.3" < "1.10" by number, field by field; a missing field counts as 0.
int compare_dotted(std::string_view a, std::string_view b);

// Platform parts (facts_posix.cpp / facts_win.cpp).
std::string proc_driver_version();                                               // Linux: /proc; Windows: empty
std::optional<bool> cpu_has_avx();                                               // x86: cpuid; else absent
std::optional<std::vector<std::string>> read_registry_path();                    // Windows only
std::vector<RuntimeFile> find_vc_runtime(const util::Environment& environment);  // Windows only
// "Linux 6.1.0 x86_64", "Windows 10.0.19045 x86_64" (RtlGetVersion: the
// build as it is, whatever the program's manifest claims), with "(Wine 8.0)"
// under Wine.
std::string os_description();
std::optional<std::string> wine_version();  // Windows under Wine: its version
std::string code_pages();                   // Windows: "console 437, ANSI 1252"; Linux: empty

}  // namespace cudnnenv
