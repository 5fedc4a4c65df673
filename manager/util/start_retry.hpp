// One rule for a process start Windows fails for a moment: CreateProcessW
// returning ERROR_INTERNAL_ERROR (1359; seen under Wine while another prefix
// was busy) is tried once more after a pause, and nothing else is. Used by
// the shims and exec (shim/win_launch.cpp) and by the manager's children
// (util/process_child.cpp). No Windows header: the unit test drives it on
// every platform (nothing makes Windows or Wine fail a start on demand).
#pragma once

namespace cudnnenv::util {

inline constexpr unsigned long k_error_internal_error = 1359;  // ERROR_INTERNAL_ERROR

// `attempt()` starts the process and returns 0, or the error code;
// `pause()` waits before the second try. The last attempt's result.
template <class Attempt, class Pause>
unsigned long start_with_retry(Attempt&& attempt, Pause&& pause) {
  const unsigned long first = attempt();
  if (first != k_error_internal_error) return first;
  pause();
  return attempt();
}

}  // namespace cudnnenv::util
