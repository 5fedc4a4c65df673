// What a verify run says: the GPU check's report as JSON (docs/verify-json.md)
// and, for a check of several GPUs, a JSON list and a table. The CLI picks
// the stream.
#pragma once

#include <string>
#include <vector>

#include "probe/protocol.hpp"
#include "util/json.hpp"
#include "verify/verify.hpp"

namespace cudnnenv {

// What the GPU check reported: the timings, errors and raw versions as
// numbers, names and messages as strings, under the protocol's key names;
// null below the conv level.
Json gpu_json(const probe_protocol::GpuReport& reported);

// Each GPU of a check of several (`--device all`): its index, what it
// reported (gpu_json's keys) and its result: pass, fail or busy.
Json devices_json(const std::vector<DeviceResult>& devices);

// One row per GPU: index, name, compute capability, the time on it
// (context, handle, the check), the largest error, the result.
std::string devices_table(const std::vector<DeviceResult>& devices);

}  // namespace cudnnenv
