// `cudnnenv snapshot`: what doctor knows as one JSON record (the format in
// docs/doctor.md), and `snapshot diff`: what changed between two, key by key.
// Snapshots are files anyone may hand over: diff refuses text that is not a
// snapshot, or nested deeper than one ever is, before nlohmann parses it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "doctor/doctor.hpp"
#include "doctor/facts.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace cudnnenv {

// One check as doctor --json and the snapshot write it.
Json doctor_check_json(const DoctorCheck& check);

// The snapshot of `facts` and the `checks` run on them, by this `cudnnenv_version`.
Json snapshot_json(const Facts& facts, const std::vector<DoctorCheck>& checks, const std::string& cudnnenv_version);

// `snapshot` (as snapshot_json made it) as `key: value` lines, in document
// order: list elements by identity (`copies[/path]`, `checks[driver]`).
std::vector<std::pair<std::string, std::string>> snapshot_text_lines(const Json& snapshot);

// What changed between two snapshots (`snapshot -o` files), key by key
// (`taken_at` aside). Fails (exit code 2) for text that is not a snapshot,
// or nested deeper than a snapshot ever is.
struct SnapshotChange {
  std::string change;  // "changed", "added", "removed"
  std::string key;     // "selection.version", "checks[driver].status"
  std::optional<std::string> before;
  std::optional<std::string> after;
};
Result<std::vector<SnapshotChange>> diff_snapshots(std::string_view before, std::string_view after,
                                                   const std::string& before_name, const std::string& after_name);

// A snapshot file's `taken_at`, or "?".
std::string snapshot_taken_at(std::string_view text);

// Whether `text` is a snapshot cudnnenv wrote (JSON, an object with its
// "format"): what `snapshot -o` may replace.
bool is_snapshot(std::string_view text);

}  // namespace cudnnenv
