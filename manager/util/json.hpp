// JSON as cudnnenv writes and reads it: nlohmann-json with keys in the order
// written (docs/json.md), null for an absent value. Here, not in cli/,
// because the core parses JSON too (snapshots, untrusted files).
#pragma once

#include <optional>
#include <string>
#include <string_view>

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

// Whether `text` nests objects and arrays no deeper than `max_depth`, counted
// before parsing: nlohmann's parser and destructor recurse, so untrusted
// JSON (snapshots, manifests) is measured first.
inline bool json_nesting_within(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) return false;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return true;
}

// `text` parsed as JSON, keys in the order the text has them, in time
// O(n log n) in its size whatever the keys are (no hash a crafted file can
// make collide); a discarded value (is_discarded()) when it is not JSON.
// nlohmann's own parser inserts each key of an ordered object by searching
// the keys before it (quadratic: 100,000 keys in one object took 31 s), so
// every JSON read from a file or a child goes through here. A key given twice
// keeps its first place and its last value, as nlohmann's own parser does.
// Nesting is not bounded here: measure it first (json_nesting_within).
Json parse_json(std::string_view text);

}  // namespace cudnnenv
