// What a watched run (exec --report, --why) says: the failures among what it
// loaded, each with its fix, and the report of where each file came from, as
// text for a terminal or one line of JSON. The CLI picks the stream.
#pragma once

#include <string>
#include <vector>

#include "pin/launch.hpp"
#include "pin/why.hpp"
#include "select/resolve.hpp"
#include "store/store.hpp"
#include "util/environment.hpp"
#include "util/json.hpp"

namespace cudnnenv {

// What the watched run tried to load and could not, each with the one fix
// this store and the known CUDA releases allow. `command`: the program and
// its arguments as typed (quoted into each fix).
LoadFailures failures_of(const LaunchPlan& plan, const std::vector<LoadedModule>& loaded, const WatchedRun& run,
                         const Selection& selection, const Store& store, const std::vector<std::string>& command,
                         const util::Environment& environment);

// --why --json: the missing libraries and the files that failed.
Json failures_json(const LoadFailures& failures);

// What --report says about one run, from what it watched.
struct RunReport {
  const TreeRecord& tree;
  const TreeRecord* runtime;              // null without one
  std::vector<const TreeRecord*> beside;  // the trees pinned beside `tree`, in the table's order
  const LaunchPlan& plan;
  PinMode mode;
  const PinReport& report;
  const WatchedRun& run;
  const LoadFailures& failures;
  int exit_code = 0;
};

// The report as lines for the terminal: the pin, each file with its row's
// label (or OUTSIDE, FENCED, FAILED), what the pin did not reach, the failures.
std::string report_text(const RunReport& in);
// The report as one line of JSON (stdout is the program's, so it goes to stderr).
std::string report_json(const RunReport& in);

}  // namespace cudnnenv
