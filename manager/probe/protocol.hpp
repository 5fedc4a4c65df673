// What cudnnenv-probe and its parent say to each other: the child prints one
// `key=value` line per fact on stdout and exits with a ProbeExit; the parent
// (probe.cpp, verify) parses the lines with parse_key_values. Both sides name
// the keys from here, so that a renamed key is a compile error, not a check
// that silently reads nothing.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudnnenv::probe_protocol {

// The probe's exit codes.
enum class ProbeExit : int {
  ok = 0,
  failed = 1,         // the library or the driver could not be used
  usage = 2,          // wrong arguments
  no_gpu = 3,         // conv: no driver or no GPU (a skip, not a failure)
  wrong_results = 4,  // conv: the GPU's results differ from the CPU reference
};

// A GPU section's first line (its index), and a GPU another process holds
// (exclusive-process or prohibited compute mode): busy, not a failure.
inline constexpr std::string_view device_begin = "device_begin";
inline constexpr std::string_view gpu_busy = "gpu_busy";

// Which GPUs a GPU check runs on (`--device`): one index, as before, or
// `all` / a list (`0,2,5`), each GPU's lines then following a
// `device_begin=INDEX` line (split_devices), after the lines of the run
// (driver, cuDNN's load).
struct DeviceChoice {
  bool all = false;
  std::vector<int> indices{0};  // when not all
  bool sections = false;        // all or a list: one section per GPU
};
// "all", "N" or "N,M,..." (each 0-1023, none twice); nothing when malformed.
std::optional<DeviceChoice> parse_device_choice(std::string_view text);

// Keys of the load probe (`cudnnenv-probe [--load-only] LIBRARY`).
inline constexpr std::string_view cudnn_version = "cudnn_version";    // cudnnGetVersion(), raw
inline constexpr std::string_view cudart_version = "cudart_version";  // cudnnGetCudartVersion(), raw
inline constexpr std::string_view loaded_from = "loaded_from";        // the file the loader mapped
// `--load-only` of a CUDA runtime library that reports its own version:
// cudaRuntimeGetVersion, cublasGetProperty, cufftGetVersion, ... as "13.0",
// "13.1.0", "12000"; the function's name in library_version_from.
inline constexpr std::string_view library_version = "library_version";
inline constexpr std::string_view library_version_from = "library_version_from";

// Keys of the GPU list (`cudnnenv-probe --gpus`): driver_cuda, gpu_error, and
inline constexpr std::string_view driver_version = "driver_version";  // NVML's, "580.95.05"
inline constexpr std::string_view device = "device";                  // "INDEX CC NAME", one line per GPU

// Keys the conv probe adds (`cudnnenv-probe --conv [--device N] LIBRARY`).
inline constexpr std::string_view driver_cuda = "driver_cuda";  // the driver's CUDA version, "13.0"
inline constexpr std::string_view gpu = "gpu";                  // the device's name
inline constexpr std::string_view compute_capability = "compute_capability";
inline constexpr std::string_view conv = "conv";  // one line per shape
inline constexpr std::string_view max_relative_error = "max_relative_error";
inline constexpr std::string_view error_bound = "error_bound";
inline constexpr std::string_view conv_ms = "conv_ms";                // the convolutions alone
inline constexpr std::string_view driver_init_ms = "driver_init_ms";  // loading the driver and cuInit
inline constexpr std::string_view context_ms = "context_ms";
inline constexpr std::string_view cudnn_load_ms = "cudnn_load_ms";
inline constexpr std::string_view cudnn_create_ms = "cudnn_create_ms";
inline constexpr std::string_view conv_result = "conv_result";  // pass / fail
inline constexpr std::string_view gpu_error = "gpu_error";      // no driver or GPU
inline constexpr std::string_view error = "error";              // anything else that stopped it
inline constexpr std::string_view conv_error = "conv_error";    // one shape's failure

// Keys the SGEMM probe adds (`cudnnenv-probe --sgemm [--device N] LIBCUBLAS`),
// besides driver_cuda, gpu, compute_capability, max_relative_error,
// error_bound, gpu_error and error.
inline constexpr std::string_view sgemm = "sgemm";                // "256x256x256: ..., 0.1 ms on the GPU"
inline constexpr std::string_view sgemm_result = "sgemm_result";  // pass / fail

// The `key=value` lines of `text`, in order (a key may repeat: `conv`);
// lines without '=' are skipped, values trimmed.
std::vector<std::pair<std::string, std::string>> parse_key_values(std::string_view text);

// A number as the probe printed it, and its value.
struct Number {
  double value = 0;
  std::string text;
};

// What the conv probe reported, each field by its key above (absent when the
// probe did not get that far). A value that does not parse as the number its
// key should be, and a key this parent does not know, stay in `other` as text.
struct GpuReport {
  std::optional<std::string> driver_cuda, gpu, compute_capability, loaded_from, conv_result;
  std::optional<std::string> sgemm, sgemm_result;  // a runtime's GPU check
  std::optional<std::string> gpu_busy;
  std::optional<Number> driver_init_ms, context_ms, cudnn_load_ms, cudnn_create_ms;
  std::optional<Number> cudnn_version, cudart_version;
  std::optional<Number> max_relative_error, error_bound, conv_ms;
  std::vector<std::string> shapes;  // `conv`, one per shape
  // gpu_error, error and conv_error, each in the order reported.
  std::vector<std::string> gpu_errors, errors, conv_errors;
  std::vector<std::pair<std::string, std::string>> other;

  bool empty() const;
  // Every problem the probe named (gpu_error, error, conv_error), joined by "; ".
  std::string problems() const;
};

GpuReport parse_gpu_report(std::string_view text);

// A sectioned report (DeviceChoice::sections): the lines before the first
// device_begin, and each GPU's index with its lines.
struct DeviceSections {
  std::string run;
  std::vector<std::pair<int, std::string>> devices;
};
DeviceSections split_devices(std::string_view text);

}  // namespace cudnnenv::probe_protocol
