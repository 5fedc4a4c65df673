// What doctor reads from files anyone can write: /proc's driver line, the
// probe's GPU list, and Python sources in site-packages (TensorFlow's
// build_info.py, PyTorch's version.py), and a version manager's shim script
// on PATH; and what verify reads from the probe (a report of several GPUs,
// split at device_begin lines) and from --device. Any bytes: no crash, no
// read past the input, and a value found is a substring of the input without
// a quote.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "doctor/facts.hpp"
#include "probe/protocol.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string driver = cudnnenv::parse_proc_driver_version(text);
  if (!driver.empty() && text.find(driver) == std::string::npos) std::abort();
  const cudnnenv::DriverInfo info = cudnnenv::parse_gpu_probe(text);
  for (const auto& gpu : info.gpus) {
    if (text.find(gpu.name) == std::string::npos) std::abort();
  }
  for (const char* key : {"'cuda_version'", "'cudnn_version'", "\n__version__", "\ncuda", "cuda_version_number"}) {
    const std::string value = cudnnenv::python_value_after(text, key);
    if (value.find('\'') != std::string::npos && value.find('"') != std::string::npos) std::abort();
    if (!value.empty() && text.find(value) == std::string::npos) std::abort();
  }
  // A version manager's shim: the tool named is a substring of the text.
  if (const auto shim = cudnnenv::manager_in_shim_text(text); shim && text.find(shim->tool) == std::string::npos) {
    std::abort();
  }
  // The probe's report of several GPUs: no line lost or made up, each GPU's part parsed.
  const auto sections = cudnnenv::probe_protocol::split_devices(text);
  std::size_t kept = sections.run.size();
  for (const auto& [index, part] : sections.devices) {
    kept += part.size();
    (void)cudnnenv::probe_protocol::parse_gpu_report(part);
  }
  if (kept > text.size() + 1) std::abort();
  (void)cudnnenv::probe_protocol::parse_gpu_report(sections.run);
  // --device: what parses is an index list in range without repeats, or all.
  if (const auto choice = cudnnenv::probe_protocol::parse_device_choice(text)) {
    if (choice->all != choice->indices.empty()) std::abort();
    for (std::size_t i = 0; i < choice->indices.size(); ++i) {
      if (choice->indices[i] < 0 || choice->indices[i] > 1023) std::abort();
      for (std::size_t j = 0; j < i; ++j) {
        if (choice->indices[i] == choice->indices[j]) std::abort();
      }
    }
  }
  const auto half = text.find('|');
  if (half != std::string::npos) {
    const int forward = cudnnenv::compare_dotted(text.substr(0, half), text.substr(half + 1));
    const int backward = cudnnenv::compare_dotted(text.substr(half + 1), text.substr(0, half));
    if (forward != -backward) std::abort();
  }
  return 0;
}
