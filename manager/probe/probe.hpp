// Reading a library's own version. Loading a foreign DLL can crash or hang,
// so it happens in a child process (`cudnnenv-probe LIBRARY`, beside the
// cudnnenv program) that the parent waits for with a timeout.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "probe/protocol.hpp"
#include "util/dynlib.hpp"
#include "util/process.hpp"
#include "util/result.hpp"

namespace cudnnenv {

struct ProbeReport {
  std::size_t version_raw = 0;            // cudnnGetVersion()
  std::optional<std::size_t> cudart_raw;  // cudnnGetCudartVersion(), when exported
  std::string loaded_from;                // the file the loader mapped
};

// Loads `library` and reads what it reports, in this process. The child's
// half of the probe; also what tests of fake libraries call.
Result<ProbeReport> probe_in_process(const std::filesystem::path& library);

// The child's main: prints the report as "key=value" lines; 0 on success.
int run_probe_child(const std::filesystem::path& library);

// The GPU check's child: loads the CUDA driver and `library` once, runs
// float32 forward convolutions on each GPU of `devices` against a
// double-precision CPU reference, prints key=value lines (a section per GPU
// when `devices.sections`). Exit code: 4 when a GPU's results were wrong, 1
// on another failure, 3 when no GPU could be used (no driver, none there,
// busy), else 0.
int run_conv_probe(const std::filesystem::path& library, const probe_protocol::DeviceChoice& devices);

// The GPU check of a CUDA runtime (`cudnnenv-probe --sgemm [--device N]
// LIBCUBLAS`): loads the driver and cuBLAS (the runtime's folder first on the
// search path), runs one float32 SGEMM (C = A B, 256x256) on GPU `device`
// against a double-precision CPU reference, prints key=value lines (sgemm,
// max_relative_error, error_bound, sgemm_result), per GPU as run_conv_probe.
// Exit codes as run_conv_probe.
int run_sgemm_probe(const std::filesystem::path& cublas, const probe_protocol::DeviceChoice& devices);

// The driver and its GPUs (`cudnnenv-probe --gpus`): NVML's driver version
// when present, the driver's CUDA version, one `device` line per GPU. Exit
// code: 0, or 3 without a driver or a GPU.
int run_gpu_probe();

// Parses what run_probe_child printed.
std::optional<ProbeReport> parse_probe_output(std::string_view text);

// Runs `probe_program library` with the library's folder first on the
// loader's search path (LD_LIBRARY_PATH / PATH), so that its sub-libraries
// come from the same folder.
Result<ProbeReport> probe_in_child(const std::filesystem::path& probe_program, const std::filesystem::path& library,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(30),
                                   const std::filesystem::path& runtime_dir = {});

// The child process that probes `library`: `probe_program [arguments...]
// library`, with the library's folder first on the loader's search path,
// then `runtime_dir` when given (the CUDA runtime tree selected with it, as
// exec puts it).
util::ProcessSpec probe_process(const std::filesystem::path& probe_program, const std::filesystem::path& library,
                                std::vector<std::string> arguments, std::chrono::milliseconds timeout,
                                const std::filesystem::path& runtime_dir = {});

// The version a CUDA runtime library reports of itself, read without a GPU
// (cudaRuntimeGetVersion, cublasGetProperty / cusparseGetProperty,
// cufftGetVersion, curandGetVersion, cusolverGetVersion, nvrtcVersion,
// nvJitLinkVersion, cublasLtGetVersion), and the function read; none for a
// library that exports none of them. In the probe child only.
std::optional<std::pair<std::string, std::string>> runtime_library_version(const util::DynamicLibrary& library,
                                                                           std::string_view file_name);

using ProbeFunction = std::function<Result<ProbeReport>(const std::filesystem::path& library)>;

// cudnnenv-probe beside `program` (cudnnenv-probe.exe on Windows).
std::filesystem::path probe_program_beside(const std::filesystem::path& program);

}  // namespace cudnnenv
