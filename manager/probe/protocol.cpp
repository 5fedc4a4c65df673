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

std::optional<DeviceChoice> parse_device_choice(std::string_view text) {
  DeviceChoice choice;
  if (text == "all") {
    choice.all = true;
    choice.indices.clear();
    choice.sections = true;
    return choice;
  }
  choice.indices.clear();
  for (const auto& field : util::split(text, ',')) {
    int index = -1;
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), index);
    if (field.empty() || error != std::errc() || end != field.data() + field.size() || index < 0 || index > 1023) {
      return std::nullopt;
    }
    for (const int seen : choice.indices) {
      if (seen == index) return std::nullopt;
    }
    choice.indices.push_back(index);
  }
  choice.sections = text.find(',') != std::string_view::npos;
  return choice;
}

DeviceSections split_devices(std::string_view text) {
  DeviceSections sections;
  std::string* current = &sections.run;
  for (const auto& line : util::split(text, '\n')) {
    const auto equals = line.find('=');
    if (equals != std::string::npos && util::trim(std::string_view(line).substr(0, equals)) == device_begin) {
      int index = -1;
      const std::string value(util::trim(std::string_view(line).substr(equals + 1)));
      std::from_chars(value.data(), value.data() + value.size(), index);
      sections.devices.emplace_back(index, std::string());
      current = &sections.devices.back().second;
      continue;
    }
    *current += line;
    *current += '\n';
  }
  return sections;
}

bool GpuReport::empty() const {
  return !gpu_busy && !driver_cuda && !gpu && !compute_capability && !loaded_from && !conv_result && !sgemm &&
         !sgemm_result && !driver_init_ms && !context_ms && !cudnn_load_ms && !cudnn_create_ms && !cudnn_version &&
         !cudart_version && !max_relative_error && !error_bound && !conv_ms && shapes.empty() && gpu_errors.empty() &&
         errors.empty() && conv_errors.empty() && other.empty();
}

std::string GpuReport::problems() const {
  std::string text = gpu_busy.value_or("");
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
      {sgemm_result, &GpuReport::sgemm_result},
      {gpu_busy, &GpuReport::gpu_busy}};
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
