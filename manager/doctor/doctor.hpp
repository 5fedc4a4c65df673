// `cudnnenv doctor`: the known ways a cuDNN setup fails, each checked on
// this machine's facts (facts.hpp) and, when it finds one, said as what the
// user sees, why, and the fix, with this machine's paths and versions.
//
// Every check has a stable id (docs/doctor.md lists them); the checks read
// facts only, so a test builds the facts it needs.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "doctor/facts.hpp"
#include "doctor/frameworks.hpp"

namespace cudnnenv {

enum class DoctorStatus { ok, warn, fail, skip };

std::string to_string(DoctorStatus status);

struct DoctorCheck {
  std::string id;  // "driver", "gpu", "copy-wins", ...
  DoctorStatus status = DoctorStatus::ok;
  std::string summary;               // one line
  std::vector<std::string> details;  // what it looked at: each copy skipped, each file changed
  // For warn and fail:
  std::string symptom;  // what the user sees
  std::string cause;
  std::string fix;
};

struct DoctorOptions {
  bool deep = false;  // integrity: hash every file (verify's files level) instead of comparing sizes
  // Adds a last check, `verify`: verify --level conv of the selected tree,
  // its library loaded by `probe_program` (cudnnenv-probe).
  bool verify = false;
  std::filesystem::path probe_program;
  // What the frameworks need, probed (doctor --probe); absent: read from their files.
  std::optional<std::vector<CudnnNeed>> framework_needs;
};

std::vector<DoctorCheck> run_checks(const Facts& facts, const DoctorOptions& options = {});

// The minimum driver for CUDA `cuda` on `os` (cudnn-facts.md, section 6):
// for the exact toolkit release (`exact`), and for the whole major
// (minor-version compatibility). Empty when unknown.
struct DriverMinimum {
  std::string exact;
  std::string major;
};
DriverMinimum minimum_driver(const CudaVersion& cuda, Os os);

// Whether `driver` is too old for CUDA `cuda`'s major (the driver check's
// failure): by the CUDA it says it runs, else by its version.
bool driver_below_major(const DriverInfo& driver, const CudaVersion& cuda, Os os);

// The gpu check's finding for `gpu` with `tree` (no code for its
// architecture, or dropped it), or nothing when the tree runs on it.
std::optional<DoctorCheck> gpu_check_for(const GpuInfo& gpu, const TreeRecord& tree);

}  // namespace cudnnenv
