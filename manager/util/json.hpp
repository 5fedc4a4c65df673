// JSON as cudnnenv writes and reads it: nlohmann-json with keys in the order
// written (docs/json.md), null for an absent value. Here, not in cli/,
// because the core parses JSON too (snapshots, untrusted files).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace cudnnenv {

using Json = nlohmann::ordered_json;

// null for an absent value, never "".
inline Json or_null(const std::string& value) {
  return value.empty() ? Json(nullptr) : Json(value);
}
template <class T>
Json or_null(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

}  // namespace cudnnenv
