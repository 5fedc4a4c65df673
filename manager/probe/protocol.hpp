// What cudnnenv-probe and its parent say to each other: the child prints one
// `key=value` line per fact on stdout and exits with a ProbeExit; the parent
// (probe.cpp, verify) parses the lines with parse_key_values. Both sides name
// the keys from here, so that a renamed key is a compile error, not a check
// that silently reads nothing.
#pragma once

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

// Keys of the load probe (`cudnnenv-probe [--load-only] LIBRARY`).
inline constexpr std::string_view cudnn_version = "cudnn_version";    // cudnnGetVersion(), raw
inline constexpr std::string_view cudart_version = "cudart_version";  // cudnnGetCudartVersion(), raw
inline constexpr std::string_view loaded_from = "loaded_from";        // the file the loader mapped

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

// The `key=value` lines of `text`, in order (a key may repeat: `conv`);
// lines without '=' are skipped, values trimmed.
std::vector<std::pair<std::string, std::string>> parse_key_values(std::string_view text);

}  // namespace cudnnenv::probe_protocol
