#include "probe/protocol.hpp"

#include <charconv>

#include "util/text.hpp"

namespace cudnnenv::probe_protocol {

std::vector<std::pair<std::string, std::string>> parse_key_values(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& line : util::split(text, '\n')) {
    const auto equals = line.find('=');
    if (equals == std::string::npos) {
      continue;
    }
    pairs.emplace_back(std::string(util::trim(line.substr(0, equals))),
                       std::string(util::trim(line.substr(equals + 1))));
  }
  return pairs;
}

bool GpuReport::empty() const {
  return !driver_cuda && !gpu && !compute_capability && !loaded_from && !conv_result && !sgemm && !sgemm_result &&
         !driver_init_ms && !context_ms && !cudnn_load_ms && !cudnn_create_ms && !cudnn_version && !cudart_version &&
         !max_relative_error && !error_bound && !conv_ms && shapes.empty() && gpu_errors.empty() && errors.empty() &&
         conv_errors.empty() && other.empty();
}

std::string GpuReport::problems() const {
  std::string text;
  for (const auto* list : {&gpu_errors, &errors, &conv_errors}) {
    for (const auto& problem : *list) text += (text.empty() ? "" : "; ") + problem;
  }
  return text;
}

GpuReport parse_gpu_report(std::string_view text) {
  GpuReport report;
  const std::pair<std::string_view, std::optional<std::string> GpuReport::*> strings[] = {
      {driver_cuda, &GpuReport::driver_cuda},
      {gpu, &GpuReport::gpu},
      {compute_capability, &GpuReport::compute_capability},
      {loaded_from, &GpuReport::loaded_from},
      {conv_result, &GpuReport::conv_result},
      {sgemm, &GpuReport::sgemm},
      {sgemm_result, &GpuReport::sgemm_result}};
  const std::pair<std::string_view, std::optional<Number> GpuReport::*> numbers[] = {
      {driver_init_ms, &GpuReport::driver_init_ms},
      {context_ms, &GpuReport::context_ms},
      {cudnn_load_ms, &GpuReport::cudnn_load_ms},
      {cudnn_create_ms, &GpuReport::cudnn_create_ms},
      {cudnn_version, &GpuReport::cudnn_version},
      {cudart_version, &GpuReport::cudart_version},
      {max_relative_error, &GpuReport::max_relative_error},
      {error_bound, &GpuReport::error_bound},
      {conv_ms, &GpuReport::conv_ms}};
  const std::pair<std::string_view, std::vector<std::string> GpuReport::*> lists[] = {
      {conv, &GpuReport::shapes},
      {gpu_error, &GpuReport::gpu_errors},
      {error, &GpuReport::errors},
      {conv_error, &GpuReport::conv_errors}};
  for (auto& [key, value] : parse_key_values(text)) {
    bool known = false;
    for (const auto& [name, field] : strings) {
      if (key == name) {
        report.*field = value;
        known = true;
      }
    }
    for (const auto& [name, field] : numbers) {
      if (key != name) continue;
      double number = 0;
      const auto [end, problem] = std::from_chars(value.data(), value.data() + value.size(), number);
      if (problem == std::errc() && end == value.data() + value.size() && !value.empty()) {
        report.*field = Number{number, value};
        known = true;
      }
    }
    for (const auto& [name, field] : lists) {
      if (key == name) {
        (report.*field).push_back(value);
        known = true;
      }
    }
    if (!known) report.other.emplace_back(std::move(key), std::move(value));
  }
  return report;
}

}  // namespace cudnnenv::probe_protocol
