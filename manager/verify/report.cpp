#include "verify/report.hpp"

#include <algorithm>
#include <cstdio>

#include "util/text.hpp"

namespace cudnnenv {

Json gpu_json(const probe_protocol::GpuReport& reported) {
  namespace key = probe_protocol;
  if (reported.empty()) return nullptr;
  Json gpu = Json::object();
  auto text = [&](std::string_view name, const std::optional<std::string>& value) {
    if (value) gpu[std::string(name)] = *value;
  };
  auto number = [&](std::string_view name, const std::optional<key::Number>& value) {
    if (value) gpu[std::string(name)] = value->value;
  };
  auto whole = [&](std::string_view name, const std::optional<key::Number>& value) {
    if (value) gpu[std::string(name)] = static_cast<std::int64_t>(value->value);
  };
  auto joined = [&](std::string_view name, const std::vector<std::string>& values) {
    std::string all;
    for (const auto& value : values) all += (all.empty() ? "" : "; ") + value;
    if (!values.empty()) gpu[std::string(name)] = all;
  };
  text(key::driver_cuda, reported.driver_cuda);
  text(key::gpu, reported.gpu);
  text(key::compute_capability, reported.compute_capability);
  number(key::driver_init_ms, reported.driver_init_ms);
  number(key::context_ms, reported.context_ms);
  number(key::cudnn_load_ms, reported.cudnn_load_ms);
  number(key::cudnn_create_ms, reported.cudnn_create_ms);
  whole(key::cudnn_version, reported.cudnn_version);
  whole(key::cudart_version, reported.cudart_version);
  text(key::loaded_from, reported.loaded_from);
  joined(key::conv_error, reported.conv_errors);
  number(key::max_relative_error, reported.max_relative_error);
  number(key::error_bound, reported.error_bound);
  number(key::conv_ms, reported.conv_ms);
  text(key::conv_result, reported.conv_result);
  text(key::sgemm, reported.sgemm);
  text(key::sgemm_result, reported.sgemm_result);
  joined(key::gpu_error, reported.gpu_errors);
  joined(key::error, reported.errors);
  for (const auto& [name, value] : reported.other) gpu[name] = value;  // a number that did not parse stays text
  return gpu;
}

Json devices_json(const std::vector<DeviceResult>& devices) {
  Json list = Json::array();
  for (const auto& device : devices) {
    Json entry = gpu_json(device.gpu);
    if (entry.is_null()) entry = Json::object();
    entry["index"] = device.index;
    entry["result"] = device.status == CheckStatus::ok       ? "pass"
                      : device.status == CheckStatus::failed ? "fail"
                                                             : "busy";
    entry["detail"] = or_null(device.detail);
    list.push_back(std::move(entry));
  }
  return list;
}

std::string devices_table(const std::vector<DeviceResult>& devices) {
  std::vector<std::vector<std::string>> rows = {{"GPU", "name", "cc", "time", "max error", "result"}};
  for (const auto& device : devices) {
    const auto& gpu = device.gpu;
    double time = 0;
    bool timed = false;
    for (const auto& part : {gpu.context_ms, gpu.cudnn_create_ms, gpu.conv_ms}) {
      if (part) {
        time += part->value;
        timed = true;
      }
    }
    char shown[32];
    std::snprintf(shown, sizeof shown, "%.1f ms", time);
    rows.push_back({std::to_string(device.index), util::printable(gpu.gpu.value_or("?")),
                    gpu.compute_capability.value_or("?"), timed ? shown : "-",
                    gpu.max_relative_error ? gpu.max_relative_error->text : "-",
                    device.status == CheckStatus::ok       ? "pass"
                    : device.status == CheckStatus::failed ? "FAIL: " + device.detail
                                                           : "busy: " + device.detail});
  }
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t column = 0; column + 1 < row.size(); ++column) {
      widths[column] = std::max(widths[column], row[column].size());
    }
  }
  std::string text;
  for (const auto& row : rows) {
    text += "        ";
    for (std::size_t column = 0; column < row.size(); ++column) {
      text += row[column];
      if (column + 1 < row.size()) text += std::string(widths[column] - row[column].size() + 2, ' ');
    }
    text += "\n";
  }
  return text;
}

}  // namespace cudnnenv
